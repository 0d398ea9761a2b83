// Device NTT and snarkjs H step timings (a benchmark, not a test).
//
// For each curve and size: forward NTT and snarkjs_h on inputs already on the device,
// timed with CUDA events (median after one warm-up), every timed output compared on the
// device with poly's result for the same input (computed once on the host).
// Usage: cuda_ntt_bench [--runs N] [--logs 20,24,27] [--tile T]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/cuda_status.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/stream.hpp"
#include "ff/fields.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"

namespace cuzk::cuda {
namespace {

__global__ void count_mismatches(const uint64_t* x, const uint64_t* y, size_t words, unsigned long long* count) {
  unsigned long long local = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x) {
    local += x[i] != y[i];
  }
  if (local != 0) atomicAdd(count, local);
}

struct Row {
  std::string op;
  unsigned log_n = 0;
  double median_ms = 0;
  bool checked = false;
  std::string error;
};

ThreadPool& pool() {
  static ThreadPool p;
  return p;
}

template <class F>
std::vector<F> random_vec(size_t n, uint64_t seed) {
  std::vector<F> v(n);
  constexpr size_t kChunk = size_t(1) << 16;
  pool().parallel_for(0, (n + kChunk - 1) / kChunk, [&](size_t lo, size_t hi) {
    for (size_t ch = lo; ch < hi; ++ch) {
      std::mt19937_64 r(seed + 0x9E3779B97F4A7C15ull * (ch + 1));
      for (size_t i = ch * kChunk; i < std::min(n, (ch + 1) * kChunk); ++i) v[i] = F::random(r);
    }
  });
  return v;
}

template <class T>
Result<DeviceBuffer<T>> to_device(std::span<const T> host, const Stream& s) {
  CUZK_ASSIGN_OR_RETURN(auto d, DeviceBuffer<T>::allocate(host.size(), "ntt bench"));
  CUZK_RETURN_IF_ERROR(d.upload(host, s));
  return Result<DeviceBuffer<T>>(std::move(d));
}

Status copy_device(void* dst, const void* src, size_t bytes, const Stream& s) {
  return copy_async(dst, src, bytes, cudaMemcpyDeviceToDevice, s.get(), "ntt bench restore");
}

// Mismatching 64-bit words between two device arrays of `bytes`.
Result<unsigned long long> mismatches(const void* x, const void* y, size_t bytes, DeviceBuffer<unsigned long long>& c,
                                      const Stream& s) {
  CUZK_RETURN_IF_ERROR(c.fill_bytes(0, s));
  count_mismatches<<<1024, 256, 0, s.get()>>>(static_cast<const uint64_t*>(x), static_cast<const uint64_t*>(y),
                                               bytes / 8, c.data());
  CUZK_RETURN_IF_ERROR(check_launch("ntt_bench.count_mismatches"));
  unsigned long long host = 0;
  CUZK_RETURN_IF_ERROR(c.download(std::span<unsigned long long>(&host, 1), s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  return host;
}

// Median of `runs` timings of `op` after a warm-up; `restore` runs before each (untimed),
// `check` after each.
template <class Restore, class Op, class Check>
Result<double> timed(const Stream& s, int runs, Restore restore, Op op, Check check) {
  CUZK_ASSIGN_OR_RETURN(Event start, Event::create());
  CUZK_ASSIGN_OR_RETURN(Event stop, Event::create());
  std::vector<double> times;
  for (int r = -1; r < runs; ++r) {
    CUZK_RETURN_IF_ERROR(restore());
    CUZK_RETURN_IF_ERROR(start.record(s));
    CUZK_RETURN_IF_ERROR(op());
    CUZK_RETURN_IF_ERROR(stop.record(s));
    CUZK_RETURN_IF_ERROR(stop.synchronize());
    CUZK_ASSIGN_OR_RETURN(float ms, Event::elapsed_ms(start, stop));
    CUZK_RETURN_IF_ERROR(check());
    if (r >= 0) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <class F>
Result<Row> bench_forward(const char* curve, unsigned log_n, int runs, NttOptions opt, const Stream& s,
                          uint64_t seed) {
  const size_t n = size_t(1) << log_n;
  CUZK_ASSIGN_OR_RETURN(auto dom, NttDomain<F>::create(log_n, s, ff::RootConvention::kSnarkjs, opt));
  auto x = random_vec<F>(n, seed);
  CUZK_ASSIGN_OR_RETURN(auto src, to_device<F>(x, s));
  CUZK_ASSIGN_OR_RETURN(auto work, DeviceBuffer<F>::allocate(n, "ntt bench work"));
  CUZK_ASSIGN_OR_RETURN(auto count, DeviceBuffer<unsigned long long>::allocate(1, "ntt bench count"));
  auto cdom = poly::EvaluationDomain<F>::create(log_n).value();
  cdom.ntt(x, pool());
  CUZK_ASSIGN_OR_RETURN(auto ref, to_device<F>(x, s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  x = {};
  CUZK_ASSIGN_OR_RETURN(
      double ms, timed(
                     s, runs, [&] { return copy_device(work.data(), src.data(), n * sizeof(F), s); },
                     [&] { return dom.forward(work.data(), s); },
                     [&]() -> Status {
                       CUZK_ASSIGN_OR_RETURN(auto bad, mismatches(work.data(), ref.data(), n * sizeof(F), count, s));
                       if (bad != 0) return internal_error("forward output differs from poly in " + std::to_string(bad) + " words");
                       return Status::ok();
                     }));
  return Row{std::string(curve) + " forward NTT", log_n, ms, true, ""};
}

template <class F>
Result<Row> bench_snarkjs_h(const char* curve, unsigned log_n, int runs, NttOptions opt, const Stream& s,
                            uint64_t seed) {
  const size_t n = size_t(1) << log_n;
  CUZK_ASSIGN_OR_RETURN(auto dom, NttDomain<F>::create(log_n, s, ff::RootConvention::kSnarkjs, opt));
  std::vector<F> host[3];
  DeviceBuffer<F> src[3], work[3];
  for (int i = 0; i < 3; ++i) {
    host[i] = random_vec<F>(n, seed + 1000 * (i + 1));
    CUZK_ASSIGN_OR_RETURN(src[i], to_device<F>(host[i], s));
    CUZK_ASSIGN_OR_RETURN(work[i], DeviceBuffer<F>::allocate(n, "ntt bench work"));
  }
  CUZK_ASSIGN_OR_RETURN(auto count, DeviceBuffer<unsigned long long>::allocate(1, "ntt bench count"));
  auto cdom = poly::EvaluationDomain<F>::create(log_n).value();
  std::vector<typename F::Int> p(n);
  CUZK_RETURN_IF_ERROR(poly::snarkjs_h(cdom, std::span<F>(host[0]), std::span<F>(host[1]), std::span<F>(host[2]),
                                       std::span<typename F::Int>(p), pool()));
  CUZK_ASSIGN_OR_RETURN(auto ref, to_device<typename F::Int>(p, s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  for (auto& h : host) h = {};
  p = {};
  // p aliases a, as the prover will call it.
  auto* out = reinterpret_cast<typename F::Int*>(work[0].data());
  CUZK_ASSIGN_OR_RETURN(
      double ms, timed(
                     s, runs,
                     [&]() -> Status {
                       for (int i = 0; i < 3; ++i) CUZK_RETURN_IF_ERROR(copy_device(work[i].data(), src[i].data(), n * sizeof(F), s));
                       return Status::ok();
                     },
                     [&] { return snarkjs_h(dom, work[0].data(), work[1].data(), work[2].data(), out, s); },
                     [&]() -> Status {
                       CUZK_ASSIGN_OR_RETURN(auto bad, mismatches(out, ref.data(), n * sizeof(F), count, s));
                       if (bad != 0) return internal_error("snarkjs_h output differs from poly in " + std::to_string(bad) + " words");
                       return Status::ok();
                     }));
  return Row{std::string(curve) + " snarkjs_h", log_n, ms, true, ""};
}

int run(int argc, char** argv) {
  int runs = 5;
  std::vector<unsigned> logs = {20, 24, 27};
  NttOptions opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--logs" && i + 1 < argc) {
      logs.clear();
      for (const char* p = argv[++i]; *p;) {
        logs.push_back(unsigned(std::strtoul(p, const_cast<char**>(&p), 10)));
        if (*p == ',') ++p;
      }
    } else if (arg == "--tile" && i + 1 < argc) {
      opt.tile_log = unsigned(std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--logs 20,24,27] [--tile T]\n", argv[0]);
      return 2;
    }
  }
  auto count = device_count();
  if (!count.is_ok() || *count == 0) {
    std::fprintf(stderr, "cuda_ntt_bench: no CUDA device\n");
    return 2;
  }
  auto info = device_info(0);
  auto stream = Stream::create();
  if (!info.is_ok() || !stream.is_ok()) {
    std::fprintf(stderr, "cuda_ntt_bench: %s\n", (!info.is_ok() ? info.status() : stream.status()).to_string().c_str());
    return 1;
  }
  const Stream& s = *stream;
  const uint64_t seed = std::random_device{}();
  std::vector<Result<Row>> rows;
  for (unsigned log_n : logs) {
    rows.push_back(bench_forward<bn254::Fr>("bn254", log_n, runs, opt, s, seed));
    rows.push_back(bench_forward<bls12_381::Fr>("bls12_381", log_n, runs, opt, s, seed));
    rows.push_back(bench_snarkjs_h<bn254::Fr>("bn254", log_n, runs, opt, s, seed));
    rows.push_back(bench_snarkjs_h<bls12_381::Fr>("bls12_381", log_n, runs, opt, s, seed));
    if (!rows.back().is_ok()) std::fprintf(stderr, "%s\n", rows.back().status().to_string().c_str());
    std::fflush(stdout);
  }
  std::printf("command:");
  for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf("\ndevice: %s (%d SMs); tile 2^%u; median of %d runs after a warm-up, CUDA events, inputs on the device\n\n",
              info->name.c_str(), info->sm_count, opt.tile_log, runs);
  std::printf("| operation | size | median ms | checked against poly |\n|---|---:|---:|---|\n");
  int status = 0;
  for (auto& r : rows) {
    if (!r.is_ok()) {
      std::printf("| error: %s | | | no |\n", r.status().to_string().c_str());
      status = 1;
      continue;
    }
    std::printf("| %s | 2^%u | %.2f | %s |\n", r->op.c_str(), r->log_n, r->median_ms, r->checked ? "yes" : "no");
  }
  return status;
}

}  // namespace
}  // namespace cuzk::cuda

int main(int argc, char** argv) { return cuzk::cuda::run(argc, argv); }
