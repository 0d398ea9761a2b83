// Product policies for ec::madd_in_place / ec::add_in_place that keep each field product out
// of line: one called copy instead of one inlined copy per use. Device code; the MSM kernels
// (msm_kernels.cuh, which says where they pay) and cuda_arith_bench use them.
#pragma once

#include "ec/points.hpp"
#include "ec/xyzz.hpp"
#include "ff/fp.hpp"

#if defined(__CUDACC__)
#define CUZK_OUTLINED __device__ __noinline__
#if defined(CUZK_CUDA_CHECK_ONLY)
#define CUZK_STEP __device__ inline  // a build only to check (core/hd.hpp)
#else
#define CUZK_STEP __device__ __forceinline__
#endif
#elif defined(CUZK_FP_CUDA_HOST_MODEL)
// The host model (tests/cuda/msm/lazy_madd_model_test.cpp): the lazy level-1 arithmetic below
// on the host, with ff/fp_cuda.hpp's PTX steps modelled in C++.
#include "ff/fp_cuda.hpp"
#define CUZK_OUTLINED inline
#define CUZK_STEP inline
#else
#error "cuda/msm/outlined_products.cuh is device code (or the host model's)"
#endif

#if defined(__CUDA_ARCH__)
#include "ff/fp_cuda_karatsuba.hpp"
#endif

namespace cuzk::cuda::msm_detail {

// Over Fq2 (the G2 groups) the kernels take each product and square out of line. One
// BLS12-381 G2 addition inlined is ~50k PTX instructions, far beyond the instruction
// caches: in lock-step (cuda_g2_add_bench) it ran at 0.83 G/s, in the accumulation, where
// the warps of a multiprocessor drift apart, at 0.42. Out of line (one copy of each
// product) the accumulation runs at 0.82 G/s (H200, BENCHMARKS.md "G2 MSM (H10)").
template <class F>
struct OutlinedMul {
  CUZK_OUTLINED static F mul(F a, F b) { return a * b; }
  CUZK_OUTLINED static F sqr(F a) { return a.square(); }
};
// ... with Y3 = R·(Q - X3) - Y1·PPP out of line too, as one call of Fp::mul_sub (both
// products, one reduction) instead of two products: BLS12-381 G1's level 1 ran 3.6-3.9%
// faster (H200, BENCHMARKS.md "FP64-pipe products, and mul_sub out of line"). Over Fq2 a
// mul_sub sharing its reductions was tried and made the G2 level 1 16% slower (its live
// wide products), so G2 keeps OutlinedMul.
template <class F>
struct OutlinedMulSub : OutlinedMul<F> {
  CUZK_OUTLINED static F mul_sub(F a, F b, F c, F d) { return F::mul_sub(a, b, c, d); }
};

// 8p < 2^(64N) for a base field Fq (ff::cuda_fp::kLazyFp2, readable in host code): room
// for LazyFp and LazyFp2 below.
template <class Fq>
constexpr bool kLazyBase = Fq::Params::MODULUS.limb[Fq::N - 1] < 0x1fffffffffffffffull;

#if defined(__CUDA_ARCH__) || defined(CUZK_FP_CUDA_HOST_MODEL)
// Lazy Fq arithmetic (F = ff::Fp with 8p < 2^(64N): BLS12-381's Fq): every value in [0, 2p)
// between steps, so the products, squares and Y3's a·b - c·d (one reduction, as
// OutlinedMulSub) skip their final subtractions (out of line), and sums and differences take
// one conditional step of 2p each, as exact ones take one of p. canonical() brings a value
// below p again. BLS12-381 G1's level 1. kKaratsuba: on the device, the products and mul_sub
// take a·b by one level of Karatsuba (ff/fp_cuda_karatsuba.hpp: 3.5n^2 multiply-adds a product
// with its reduction instead of 4n^2, 5n^2 for mul_sub instead of 6n^2, more words live inside
// each call); the host model keeps the interleaved products.
template <class F, bool kKaratsuba = false>
struct LazyFp {
  using P = typename F::Params;
  static_assert(ff::cuda_fp::kLazyFp2<P> && kLazyBase<F>);

  // a, b < 2p: a·b < 4p^2 < p·2^(64N), so the lazy reduction's result is below 2p.
  CUZK_OUTLINED static F mul(F a, F b) {
#if defined(__CUDA_ARCH__)
    if constexpr (kKaratsuba) return F::from_mont(ff::cuda_fp::mont_mul_karatsuba<P, true>(a.mont(), b.mont()));
#endif
    return F::from_mont(ff::cuda_fp::mont_mul_lazy<P>(a.mont(), b.mont()));
  }
  CUZK_OUTLINED static F sqr(F a) { return F::from_mont(ff::cuda_fp::mont_sqr<P, true>(a.mont())); }
  CUZK_OUTLINED static F mul_sub(F a, F b, F c, F d) {
#if defined(__CUDA_ARCH__)
    if constexpr (kKaratsuba) {
      return F::from_mont(ff::cuda_fp::mont_mul_sub_karatsuba<P, true>(a.mont(), b.mont(), c.mont(), d.mont()));
    }
#endif
    return F::from_mont(ff::cuda_fp::mont_mul_sub<P, true>(a.mont(), b.mont(), c.mont(), d.mont()));
  }
  CUZK_STEP static F add(const F& a, const F& b) { return F::from_mont(ff::cuda_fp::add_lazy<P>(a.mont(), b.mont())); }
  CUZK_STEP static F sub(const F& a, const F& b) { return F::from_mont(ff::cuda_fp::sub_lazy<P>(a.mont(), b.mont())); }
  CUZK_STEP static bool is_zero(const F& a) {
    constexpr typename F::Int p = P::MODULUS;
    return a.mont().is_zero() || a.mont() == p;
  }
  CUZK_STEP static F canonical(const F& a) { return F::from_mont(ff::cuda_fp::reduce_once<P>(a.mont())); }
  template <class C>
  CUZK_STEP static ec::Xyzz<C> canonical(const ec::Xyzz<C>& a) {
    return {canonical(a.x), canonical(a.y), canonical(a.zz), canonical(a.zzz)};
  }
};

// The same over Fq2 (F = ff::Fp2 over such a base field: BLS12-381 G2's level 1): the product
// through cuda_fp::fp2_mul<P, true>, everything else per coordinate by LazyFp.
template <class F>
struct LazyFp2 {
  using Fq = typename F::Fq;
  using P = typename Fq::Params;
  using B = LazyFp<Fq>;

  CUZK_OUTLINED static F mul(F a, F b) {
    typename Fq::Int z0, z1;
    ff::cuda_fp::fp2_mul<P, true>(a.c0.mont(), a.c1.mont(), b.c0.mont(), b.c1.mont(), z0, z1);
    return {Fq::from_mont(z0), Fq::from_mont(z1)};
  }
  // (c0 + c1)(c0 - c1) + 2 c0 c1 u: the factors below 2p, each product below 1.41p.
  CUZK_OUTLINED static F sqr(F a) {
    namespace cf = ff::cuda_fp;
    const Fq ab = Fq::from_mont(cf::mont_mul_lazy<P>(a.c0.mont(), a.c1.mont()));
    const auto s = B::add(a.c0, a.c1), d = B::sub(a.c0, a.c1);
    return {Fq::from_mont(cf::mont_mul_lazy<P>(s.mont(), d.mont())), B::add(ab, ab)};
  }
  CUZK_STEP static F add(const F& a, const F& b) { return {B::add(a.c0, b.c0), B::add(a.c1, b.c1)}; }
  CUZK_STEP static F sub(const F& a, const F& b) { return {B::sub(a.c0, b.c0), B::sub(a.c1, b.c1)}; }
  CUZK_STEP static bool is_zero(const F& a) { return B::is_zero(a.c0) && B::is_zero(a.c1); }
  CUZK_STEP static F canonical(const F& a) { return {B::canonical(a.c0), B::canonical(a.c1)}; }
  template <class C>
  CUZK_STEP static ec::Xyzz<C> canonical(const ec::Xyzz<C>& a) {
    return {canonical(a.x), canonical(a.y), canonical(a.zz), canonical(a.zzz)};
  }
};

// ec::madd_in_place (madd-2008-s) on an accumulator kept lazy by L (LazyFp2, LazyFp): a in [0, 2p)
// per coordinate, o canonical. L::canonical(a) afterwards gives the exact sum. The rare
// doubling goes through the exact formula.
template <class L, class C>
CUZK_STEP void madd_lazy_in_place(ec::Xyzz<C>& a, const ec::Affine<C>& o) {
  using Base = typename C::Base;
  if (o.is_infinity()) return;
  if (a.is_infinity()) {  // zz is 0 exactly: a lazy zz is 0 or p only when it is 0 mod p
    a = ec::Xyzz<C>::from_affine(o);
    return;
  }
  const Base p = L::sub(L::mul(o.x, a.zz), a.x);
  const Base r = L::sub(L::mul(o.y, a.zzz), a.y);
  if (L::is_zero(p)) {
    const ec::Xyzz<C> t = L::canonical(a);
    a = L::is_zero(r) ? t.dbl() : ec::Xyzz<C>::infinity();
    return;
  }
  const Base pp = L::sqr(p);
  a.zz = L::mul(a.zz, pp);
  const Base q = L::mul(a.x, pp);
  const Base ppp = L::mul(p, pp);
  a.zzz = L::mul(a.zzz, ppp);
  a.x = L::sub(L::sub(L::sqr(r), ppp), L::add(q, q));
  if constexpr (requires { L::mul_sub(r, q, a.y, ppp); }) {
    a.y = L::mul_sub(r, L::sub(q, a.x), a.y, ppp);
  } else {
    a.y = L::sub(L::mul(r, L::sub(q, a.x)), L::mul(a.y, ppp));
  }
}

// madd_lazy_in_place with fewer values held in registers across its out-of-line products:
// `a` lives in memory the caller chose (shared memory in level 1's CUZK_MSM_SHARED_ACC
// variant, msm_kernels.cuh) and two of the temporaries, R and Q, are parked in `park`
// (two slots there too) between the products that make and use them, so that at most two
// coordinates are live across a call. The same sums, bit for bit.
template <class L, class C>
CUZK_STEP void madd_lazy_parked(ec::Xyzz<C>& a, const ec::Affine<C>& o, typename C::Base* park) {
  using Base = typename C::Base;
  if (o.is_infinity()) return;
  if (a.is_infinity()) {
    a = ec::Xyzz<C>::from_affine(o);
    return;
  }
  const Base p = L::sub(L::mul(o.x, a.zz), a.x);
  park[0] = L::sub(L::mul(o.y, a.zzz), a.y);  // R
  if (L::is_zero(p)) {
    const ec::Xyzz<C> t = L::canonical(a);
    a = L::is_zero(park[0]) ? t.dbl() : ec::Xyzz<C>::infinity();
    return;
  }
  const Base pp = L::sqr(p);
  a.zz = L::mul(a.zz, pp);
  park[1] = L::mul(a.x, pp);  // Q
  const Base ppp = L::mul(p, pp);
  a.zzz = L::mul(a.zzz, ppp);
  a.x = L::sub(L::sub(L::sqr(park[0]), ppp), L::add(park[1], park[1]));
  a.y = L::mul_sub(park[0], L::sub(park[1], a.x), a.y, ppp);
}
#endif  // __CUDA_ARCH__ || CUZK_FP_CUDA_HOST_MODEL

}  // namespace cuzk::cuda::msm_detail

#undef CUZK_OUTLINED
#undef CUZK_STEP
