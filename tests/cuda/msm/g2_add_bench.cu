// BLS12-381 G2 XYZZ += affine throughput on the device, one kernel per formulation (a
// benchmark, not a test). Each thread runs a dependent chain of mixed additions over a
// small table of points (L2-resident), so the figure is the addition's arithmetic rate.
// Every variant's output is compared bit for bit with the host's generic addition.
// Caution: in lock-step, as here, the warps of a multiprocessor share their instruction
// fetches. The MSM's accumulation, whose warps drift apart, ran the same inlined G2
// addition at half this rate until its Fq2 products went out of line (BENCHMARKS.md,
// "G2 MSM (H10)"): judge a formulation by its code size too, not by this figure alone.
// Usage: cuda_g2_add_bench [--runs N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "ec/points.hpp"
#include "ec/xyzz_madd.hpp"
#include "ff/fields.hpp"

namespace cuzk::cuda {
namespace {

using G = bls12_381::G2Config;
using P = ec::Xyzz<G>;
using A = ec::Affine<G>;
using Fq2 = typename G::Base;

constexpr unsigned kThreads = 128;
constexpr size_t kTable = 4096;

struct Ref {
  static constexpr const char* name = "Xyzz operator+ (affine)";
  __device__ __forceinline__ static void add(P& acc, const A& p) { acc = acc + p; }
};
// As the MSM kernels of 5d120e1 compiled it: the addition a call, the accumulator in memory.
__device__ __noinline__ void add_call(P& acc, const A& p) { acc += p; }
struct RefCall {
  static constexpr const char* name = "Xyzz operator+= (affine), not inlined";
  __device__ __forceinline__ static void add(P& acc, const A& p) { add_call(acc, p); }
};
struct Lean {
  static constexpr const char* name = "madd_in_place";
  __device__ __forceinline__ static void add(P& acc, const A& p) { ec::madd_in_place(acc, p); }
};

struct Reduced3Mul {
  CUZK_INLINE static Fq2 mul(const Fq2& a, const Fq2& b) { return a.mul_reduced3(b); }
  CUZK_INLINE static Fq2 sqr(const Fq2& a) { return a.square(); }
};
struct LeanReduced3 {
  static constexpr const char* name = "madd_in_place, mul_reduced3";
  __device__ __forceinline__ static void add(P& acc, const A& p) { ec::madd_in_place<Reduced3Mul>(acc, p); }
};

template <class V, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks) chain_kernel(const A* table, P* out, size_t n, int iters) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  P acc = P::from_affine(table[i % kTable]);
  for (int k = 1; k <= iters; ++k) V::add(acc, table[(i + k) % kTable]);
  out[i] = acc;
}

struct Row {
  std::string name;
  int min_blocks = 0;
  double median_ms = 0, gops = 0;
  bool ok = false;
  std::string note;
};

template <class V, int kMinBlocks>
Row bench(const DeviceBuffer<A>& dtable, const std::vector<A>& table, size_t n, int iters, int runs, const Stream& s) {
  Row row{V::name, kMinBlocks};
  auto dout = DeviceBuffer<P>::allocate(n);
  auto start = Event::create(), stop = Event::create();
  if (!dout.is_ok() || !start.is_ok() || !stop.is_ok()) {
    row.note = "setup failed";
    return row;
  }
  const unsigned blocks = unsigned((n + kThreads - 1) / kThreads);
  std::vector<double> ms;
  for (int r = 0; r <= runs; ++r) {
    Status st = start->record(s);
    chain_kernel<V, kMinBlocks><<<blocks, kThreads, 0, s.get()>>>(dtable.data(), dout->data(), n, iters);
    if (st.is_ok()) st = check_launch("g2_add_bench.chain_kernel");
    if (st.is_ok()) st = stop->record(s);
    if (st.is_ok()) st = stop->synchronize();
    if (!st.is_ok()) {
      row.note = st.to_string();
      return row;
    }
    auto t = Event::elapsed_ms(*start, *stop);
    if (r > 0 && t.is_ok()) ms.push_back(*t);
  }
  std::sort(ms.begin(), ms.end());
  row.median_ms = ms[ms.size() / 2];
  row.gops = double(n) * iters / (row.median_ms * 1e-3) / 1e9;
  std::vector<P> out(n);
  if (!dout->download(out, s).is_ok() || !s.synchronize().is_ok()) {
    row.note = "download failed";
    return row;
  }
  row.ok = true;
  for (size_t i : {size_t(0), n / 3, n - 1}) {
    P acc = P::from_affine(table[i % kTable]);
    for (int k = 1; k <= iters; ++k) acc = acc + table[(i + k) % kTable];
    row.ok = row.ok && std::memcmp(&acc, &out[i], sizeof(P)) == 0;
  }
  if (!row.ok) row.note = "MISMATCH";
  return row;
}

int run(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--runs N]\n", argv[0]);
      return 2;
    }
  }
  auto count = device_count();
  if (!count.is_ok() || *count == 0) {
    std::fprintf(stderr, "cuda_g2_add_bench: no CUDA device\n");
    return 2;
  }
  auto info = device_info(0);
  auto stream = Stream::create();
  if (!info.is_ok() || !stream.is_ok()) return 1;
  const Stream& s = *stream;
  std::mt19937_64 rng(std::random_device{}());
  // Distinct points k·Q, (k+1)·Q, ... (k random), one of them infinity's neighbour-free.
  std::vector<A> table(kTable);
  auto step = ec::Jacobian<G>::generator().mul(G::Scalar::random(rng));
  auto q = step;
  for (auto& t : table) {
    t = q.to_affine();
    q = q + step;
  }
  auto dtable = DeviceBuffer<A>::allocate(kTable);
  if (!dtable.is_ok() || !dtable->upload(table, s).is_ok()) return 1;
  const size_t n = size_t(info->sm_count) * 1024;
  const int iters = 32;
  std::vector<Row> rows;
  rows.push_back(bench<RefCall, 1>(*dtable, table, n, iters, runs, s));
  rows.push_back(bench<Ref, 1>(*dtable, table, n, iters, runs, s));
  rows.push_back(bench<Lean, 1>(*dtable, table, n, iters, runs, s));
  rows.push_back(bench<Lean, 2>(*dtable, table, n, iters, runs, s));
  rows.push_back(bench<Lean, 3>(*dtable, table, n, iters, runs, s));
  rows.push_back(bench<LeanReduced3, 1>(*dtable, table, n, iters, runs, s));
  rows.push_back(bench<LeanReduced3, 2>(*dtable, table, n, iters, runs, s));
  rows.push_back(bench<LeanReduced3, 3>(*dtable, table, n, iters, runs, s));
  std::printf("command: ");
  for (int i = 0; i < argc; ++i) std::printf("%s%s", i ? " " : "", argv[i]);
  std::printf("\ndevice: %s; %zu threads x %d additions, median of %d, CUDA events\n\n", info->name.c_str(), n, iters,
              runs);
  std::printf("| variant | min blocks/SM | median ms | G adds/s | checked |\n|---|---:|---:|---:|---|\n");
  int status = 0;
  for (const Row& r : rows) {
    std::printf("| %s | %d | %.3f | %.3f | %s |\n", r.name.c_str(), r.min_blocks, r.median_ms, r.gops,
                r.ok ? "ok" : r.note.c_str());
    if (!r.ok) status = 1;
  }
  return status;
}

}  // namespace
}  // namespace cuzk::cuda

int main(int argc, char** argv) { return cuzk::cuda::run(argc, argv); }
