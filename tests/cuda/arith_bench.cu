// Device throughput of field multiplication and G1 mixed addition (a benchmark, not a test).
//
// Each thread runs a dependent chain of `iters` operations on its own data, so the numbers
// are arithmetic throughput, not memory bandwidth. Every result is checked against the host
// for a few threads, so the timed work cannot be optimised away or silently wrong.
// Usage: cuda_arith_bench [--runs N] [--scale S]   (S multiplies the element counts)
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
#if defined(__CUDA_ARCH__)
#include "ff/fp_cuda_karatsuba.hpp"
#endif

namespace cuzk::cuda {
namespace {

constexpr unsigned kThreads = 256;

// One step of a product chain, on the device and (to check it) on the host: x = x * y, or
// x = x^2 + y when kSquare (the addition keeps the chain off fixed points).
template <bool kSquare>
struct FieldStep {
  template <class F>
  __host__ __device__ static F step(const F& x, const F& y) {
    if constexpr (kSquare) {
      return x.square() + y;
    } else {
      return x * y;
    }
  }
};

// x = x * y by the Karatsuba product of ff/fp_cuda_karatsuba.hpp (the same value).
struct KaratsubaStep {
  template <class F>
  __host__ __device__ static F step(const F& x, const F& y) {
#if defined(__CUDA_ARCH__)
    return F::from_mont(ff::cuda_fp::mont_mul_karatsuba<typename F::Params>(x.mont(), y.mont()));
#else
    return x * y;
#endif
  }
};

template <class F, class Step>
__global__ void mul_chain_kernel(const F* a, const F* b, F* out, size_t n, int iters) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F x = a[i];
  const F y = b[i];
  for (int k = 0; k < iters; ++k) x = Step::step(x, y);
  out[i] = x;
}

// Product policies for ec::madd_in_place: Karatsuba products (Y3 from two of them), and the
// field's products with Y3 from two reduced products (as before Fp::mul_sub).
struct KaratsubaMul {
  template <class F>
  __device__ static F mul(const F& a, const F& b) {
    return KaratsubaStep::step(a, b);
  }
  template <class F>
  __device__ static F sqr(const F& a) {
    return a.square();
  }
};
struct TwoProducts {
  template <class F>
  __device__ static F mul(const F& a, const F& b) {
    return a * b;
  }
  template <class F>
  __device__ static F sqr(const F& a) {
    return a.square();
  }
};

// acc += o: the point type's operator, or ec::madd_in_place through the policy M on the
// device (bit-identical to the operator, which checks it on the host).
struct OperatorAdd {
  template <class P, class A>
  __host__ __device__ static void add(P& acc, const A& o) {
    acc = acc + o;
  }
};
template <class M>
struct MaddAdd {
  template <class P, class A>
  __host__ __device__ static void add(P& acc, const A& o) {
#if defined(__CUDA_ARCH__)
    ec::madd_in_place<M>(acc, o);
#else
    acc = acc + o;
#endif
  }
};

// acc += table[(i + k) mod m]: neighbouring threads read neighbouring points (coalesced).
template <class P, class Add>
__global__ void mixed_add_chain_kernel(const ec::Affine<typename P::Curve>* table, size_t m, P* out, size_t n,
                                       int iters) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  P acc = P::from_affine(table[i % m]);
  for (int k = 1; k <= iters; ++k) Add::add(acc, table[(i + k) % m]);
  out[i] = acc;
}

struct Row {
  std::string name;
  size_t elements = 0;
  int iters = 0;
  double median_ms = 0;
  bool verified = false;
};

template <class T>
Result<DeviceBuffer<T>> to_device(const std::vector<T>& host, const Stream& s) {
  CUZK_ASSIGN_OR_RETURN(auto d, DeviceBuffer<T>::allocate(host.size()));
  CUZK_RETURN_IF_ERROR(d.upload(host, s));
  return Result<DeviceBuffer<T>>(std::move(d));
}

// Median of `runs` timings of `launch` (after one warm-up run).
template <class Launch>
Result<double> median_ms(const Stream& s, int runs, Launch launch) {
  CUZK_ASSIGN_OR_RETURN(Event start, Event::create());
  CUZK_ASSIGN_OR_RETURN(Event stop, Event::create());
  CUZK_RETURN_IF_ERROR(launch());
  CUZK_RETURN_IF_ERROR(s.synchronize());
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    CUZK_RETURN_IF_ERROR(start.record(s));
    CUZK_RETURN_IF_ERROR(launch());
    CUZK_RETURN_IF_ERROR(stop.record(s));
    CUZK_RETURN_IF_ERROR(stop.synchronize());
    CUZK_ASSIGN_OR_RETURN(float ms, Event::elapsed_ms(start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

unsigned blocks(size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

template <class F, class Step = FieldStep<false>>
Result<Row> bench_mul(const char* name, size_t n, int iters, int runs, const Stream& s, std::mt19937_64& rng) {
  std::vector<F> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = F::random(rng);
    b[i] = F::random(rng);
  }
  CUZK_ASSIGN_OR_RETURN(auto da, to_device(a, s));
  CUZK_ASSIGN_OR_RETURN(auto db, to_device(b, s));
  CUZK_ASSIGN_OR_RETURN(auto dout, DeviceBuffer<F>::allocate(n));
  CUZK_ASSIGN_OR_RETURN(double ms, median_ms(s, runs, [&] {
                          mul_chain_kernel<F, Step>
                              <<<blocks(n), kThreads, 0, s.get()>>>(da.data(), db.data(), dout.data(), n, iters);
                          return check_launch("mul_chain_kernel");
                        }));
  std::vector<F> out(n);
  CUZK_RETURN_IF_ERROR(dout.download(out, s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  bool ok = true;
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    F x = a[i];
    for (int k = 0; k < iters; ++k) x = Step::step(x, b[i]);
    ok = ok && x == out[i];
  }
  return Row{name, n, iters, ms, ok};
}

template <class P, class Add = OperatorAdd>
Result<Row> bench_mixed_add(const char* name, size_t n, int iters, int runs, const Stream& s, std::mt19937_64& rng) {
  using C = typename P::Curve;
  using A = ec::Affine<C>;
  // Distinct random points: P, 2P, ..., built by additions (cheap on the host).
  constexpr size_t kTable = 4096;
  std::vector<A> table(kTable);
  auto step = ec::Jacobian<C>::generator().mul(C::Scalar::random(rng));
  auto p = step;
  for (auto& t : table) {
    t = p.to_affine();
    p = p + step;
  }
  CUZK_ASSIGN_OR_RETURN(auto dtable, to_device(table, s));
  CUZK_ASSIGN_OR_RETURN(auto dout, DeviceBuffer<P>::allocate(n));
  CUZK_ASSIGN_OR_RETURN(double ms, median_ms(s, runs, [&] {
                          mixed_add_chain_kernel<P, Add>
                              <<<blocks(n), kThreads, 0, s.get()>>>(dtable.data(), kTable, dout.data(), n, iters);
                          return check_launch("mixed_add_chain_kernel");
                        }));
  std::vector<P> out(n);
  CUZK_RETURN_IF_ERROR(dout.download(out, s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  bool ok = true;
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    P acc = P::from_affine(table[i % kTable]);
    for (int k = 1; k <= iters; ++k) acc = acc + table[(i + k) % kTable];
    ok = ok && std::memcmp(&acc, &out[i], sizeof(P)) == 0;
  }
  return Row{name, n, iters, ms, ok};
}

int run(int argc, char** argv) {
  int runs = 7;
  double scale = 1.0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--scale" && i + 1 < argc) {
      scale = std::max(0.001, std::atof(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--scale S]\n", argv[0]);
      return 2;
    }
  }
  auto count = device_count();
  if (!count.is_ok() || *count == 0) {
    std::fprintf(stderr, "cuda_arith_bench: no CUDA device (%s)\n",
                 count.is_ok() ? "none found" : count.status().to_string().c_str());
    return 2;
  }
  auto info = device_info(0);
  auto stream = Stream::create();
  if (!info.is_ok() || !stream.is_ok()) {
    std::fprintf(stderr, "cuda_arith_bench: %s\n",
                 (!info.is_ok() ? info.status() : stream.status()).to_string().c_str());
    return 1;
  }
  const Stream& s = *stream;
  std::mt19937_64 rng(std::random_device{}());
  // Enough threads to fill every SM several times over.
  size_t n_mul = size_t(double(info->sm_count) * 2048 * 4 * scale);
  size_t n_add = size_t(double(info->sm_count) * 2048 * scale);
  n_mul = std::max<size_t>(n_mul, 1024);
  n_add = std::max<size_t>(n_add, 1024);

  std::vector<Result<Row>> rows;
  rows.push_back(bench_mul<bn254::Fr>("bn254 Fr mul", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bn254::Fq>("bn254 Fq mul", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bn254::Fq2>("bn254 Fq2 mul", n_mul, 64, runs, s, rng));
  rows.push_back(bench_mul<bls12_381::Fr>("bls12_381 Fr mul", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bls12_381::Fq>("bls12_381 Fq mul", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bls12_381::Fq2>("bls12_381 Fq2 mul", n_mul, 64, runs, s, rng));
  rows.push_back(bench_mul<bn254::Fq, FieldStep<true>>("bn254 Fq square + add", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bls12_381::Fq, FieldStep<true>>("bls12_381 Fq square + add", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bls12_381::Fq2, FieldStep<true>>("bls12_381 Fq2 square + add", n_mul, 64, runs, s, rng));
  rows.push_back(bench_mixed_add<bn254::G1Jacobian>("bn254 G1 Jacobian += affine", n_add, 64, runs, s, rng));
  rows.push_back(bench_mixed_add<bn254::G1Xyzz>("bn254 G1 XYZZ += affine", n_add, 64, runs, s, rng));
  rows.push_back(bench_mixed_add<bls12_381::G1Jacobian>("bls12_381 G1 Jacobian += affine", n_add, 64, runs, s, rng));
  rows.push_back(bench_mixed_add<bls12_381::G1Xyzz>("bls12_381 G1 XYZZ += affine", n_add, 64, runs, s, rng));
  // Karatsuba products (ff/fp_cuda_karatsuba.hpp), and the mixed addition through
  // ec::madd_in_place with the field's products (Y3 with one reduction), with two reduced
  // products for Y3, and with Karatsuba products (two of them for Y3).
  rows.push_back(bench_mul<bn254::Fr, KaratsubaStep>("bn254 Fr mul, Karatsuba", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bn254::Fq, KaratsubaStep>("bn254 Fq mul, Karatsuba", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bls12_381::Fr, KaratsubaStep>("bls12_381 Fr mul, Karatsuba", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<bls12_381::Fq, KaratsubaStep>("bls12_381 Fq mul, Karatsuba", n_mul, 256, runs, s, rng));
  using ec::PlainMul;
  rows.push_back(bench_mixed_add<bn254::G1Xyzz, MaddAdd<PlainMul>>("bn254 G1 madd_in_place", n_add, 64, runs, s, rng));
  rows.push_back(
      bench_mixed_add<bn254::G1Xyzz, MaddAdd<TwoProducts>>("bn254 G1 madd, Y3 two products", n_add, 64, runs, s, rng));
  rows.push_back(
      bench_mixed_add<bn254::G1Xyzz, MaddAdd<KaratsubaMul>>("bn254 G1 madd, Karatsuba", n_add, 64, runs, s, rng));
  rows.push_back(
      bench_mixed_add<bls12_381::G1Xyzz, MaddAdd<PlainMul>>("bls12_381 G1 madd_in_place", n_add, 64, runs, s, rng));
  rows.push_back(bench_mixed_add<bls12_381::G1Xyzz, MaddAdd<TwoProducts>>("bls12_381 G1 madd, Y3 two products", n_add,
                                                                          64, runs, s, rng));
  rows.push_back(bench_mixed_add<bls12_381::G1Xyzz, MaddAdd<KaratsubaMul>>("bls12_381 G1 madd, Karatsuba", n_add, 64,
                                                                           runs, s, rng));

  std::printf("command: ");
  for (int i = 0; i < argc; ++i) std::printf("%s%s", i ? " " : "", argv[i]);
  std::printf("\ndevice: %s (sm_%d%d, %d SMs); median of %d runs, CUDA events\n\n", info->name.c_str(),
              info->compute_major, info->compute_minor, info->sm_count, runs);
  std::printf("| operation | threads | ops/thread | median ms | Gop/s | checked |\n");
  std::printf("|---|---:|---:|---:|---:|---|\n");
  int status = 0;
  for (auto& r : rows) {
    if (!r.is_ok()) {
      std::printf("| error | | | | | %s |\n", r.status().to_string().c_str());
      status = 1;
      continue;
    }
    double ops = double(r->elements) * r->iters;
    std::printf("| %s | %zu | %d | %.3f | %.3f | %s |\n", r->name.c_str(), r->elements, r->iters, r->median_ms,
                ops / (r->median_ms * 1e-3) / 1e9, r->verified ? "ok" : "MISMATCH");
    if (!r->verified) status = 1;
  }
  return status;
}

}  // namespace
}  // namespace cuzk::cuda

int main(int argc, char** argv) { return cuzk::cuda::run(argc, argv); }
