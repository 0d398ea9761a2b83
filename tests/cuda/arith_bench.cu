// Device throughput of field multiplication and G1 mixed addition (a benchmark, not a test).
//
// Each thread runs a dependent chain of `iters` operations on its own data, so the numbers
// are arithmetic throughput, not memory bandwidth. Every result is checked against the host
// for a few threads, so the timed work cannot be optimised away or silently wrong. Beside
// the field's own products: the Karatsuba and FP64-pipe products measured and not taken
// (alone, in two chains per thread, in alternate warps, and inside the mixed addition with
// the products out of line as the MSM's level 1 takes them).
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
#include "cuda/msm/outlined_products.cuh"
#include "cuda/stream.hpp"
#include "ec/points.hpp"
#include "ec/xyzz_madd.hpp"
#include "ff/fields.hpp"
#if defined(__CUDA_ARCH__)
#include "ff/fp_cuda_f64.hpp"
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

// x = x * y by another device product than Fp's (the same value): one-level Karatsuba
// (ff/fp_cuda_karatsuba.hpp) or the FP64 pipe's (ff/fp_cuda_f64.hpp).
enum class Product { kKaratsuba, kFp64 };
template <Product kProduct>
struct ProductStep {
  template <class F>
  __host__ __device__ static F step(const F& x, const F& y) {
#if defined(__CUDA_ARCH__)
    using P = typename F::Params;
    if constexpr (kProduct == Product::kKaratsuba) {
      return F::from_mont(ff::cuda_fp::mont_mul_karatsuba<P>(x.mont(), y.mont()));
    } else {
      return F::from_mont(ff::cuda_f64::mont_mul_fp<P>(x.mont(), y.mont()));
    }
#else
    return x * y;
#endif
  }
};
using KaratsubaStep = ProductStep<Product::kKaratsuba>;
using F64Step = ProductStep<Product::kFp64>;

// x = x^2 + y with the FP64-pipe square of ff/fp_cuda_f64.hpp.
struct F64SqrStep {
  template <class F>
  __host__ __device__ static F step(const F& x, const F& y) {
#if defined(__CUDA_ARCH__)
    return F::from_mont(ff::cuda_f64::mont_sqr_fp<typename F::Params>(x.mont())) + y;
#else
    return x.square() + y;
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

// Two independent chains per thread, x = x * y by StepA and z = z * w by StepB: with one
// integer (IMAD) and one FP64 product, the two pipes can issue side by side.
template <class F, class StepA, class StepB>
__global__ void two_chain_kernel(const F* a, const F* b, F* out, size_t n, int iters) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F x = a[i], z = b[i];
  const F y = b[i], w = a[i];
  for (int k = 0; k < iters; ++k) {
    x = StepA::step(x, y);
    z = StepB::step(z, w);
  }
  out[i] = x;
  out[n + i] = z;
}

// One chain per thread, x = x * y, by StepA in even warps and StepB in odd ones: the
// warp schedulers interleave the two kinds of warps.
template <class F, class StepA, class StepB>
__global__ void warp_mix_kernel(const F* a, const F* b, F* out, size_t n, int iters) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F x = a[i];
  const F y = b[i];
  if ((threadIdx.x / 32) % 2 == 0) {
    for (int k = 0; k < iters; ++k) x = StepA::step(x, y);
  } else {
    for (int k = 0; k < iters; ++k) x = StepB::step(x, y);
  }
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

// Out-of-line products (one copy of each, called), as the BLS12-381 MSM's level 1 takes
// them (msm_detail::OutlinedMul / OutlinedMulSub, in main()): here Karatsuba products
// (ff/fp_cuda_karatsuba.hpp), or the FP64-pipe product of ff/fp_cuda_f64.hpp.
struct OutlinedKaratsubaMul {
  template <class F>
  __device__ __noinline__ static F mul(F a, F b) {
    return KaratsubaStep::step(a, b);
  }
  template <class F>
  __device__ __noinline__ static F sqr(F a) {
    return a.square();
  }
};
struct OutlinedF64Mul {
  template <class F>
  __device__ __noinline__ static F mul(F a, F b) {
    return F64Step::step(a, b);
  }
  template <class F>
  __device__ __noinline__ static F sqr(F a) {
#if defined(__CUDA_ARCH__)
    return F::from_mont(ff::cuda_f64::mont_sqr_fp<typename F::Params>(a.mont()));
#else
    return a.square();
#endif
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
// Odd warps add through AddOdd (by default the same as Add).
template <class P, class Add, class AddOdd = Add>
__global__ void mixed_add_chain_kernel(const ec::Affine<typename P::Curve>* table, size_t m, P* out, size_t n,
                                       int iters) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  P acc = P::from_affine(table[i % m]);
  if ((threadIdx.x / 32) % 2 == 0) {
    for (int k = 1; k <= iters; ++k) Add::add(acc, table[(i + k) % m]);
  } else {
    for (int k = 1; k <= iters; ++k) AddOdd::add(acc, table[(i + k) % m]);
  }
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

// A kernel of the chains above: (a, b, out, n, iters).
template <class F>
using ChainKernel = void (*)(const F*, const F*, F*, size_t, int);

// `kernel` over n random operand pairs: the median time of `runs` and, on the host, the
// operands and the `outs` outputs for the caller's check.
template <class F>
struct Chains {
  std::vector<F> a, b, out;
  double ms = 0;
};
template <class F>
Result<Chains<F>> run_chains(ChainKernel<F> kernel, const char* what, size_t n, size_t outs, int iters, int runs,
                             const Stream& s, std::mt19937_64& rng) {
  Chains<F> c;
  c.a.resize(n);
  c.b.resize(n);
  for (size_t i = 0; i < n; ++i) {
    c.a[i] = F::random(rng);
    c.b[i] = F::random(rng);
  }
  CUZK_ASSIGN_OR_RETURN(auto da, to_device(c.a, s));
  CUZK_ASSIGN_OR_RETURN(auto db, to_device(c.b, s));
  CUZK_ASSIGN_OR_RETURN(auto dout, DeviceBuffer<F>::allocate(outs));
  CUZK_ASSIGN_OR_RETURN(c.ms, median_ms(s, runs, [&] {
                          kernel<<<blocks(n), kThreads, 0, s.get()>>>(da.data(), db.data(), dout.data(), n, iters);
                          return check_launch(what);
                        }));
  c.out.resize(outs);
  CUZK_RETURN_IF_ERROR(dout.download(c.out, s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  return Result<Chains<F>>(std::move(c));
}

template <class F, class Step = FieldStep<false>>
Result<Row> bench_mul(const char* name, size_t n, int iters, int runs, const Stream& s, std::mt19937_64& rng) {
  CUZK_ASSIGN_OR_RETURN(auto c,
                        run_chains<F>(mul_chain_kernel<F, Step>, "mul_chain_kernel", n, n, iters, runs, s, rng));
  bool ok = true;
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    F x = c.a[i];
    for (int k = 0; k < iters; ++k) x = Step::step(x, c.b[i]);
    ok = ok && x == c.out[i];
  }
  return Row{name, n, iters, c.ms, ok};
}

// Two chains per thread (two_chain_kernel): ops counts both chains' products.
template <class F, class StepA, class StepB>
Result<Row> bench_two_chains(const char* name, size_t n, int iters, int runs, const Stream& s, std::mt19937_64& rng) {
  CUZK_ASSIGN_OR_RETURN(
      auto c, run_chains<F>(two_chain_kernel<F, StepA, StepB>, "two_chain_kernel", n, 2 * n, iters, runs, s, rng));
  bool ok = true;
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    F x = c.a[i], z = c.b[i];
    for (int k = 0; k < iters; ++k) {
      x = x * c.b[i];
      z = z * c.a[i];
    }
    ok = ok && x == c.out[i] && z == c.out[n + i];
  }
  return Row{name, n, 2 * iters, c.ms, ok};
}

// StepA in even warps, StepB in odd ones (warp_mix_kernel).
template <class F, class StepA, class StepB>
Result<Row> bench_warp_mix(const char* name, size_t n, int iters, int runs, const Stream& s, std::mt19937_64& rng) {
  CUZK_ASSIGN_OR_RETURN(auto c,
                        run_chains<F>(warp_mix_kernel<F, StepA, StepB>, "warp_mix_kernel", n, n, iters, runs, s, rng));
  bool ok = true;
  for (size_t i : {size_t(0), size_t(32), n / 2, n - 1}) {  // both kinds of warp
    F x = c.a[i];
    for (int k = 0; k < iters; ++k) x = x * c.b[i];
    ok = ok && x == c.out[i];
  }
  return Row{name, n, iters, c.ms, ok};
}

// One product per element over random and edge-case inputs (0, 1, p - 1, R mod p and
// values with every 48-bit limb at its largest below p), each checked against the host.
template <class F, class Step>
__global__ void mul_each_kernel(const F* a, const F* b, F* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Step::step(a[i], b[i]);
}

template <class F, class Step>
Result<Row> check_products(const char* name, size_t n, const Stream& s, std::mt19937_64& rng) {
  using Int = typename F::Int;
  // Montgomery forms 0, R mod p, p - R mod p, 1, and p - 1 - 2^k for assorted k (long runs
  // of ones across the 48-bit limb boundaries); subtraction is the same on the forms.
  const F raw_one = F::from_mont(Int::from_u64(1));
  std::vector<F> edge = {F::zero(), F::one(), F::zero() - F::one(), raw_one};
  for (unsigned k : {0u, 47u, 48u, 95u, 96u, 200u, 370u}) {
    Int t{};
    t.limb[k / 64] = uint64_t(1) << (k % 64);
    edge.push_back(F::zero() - raw_one - F::from_mont(t));
  }
  std::vector<F> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = i < edge.size() * edge.size() ? edge[i % edge.size()] : F::random(rng);
    b[i] = i < edge.size() * edge.size() ? edge[i / edge.size()] : F::random(rng);
  }
  CUZK_ASSIGN_OR_RETURN(auto da, to_device(a, s));
  CUZK_ASSIGN_OR_RETURN(auto db, to_device(b, s));
  CUZK_ASSIGN_OR_RETURN(auto dout, DeviceBuffer<F>::allocate(n));
  mul_each_kernel<F, Step><<<blocks(n), kThreads, 0, s.get()>>>(da.data(), db.data(), dout.data(), n);
  CUZK_RETURN_IF_ERROR(check_launch("mul_each_kernel"));
  std::vector<F> out(n);
  CUZK_RETURN_IF_ERROR(dout.download(out, s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += !(out[i] == Step::step(a[i], b[i]));  // the host's portable code
  if (bad != 0) std::fprintf(stderr, "%s: %zu of %zu products differ from the host\n", name, bad, n);
  return Row{name, n, 1, 0.0, bad == 0};
}

template <class P, class Add = OperatorAdd, class AddOdd = Add>
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
                          mixed_add_chain_kernel<P, Add, AddOdd>
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

  // The FP64-pipe product (ff/fp_cuda_f64.hpp): checked over 2^20 products with edge
  // cases, alone, and beside the integer product in two chains per thread.
  using IntStep = FieldStep<false>;
  using Fq = bls12_381::Fq;
  rows.push_back(check_products<Fq, F64Step>("bls12_381 Fq mul, FP64: 2^20 checked", 1 << 20, s, rng));
  rows.push_back(check_products<Fq, F64SqrStep>("bls12_381 Fq square + add, FP64: 2^20 checked", 1 << 20, s, rng));
  rows.push_back(bench_mul<Fq, F64Step>("bls12_381 Fq mul, FP64", n_mul, 256, runs, s, rng));
  rows.push_back(bench_mul<Fq, F64SqrStep>("bls12_381 Fq square + add, FP64", n_mul, 256, runs, s, rng));
  rows.push_back(bench_two_chains<Fq, IntStep, IntStep>("bls12_381 Fq mul, two IMAD chains", n_mul, 128, runs, s, rng));
  rows.push_back(
      bench_two_chains<Fq, IntStep, F64Step>("bls12_381 Fq mul, IMAD + FP64 chains", n_mul, 128, runs, s, rng));
  rows.push_back(bench_warp_mix<Fq, IntStep, F64Step>("bls12_381 Fq mul, warps IMAD / FP64", n_mul, 256, runs, s, rng));
  using G1 = bls12_381::G1Xyzz;
  using OutlinedIntMul = msm_detail::OutlinedMul<Fq>;
  using OutlinedIntMulSub = msm_detail::OutlinedMulSub<Fq>;
  rows.push_back(
      bench_mixed_add<G1, MaddAdd<OutlinedIntMul>>("bls12_381 G1 madd, outlined IMAD", n_add, 64, runs, s, rng));
  rows.push_back(bench_mixed_add<G1, MaddAdd<OutlinedIntMulSub>>("bls12_381 G1 madd, outlined IMAD, mul_sub", n_add, 64,
                                                                 runs, s, rng));
  rows.push_back(bench_mixed_add<G1, MaddAdd<OutlinedKaratsubaMul>>("bls12_381 G1 madd, outlined Karatsuba", n_add, 64,
                                                                    runs, s, rng));
  rows.push_back(
      bench_mixed_add<G1, MaddAdd<OutlinedF64Mul>>("bls12_381 G1 madd, outlined FP64", n_add, 64, runs, s, rng));
  rows.push_back(bench_mixed_add<G1, MaddAdd<OutlinedIntMul>, MaddAdd<OutlinedF64Mul>>(
      "bls12_381 G1 madd, warps outlined IMAD / FP64", n_add, 64, runs, s, rng));

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
    if (r->median_ms > 0) {
      std::printf("| %s | %zu | %d | %.3f | %.3f | %s |\n", r->name.c_str(), r->elements, r->iters, r->median_ms,
                  ops / (r->median_ms * 1e-3) / 1e9, r->verified ? "ok" : "MISMATCH");
    } else {  // a check, not timed
      std::printf("| %s | %zu | %d | - | - | %s |\n", r->name.c_str(), r->elements, r->iters,
                  r->verified ? "ok" : "MISMATCH");
    }
    if (!r->verified) status = 1;
  }
  return status;
}

}  // namespace
}  // namespace cuzk::cuda

int main(int argc, char** argv) { return cuzk::cuda::run(argc, argv); }
