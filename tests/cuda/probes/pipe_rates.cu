// Issue rates of the instructions field products are made of, alone and in pairs, on
// every SM (BENCHMARKS.md, "FP64-pipe field products"): which pipes run side by side.
// Each thread runs 8 independent chains of each kind, so latency is hidden; the rate is
// thread-instructions per clock per SM at the clock the device reports. Build and run on
// the device (a plain CUDA runtime program):
//   cmake --build build --target pipe_rates && build/tests/cuda/pipe_rates
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr int kChains = 8, kIters = 2048, kThreads = 256;

// One instruction of each kind on chain state, with a neighbouring chain's value as the
// second operand.
struct Dfma {
  using T = double;
  static __device__ T init(int i) { return 1.0 + i; }
  static __device__ void op(T& a, T n) {
    asm volatile("fma.rn.f64 %0, %0, %1, 0d3FF0000000000000;" : "+d"(a) : "d"(n));
  }
};
struct Dadd {
  using T = double;
  static __device__ T init(int i) { return 1.0 + i; }
  static __device__ void op(T& a, T n) { asm volatile("add.rn.f64 %0, %0, %1;" : "+d"(a) : "d"(n)); }
};
struct ImadLo {
  using T = uint32_t;
  static __device__ T init(int i) { return 3u + i; }
  static __device__ void op(T& a, T n) { asm volatile("mad.lo.u32 %0, %0, %1, 12345;" : "+r"(a) : "r"(n)); }
};
struct ImadHi {
  using T = uint32_t;
  static __device__ T init(int i) { return 3u + i; }
  static __device__ void op(T& a, T n) { asm volatile("mad.hi.u32 %0, %0, %1, %0;" : "+r"(a) : "r"(n)); }
};
struct ImadWide {
  using T = uint64_t;
  static __device__ T init(int i) { return 3u + i; }
  static __device__ void op(T& a, T n) {
    uint32_t lo = uint32_t(a), m = uint32_t(n);
    asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(a) : "r"(lo), "r"(m));
  }
};
struct Iadd3 {
  using T = uint32_t;
  static __device__ T init(int i) { return 3u + i; }
  static __device__ void op(T& a, T n) { asm volatile("add.u32 %0, %0, %1;" : "+r"(a) : "r"(n)); }
};
struct Iadd64 {
  using T = uint64_t;
  static __device__ T init(int i) { return 3u + i; }
  static __device__ void op(T& a, T n) { asm volatile("add.u64 %0, %0, %1;" : "+l"(a) : "l"(n)); }
};
struct Lop3 {
  using T = uint32_t;
  static __device__ T init(int i) { return 3u + i; }
  static __device__ void op(T& a, T n) { asm volatile("xor.b32 %0, %0, %1;" : "+r"(a) : "r"(n)); }
};

template <class A, class B>
__global__ void pair_kernel(unsigned long long* sink) {
  typename A::T a[kChains];
  typename B::T b[kChains];
#pragma unroll
  for (int i = 0; i < kChains; ++i) {
    a[i] = A::init(i + threadIdx.x);
    b[i] = B::init(i + threadIdx.x);
  }
  for (int k = 0; k < kIters; ++k) {
#pragma unroll
    for (int i = 0; i < kChains; ++i) {
      A::op(a[i], a[(i + 1) % kChains]);  // the neighbour chain: nothing folds across iterations
      B::op(b[i], b[(i + 1) % kChains]);
    }
  }
  unsigned long long s = 0;
#pragma unroll
  for (int i = 0; i < kChains; ++i) s += (unsigned long long)a[i] ^ (unsigned long long)b[i];
  if (s == 42) sink[0] = s;  // never, in practice: keeps the chains live
}

template <class A>
__global__ void one_kernel(unsigned long long* sink) {
  typename A::T a[kChains];
#pragma unroll
  for (int i = 0; i < kChains; ++i) a[i] = A::init(i + threadIdx.x);
  for (int k = 0; k < kIters; ++k) {
#pragma unroll
    for (int i = 0; i < kChains; ++i) A::op(a[i], a[(i + 1) % kChains]);
  }
  unsigned long long s = 0;
#pragma unroll
  for (int i = 0; i < kChains; ++i) s += (unsigned long long)a[i];
  if (s == 42) sink[0] = s;
}

int sms = 0;
double clock_ghz = 0;

template <class Launch>
float median_ms(Launch launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  launch();
  cudaDeviceSynchronize();
  std::vector<float> t;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(e0);
    launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Thread-instructions per clock per SM for `ops` instructions in `ms`.
double per_clock(double ops, float ms) { return ops / (double(ms) * 1e-3) / (clock_ghz * 1e9) / sms; }

unsigned long long* sink = nullptr;
const int blocks_per_sm = 8;

template <class A>
void one(const char* name) {
  const int blocks = sms * blocks_per_sm;
  float ms = median_ms([&] { one_kernel<A><<<blocks, kThreads>>>(sink); });
  double ops = double(blocks) * kThreads * kIters * kChains;
  std::printf("| %s | | %.1f | | %.3f |\n", name, per_clock(ops, ms), ms);
}

template <class A, class B>
void pair(const char* name_a, const char* name_b) {
  const int blocks = sms * blocks_per_sm;
  float ms = median_ms([&] { pair_kernel<A, B><<<blocks, kThreads>>>(sink); });
  double ops = double(blocks) * kThreads * kIters * kChains;  // of each kind
  std::printf("| %s | %s | %.1f | %.1f | %.3f |\n", name_a, name_b, per_clock(ops, ms), per_clock(ops, ms), ms);
}

}  // namespace

int main() {
  int khz = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  clock_ghz = khz * 1e-6;
  cudaMalloc(&sink, sizeof(unsigned long long));
  std::printf("%d SMs, %.3f GHz (reported); %d blocks of %d threads per SM, %d chains of each kind per thread\n\n", sms,
              clock_ghz, blocks_per_sm, kThreads, kChains);
  std::printf("| A | B | A per clock per SM | B per clock per SM | ms |\n|---|---|---:|---:|---:|\n");
  one<Dfma>("DFMA");
  one<Dadd>("DADD");
  one<ImadLo>("IMAD (lo)");
  one<ImadHi>("IMAD.HI");
  one<ImadWide>("IMAD.WIDE");
  one<Iadd3>("IADD3 (32-bit)");
  one<Iadd64>("64-bit add");
  one<Lop3>("LOP3");
  pair<Dfma, ImadLo>("DFMA", "IMAD (lo)");
  pair<Dfma, ImadHi>("DFMA", "IMAD.HI");
  pair<Dfma, ImadWide>("DFMA", "IMAD.WIDE");
  pair<Dfma, Iadd3>("DFMA", "IADD3 (32-bit)");
  pair<Dfma, Lop3>("DFMA", "LOP3");
  pair<ImadWide, Iadd3>("IMAD.WIDE", "IADD3 (32-bit)");
  pair<ImadLo, Iadd3>("IMAD (lo)", "IADD3 (32-bit)");
  pair<ImadWide, Lop3>("IMAD.WIDE", "LOP3");
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "pipe_rates: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
