// Stream and event creation while three streams hold ~100 ms of queued kernels each
// (BENCHMARKS.md, "CUDA runtime calls under load"). Build and run on the device
// (a plain CUDA runtime program):
//   cmake --build build --target cuda_api_queued && build/tests/cuda/cuda_api_queued
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
__global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
}
static double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}
int main() {
  cudaFree(0);
  int sms = 0, clk = 0, lo, hi;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  cudaDeviceGetStreamPriorityRange(&lo, &hi);
  std::vector<cudaStream_t> busy(3);
  for (auto& s : busy) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  auto load = [&](int kernels) {  // each stream: `kernels` x ~10 ms kernels over all SMs
    for (int k = 0; k < kernels; ++k)
      for (auto s : busy) spin<<<sms * 8, 256, 0, s>>>((long long)clk * 10);
  };
  struct Row { const char* name; double idle, busy; };
  std::vector<Row> rows;
  auto measure = [&](const char* name, auto f) {
    cudaDeviceSynchronize();
    auto t = std::chrono::steady_clock::now(); f(); double idle = ms_since(t);
    std::vector<double> v;
    for (int r = 0; r < 5; ++r) {
      load(10);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      t = std::chrono::steady_clock::now(); f(); v.push_back(ms_since(t));
      cudaDeviceSynchronize();
    }
    std::sort(v.begin(), v.end());
    rows.push_back({name, idle, v[2]});
  };
  measure("create+destroy normal stream", [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaStreamDestroy(s); });
  measure("create+destroy greatest-priority stream", [&] { cudaStream_t s; cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, hi); cudaStreamDestroy(s); });
  measure("create 2 greatest-priority streams (kept)", [&] { cudaStream_t s; for (int i = 0; i < 2; ++i) cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, hi); });
  measure("create 2 normal streams (kept)", [&] { cudaStream_t s; for (int i = 0; i < 2; ++i) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); });
  measure("destroy a stream with queued work", [&] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); spin<<<1, 32, 0, s>>>(1000); cudaStreamDestroy(s); });
  std::vector<cudaStream_t> many(60);
  for (auto& s : many) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  measure("create+destroy greatest-priority stream (60 more streams alive)", [&] { cudaStream_t s; cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, hi); cudaStreamDestroy(s); });
  measure("create+destroy normal stream (60 more alive)", [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaStreamDestroy(s); });
  void* p; cudaMalloc(&p, 64 << 20); cudaFree(p);
  measure("cudaMalloc 32 MiB + keep", [] { void* q; cudaMalloc(&q, 32 << 20); });
  measure("event create+record on a greatest-priority stream+sync", [&] { cudaStream_t s; cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, hi); cudaEvent_t e; cudaEventCreateWithFlags(&e, cudaEventDisableTiming); cudaEventRecord(e, s); cudaEventSynchronize(e); });
  printf("| call (3 streams with ~100 ms of queued kernels each) | idle ms | busy ms (median of 5) |\n|---|---:|---:|\n");
  for (auto& r : rows) printf("| %s | %.3f | %.3f |\n", r.name, r.idle, r.busy);
  printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
