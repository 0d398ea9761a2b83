// Device NTT and snarkjs H step timings (a benchmark, not a test).
//
// For each curve and size: forward NTT and snarkjs_h on inputs already on the device,
// timed with CUDA events (median after one warm-up). Every timed output is checked: up to
// 2^24 all of it, on the device, against poly's result for the same input; above, at
// random points against direct evaluation on the host (poly would take most of a call).
// With --profile, each kernel's median time instead (forward, and one of snarkjs_h's three
// transforms). --bitrev picks where forward's bit reversal runs, for an A/B in one binary:
// beside the last pass (overlap, the default), after it (after: NttOptions::
// overlap_bit_reversal = false), or in the last pass's stores through a scratch buffer of n
// elements (scratch).
// Usage: cuda_ntt_bench [--runs N] [--logs 20,24,27] [--tile T] [--profile] [--bitrev overlap|after|scratch]
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
#include "cuda/ntt/ntt_pass.hpp"
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

// --bitrev scratch: forward runs with a scratch buffer (NttDomain::forward).
bool g_scratch = false;

struct Row {
  std::string op;
  unsigned log_n = 0;
  double median_ms = 0;
  std::string checked;  // how every timed output was checked
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

// Above this size poly's full transforms would take most of a device call, so each timed
// output is checked at sampled points instead, by direct evaluation on the host.
constexpr unsigned kFullCheckMaxLog = 24;
constexpr size_t kEvalChunk = size_t(1) << 16;

// sum_j x_j z^j (the forward NTT's output at k for z = w^k), in parallel chunks.
template <class F>
F eval_coefficients(const std::vector<F>& x, const F& z) {
  const size_t chunks = (x.size() + kEvalChunk - 1) / kEvalChunk;
  std::vector<F> part(chunks);
  pool().parallel_for(0, chunks, [&](size_t lo, size_t hi) {
    for (size_t ch = lo; ch < hi; ++ch) {
      const size_t b = ch * kEvalChunk, e = std::min(x.size(), b + kEvalChunk);
      F acc = F::zero();
      for (size_t j = e; j-- > b;) acc = acc * z + x[j];
      part[ch] = acc * z.pow(uint64_t(b));
    }
  });
  F sum = F::zero();
  for (const F& v : part) sum += v;
  return sum;
}

// A(z) B(z) - C(z) for the polynomials with evaluations a, b, c at w^j, by the barycentric
// formula P(z) = (z^n - 1)/n sum_j p_j w^j / (z - w^j) (z off the domain).
template <class F>
F eval_h_point(const std::vector<F>& a, const std::vector<F>& b, const std::vector<F>& c, const F& omega, const F& z) {
  const size_t n = a.size(), chunks = (n + kEvalChunk - 1) / kEvalChunk;
  std::vector<F> sa(chunks), sb(chunks), sc(chunks);
  pool().parallel_for(0, chunks, [&](size_t lo, size_t hi) {
    std::vector<F> w(kEvalChunk), d(kEvalChunk), scratch(kEvalChunk);
    for (size_t ch = lo; ch < hi; ++ch) {
      const size_t base = ch * kEvalChunk, m = std::min(n, base + kEvalChunk) - base;
      F p = omega.pow(uint64_t(base));
      for (size_t j = 0; j < m; ++j) {
        w[j] = p;
        d[j] = z - p;
        p = p * omega;
      }
      F::batch_inverse(d.data(), m, scratch.data());
      F xa = F::zero(), xb = F::zero(), xc = F::zero();
      for (size_t j = 0; j < m; ++j) {
        const F t = w[j] * d[j];
        xa += a[base + j] * t;
        xb += b[base + j] * t;
        xc += c[base + j] * t;
      }
      sa[ch] = xa;
      sb[ch] = xb;
      sc[ch] = xc;
    }
  });
  F ta = F::zero(), tb = F::zero(), tc = F::zero();
  for (size_t i = 0; i < chunks; ++i) {
    ta += sa[i];
    tb += sb[i];
    tc += sc[i];
  }
  const F k = (z.pow(uint64_t(n)) - F::one()) * F::from_u64(n).inverse();
  return (k * ta) * (k * tb) - k * tc;
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

// One forward transform's inputs on the device: the domain, random coefficients (`src`, kept)
// and a work buffer the transform runs in; up to 2^kFullCheckMaxLog also poly's forward
// output (`ref`) to compare the whole result with.
template <class F>
struct ForwardFixture {
  size_t n;
  NttDomain<F> dom;
  std::vector<F> x;
  DeviceBuffer<F> src, work, ref;
  DeviceBuffer<unsigned long long> count;
  bool full;
  DeviceBuffer<F> scratch;  // --bitrev scratch: forward's scratch, else empty

  static Result<ForwardFixture> create(unsigned log_n, NttOptions opt, const Stream& s, uint64_t seed) {
    const size_t n = size_t(1) << log_n;
    CUZK_ASSIGN_OR_RETURN(auto dom, NttDomain<F>::create(log_n, s, ff::RootConvention::kSnarkjs, opt));
    auto x = random_vec<F>(n, seed);
    CUZK_ASSIGN_OR_RETURN(auto src, to_device<F>(x, s));
    CUZK_ASSIGN_OR_RETURN(auto work, DeviceBuffer<F>::allocate(n, "ntt bench work"));
    DeviceBuffer<F> scratch;
    if (g_scratch) {
      CUZK_ASSIGN_OR_RETURN(scratch, DeviceBuffer<F>::allocate(n, "ntt bench scratch"));
    }
    CUZK_ASSIGN_OR_RETURN(auto count, DeviceBuffer<unsigned long long>::allocate(1, "ntt bench count"));
    const bool full = log_n <= kFullCheckMaxLog;
    DeviceBuffer<F> ref;
    if (full) {
      auto want = x;
      poly::EvaluationDomain<F>::create(log_n).value().ntt(want, pool());
      CUZK_ASSIGN_OR_RETURN(ref, to_device<F>(want, s));
    }
    CUZK_RETURN_IF_ERROR(s.synchronize());
    return ForwardFixture{
        n,    std::move(dom),    std::move(x), std::move(src), std::move(work), std::move(ref), std::move(count),
        full, std::move(scratch)};
  }
  F* scratch_or_null() { return scratch.size() > 0 ? scratch.data() : nullptr; }

  Status restore(const Stream& s) { return copy_device(work.data(), src.data(), n * sizeof(F), s); }

  // Only where `full`: the work buffer equals poly's output word for word.
  Status check_all(const char* what, const Stream& s) {
    CUZK_ASSIGN_OR_RETURN(auto bad, mismatches(work.data(), ref.data(), n * sizeof(F), count, s));
    if (bad != 0)
      return internal_error(std::string(what) + " output differs from poly in " + std::to_string(bad) + " words");
    return Status::ok();
  }
};

template <class F>
Result<Row> bench_forward(const char* curve, unsigned log_n, int runs, NttOptions opt, const Stream& s, uint64_t seed) {
  CUZK_ASSIGN_OR_RETURN(auto fx, ForwardFixture<F>::create(log_n, opt, s, seed));
  std::mt19937_64 pick(seed ^ 0x5A5A);
  CUZK_ASSIGN_OR_RETURN(double ms, timed(
                                       s, runs, [&] { return fx.restore(s); },
                                       [&] { return fx.dom.forward(fx.work.data(), s, fx.scratch_or_null()); },
                                       [&]() -> Status {
                                         if (fx.full) return fx.check_all("forward", s);
                                         for (int t = 0; t < 2; ++t) {
                                           const size_t k = pick() % fx.n;
                                           F got;
                                           CUZK_RETURN_IF_ERROR(fx.work.download(std::span<F>(&got, 1), s, k));
                                           CUZK_RETURN_IF_ERROR(s.synchronize());
                                           if (got != eval_coefficients(fx.x, fx.dom.omega().pow(uint64_t(k)))) {
                                             return internal_error("forward output at " + std::to_string(k) +
                                                                   " differs from direct evaluation");
                                           }
                                         }
                                         return Status::ok();
                                       }));
  return Row{std::string(curve) + " forward NTT", log_n, ms,
             fx.full ? "all outputs (poly)" : "2 points per run (direct sum)"};
}

// Per-kernel medians of `runs` profiled transforms (after a warm-up): forward's passes and
// bit reversal, and shift_evaluations' inverse DIF and forward DIT passes (one third of
// snarkjs_h). Forward outputs are checked against poly up to 2^24.
template <class F>
Status profile_kernels(const char* curve, unsigned log_n, int runs, NttOptions opt, const Stream& s, uint64_t seed,
                       std::vector<std::string>& lines) {
  CUZK_ASSIGN_OR_RETURN(auto fx, ForwardFixture<F>::create(log_n, opt, s, seed));
  const auto plan = ntt_detail::make_plan(log_n, opt.tile_log);
  for (int what = 0; what < 2; ++what) {
    std::vector<std::vector<float>> per;
    for (int r = -1; r < runs; ++r) {
      CUZK_RETURN_IF_ERROR(fx.restore(s));
      CUZK_ASSIGN_OR_RETURN(auto ms, what == 0 ? fx.dom.forward_kernel_ms(fx.work.data(), s, fx.scratch_or_null())
                                               : fx.dom.shift_evaluations_kernel_ms(fx.work.data(), s));
      if (what == 0 && fx.full) CUZK_RETURN_IF_ERROR(fx.check_all("profiled forward", s));
      if (r >= 0) per.push_back(ms);
    }
    for (size_t k = 0; k < per[0].size(); ++k) {
      std::vector<float> v;
      for (auto& p : per) v.push_back(p[k]);
      std::sort(v.begin(), v.end());
      std::string name;
      const size_t np = plan.size();
      if (what == 0) {
        // np entries: the last pass and the bit reversal overlapped, timed as one.
        name = k < np ? "forward DIF pass " + std::to_string(k + 1) + " (k=" + std::to_string(plan[k].k) + ")"
                      : std::string("forward bit reversal");
        if (k + 1 == np && per[0].size() == np) name += g_scratch ? ", stored bit-reversed" : " + bit reversal";
      } else {
        name = k < np ? "shift DIF pass " + std::to_string(k + 1) + " (k=" + std::to_string(plan[k].k) + ")"
                      : "shift DIT pass " + std::to_string(2 * np - k) +
                            " (k=" + std::to_string(plan[2 * np - k - 1].k) + ")";
      }
      char buf[256];
      std::snprintf(buf, sizeof buf, "| %s | 2^%u | %s | %.3f |", curve, log_n, name.c_str(), v[v.size() / 2]);
      lines.push_back(buf);
    }
  }
  return Status::ok();
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
  const bool full = log_n <= kFullCheckMaxLog;
  DeviceBuffer<typename F::Int> ref;
  if (full) {
    auto cdom = poly::EvaluationDomain<F>::create(log_n).value();
    std::vector<F> a = host[0], b = host[1], c = host[2];
    std::vector<typename F::Int> p(n);
    CUZK_RETURN_IF_ERROR(poly::snarkjs_h(cdom, std::span<F>(a), std::span<F>(b), std::span<F>(c),
                                         std::span<typename F::Int>(p), pool()));
    CUZK_ASSIGN_OR_RETURN(ref, to_device<typename F::Int>(p, s));
  }
  CUZK_RETURN_IF_ERROR(s.synchronize());
  // p aliases a, as the prover will call it.
  auto* out = reinterpret_cast<typename F::Int*>(work[0].data());
  std::mt19937_64 pick(seed ^ 0xA5A5);
  CUZK_ASSIGN_OR_RETURN(
      double ms,
      timed(
          s, runs,
          [&]() -> Status {
            for (int i = 0; i < 3; ++i)
              CUZK_RETURN_IF_ERROR(copy_device(work[i].data(), src[i].data(), n * sizeof(F), s));
            return Status::ok();
          },
          [&] { return snarkjs_h(dom, work[0].data(), work[1].data(), work[2].data(), out, s); },
          [&]() -> Status {
            if (full) {
              CUZK_ASSIGN_OR_RETURN(auto bad, mismatches(out, ref.data(), n * sizeof(F), count, s));
              if (bad != 0)
                return internal_error("snarkjs_h output differs from poly in " + std::to_string(bad) + " words");
              return Status::ok();
            }
            const size_t i = pick() % n;
            F got;
            CUZK_RETURN_IF_ERROR(work[0].download(std::span<F>(&got, 1), s, i));
            CUZK_RETURN_IF_ERROR(s.synchronize());
            const F z = dom.snarkjs_shift() * dom.omega().pow(uint64_t(i));
            if (got.mont() != eval_h_point(host[0], host[1], host[2], dom.omega(), z).to_canonical()) {
              return internal_error("snarkjs_h output at " + std::to_string(i) + " differs from direct evaluation");
            }
            return Status::ok();
          }));
  return Row{std::string(curve) + " snarkjs_h", log_n, ms,
             full ? "all outputs (poly)" : "1 point per run (barycentric)"};
}

int run(int argc, char** argv) {
  int runs = 5;
  std::vector<unsigned> logs = {20, 24, 27};
  NttOptions opt;
  bool profile = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--profile") {
      profile = true;
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--logs" && i + 1 < argc) {
      logs.clear();
      for (const char* p = argv[++i]; *p;) {
        logs.push_back(unsigned(std::strtoul(p, const_cast<char**>(&p), 10)));
        if (*p == ',') ++p;
      }
    } else if (arg == "--tile" && i + 1 < argc) {
      opt.tile_log = unsigned(std::atoi(argv[++i]));
    } else if (arg == "--bitrev" && i + 1 < argc && std::strcmp(argv[i + 1], "overlap") == 0) {
      ++i;
    } else if (arg == "--bitrev" && i + 1 < argc && std::strcmp(argv[i + 1], "after") == 0) {
      opt.overlap_bit_reversal = false;
      ++i;
    } else if (arg == "--bitrev" && i + 1 < argc && std::strcmp(argv[i + 1], "scratch") == 0) {
      g_scratch = true;
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--runs N] [--logs 20,24,27] [--tile T] [--profile] [--bitrev overlap|after|scratch]\n",
                   argv[0]);
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
  std::vector<std::string> prof;
  std::string prof_error;
  for (unsigned log_n : logs) {
    if (profile && prof_error.empty()) {
      Status st = [&]() -> Status {
        CUZK_RETURN_IF_ERROR(profile_kernels<bn254::Fr>("bn254", log_n, runs, opt, s, seed, prof));
        return profile_kernels<bls12_381::Fr>("bls12_381", log_n, runs, opt, s, seed, prof);
      }();
      if (!st.is_ok()) prof_error = st.to_string();
    }
    if (profile) continue;
    rows.push_back(bench_forward<bn254::Fr>("bn254", log_n, runs, opt, s, seed));
    rows.push_back(bench_forward<bls12_381::Fr>("bls12_381", log_n, runs, opt, s, seed));
    rows.push_back(bench_snarkjs_h<bn254::Fr>("bn254", log_n, runs, opt, s, seed));
    rows.push_back(bench_snarkjs_h<bls12_381::Fr>("bls12_381", log_n, runs, opt, s, seed));
    std::fflush(stdout);
  }
  std::printf("command:");
  for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf(
      "\ndevice: %s (%d SMs); tile 2^%u; bit reversal %s; median of %d runs after a warm-up, CUDA events, inputs on "
      "the device\n\n",
      info->name.c_str(), info->sm_count, opt.tile_log,
      g_scratch                  ? "in the last pass's stores (scratch)"
      : opt.overlap_bit_reversal ? "beside the last pass where it can"
                                 : "after the last pass",
      runs);
  if (profile) {
    std::printf("| curve | size | kernel | median ms |\n|---|---:|---|---:|\n");
    for (auto& l : prof) std::printf("%s\n", l.c_str());
    if (!prof_error.empty()) std::printf("| profile error: %s | | | |\n", prof_error.c_str());
    std::printf("\n");
  }
  std::printf("| operation | size | median ms | every timed output checked |\n|---|---:|---:|---|\n");
  int status = 0;
  for (auto& r : rows) {
    if (!r.is_ok()) {
      std::printf("| error: %s | | | failed |\n", r.status().to_string().c_str());
      status = 1;
      continue;
    }
    std::printf("| %s | 2^%u | %.2f | %s |\n", r->op.c_str(), r->log_n, r->median_ms, r->checked.c_str());
  }
  return prof_error.empty() ? status : 1;
}

}  // namespace
}  // namespace cuzk::cuda

int main(int argc, char** argv) { return cuzk::cuda::run(argc, argv); }
