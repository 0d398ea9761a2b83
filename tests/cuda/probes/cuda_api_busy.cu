// The cost of CUDA runtime calls while a 200 ms kernel fills every SM (BENCHMARKS.md,
// "CUDA runtime calls under load"). Build and run on the device
// (a plain CUDA runtime program):
//   cmake --build build --target cuda_api_busy && build/tests/cuda/cuda_api_busy
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>
#include <thread>
#include <algorithm>
__global__ void spin(long long cycles, int* out) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
  if (threadIdx.x == 0 && out) out[blockIdx.x] = 1;
}
static double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}
int main() {
  cudaFree(0);
  int sms = 0, clk = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);  // kHz
  cudaStream_t busy;
  cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking);
  int lo, hi;
  cudaDeviceGetStreamPriorityRange(&lo, &hi);
  int* flags;
  cudaMalloc(&flags, sms * 16 * sizeof(int));
  const long long cycles = (long long)clk * 200;  // ~200 ms
  void* keep32; cudaMalloc(&keep32, 32 << 20);
  void* pinned; cudaMallocHost(&pinned, 16 << 20);
  void* dst; cudaMalloc(&dst, 16 << 20);
  struct Case { const char* name; std::function<void()> f; };
  std::vector<void*> leak;
  std::vector<Case> cases = {
    {"cudaStreamCreateWithFlags(nonblocking)", [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }},
    {"cudaStreamCreateWithPriority(greatest)", [&] { cudaStream_t s; cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, hi); }},
    {"cudaStreamCreate+Destroy", [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaStreamDestroy(s); }},
    {"cudaEventCreate(disable timing)", [] { cudaEvent_t e; cudaEventCreateWithFlags(&e, cudaEventDisableTiming); }},
    {"cudaEventCreate(timing)", [] { cudaEvent_t e; cudaEventCreate(&e); }},
    {"cudaEventCreate+Destroy", [] { cudaEvent_t e; cudaEventCreate(&e); cudaEventDestroy(e); }},
    {"cudaMalloc(32 MiB)", [&] { void* p; cudaMalloc(&p, 32 << 20); leak.push_back(p); }},
    {"cudaMalloc(512 MiB)", [&] { void* p; cudaMalloc(&p, 512 << 20); leak.push_back(p); }},
    {"cudaMalloc(4 KiB)", [&] { void* p; cudaMalloc(&p, 4096); leak.push_back(p); }},
    {"cudaFree(32 MiB)", [&] { void* p = leak.empty() ? nullptr : leak.front(); if (p) { cudaFree(p); leak.erase(leak.begin()); } }},
    {"cudaMallocHost(16 MiB)", [&] { void* p; cudaMallocHost(&p, 16 << 20); }},
    {"copy 16 MiB H2D on a new stream + sync", [&] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaMemcpyAsync(dst, pinned, 16 << 20, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); }},
    {"kernel on a new stream + sync", [&] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); spin<<<1, 32, 0, s>>>(1000, nullptr); cudaStreamSynchronize(s); }},
    {"cudaMemGetInfo", [] { size_t f, t; cudaMemGetInfo(&f, &t); }},
  };
  printf("| call (GPU busy with a 200 ms kernel on all SMs) | idle ms | busy ms (median of 5) |\n|---|---:|---:|\n");
  for (auto& c : cases) {
    auto t = std::chrono::steady_clock::now(); c.f(); double idle = ms_since(t);
    cudaDeviceSynchronize();
    std::vector<double> v;
    for (int r = 0; r < 5; ++r) {
      spin<<<sms * 16, 256, 0, busy>>>(cycles, flags);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      t = std::chrono::steady_clock::now(); c.f(); v.push_back(ms_since(t));
      cudaDeviceSynchronize();
    }
    std::sort(v.begin(), v.end());
    printf("| %s | %.3f | %.3f |\n", c.name, idle, v[2]);
  }
  printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
