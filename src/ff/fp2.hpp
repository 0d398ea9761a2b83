// Quadratic extension Fq2 = Fq[u] / (u^2 + 1). Both curves use u^2 = -1 (q = 3 mod 4).
//
// Cfg supplies the base field and the cubic non-residue xi = XI_C0 + XI_C1*u used by the
// tower above it (ff/fp6.hpp):
//   using Fq = ...;  static constexpr uint64_t XI_C0, XI_C1;
#pragma once

#include "core/hd.hpp"
#include "ff/fp.hpp"

namespace cuzk::ff {

// k * x for a small public constant k, by doubling and adding.
template <class F>
CUZK_INLINE constexpr F mul_small(const F& x, uint64_t k) {
  F acc = F::zero();
  F base = x;
  while (k != 0) {
    if (k & 1) acc = acc + base;
    k >>= 1;
    if (k != 0) base = base.dbl();
  }
  return acc;
}

template <class Cfg>
struct Fp2 {
  using Fq = typename Cfg::Fq;
  using Config = Cfg;
  static constexpr size_t BYTES = 2 * Fq::BYTES;

  Fq c0, c1;  // c0 + c1*u

  constexpr Fp2() = default;
  CUZK_INLINE constexpr Fp2(const Fq& a, const Fq& b) : c0(a), c1(b) {}
  CUZK_INLINE static constexpr Fp2 zero() { return {Fq::zero(), Fq::zero()}; }
  CUZK_INLINE static constexpr Fp2 one() { return {Fq::one(), Fq::zero()}; }

  CUZK_INLINE constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_INLINE constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  CUZK_INLINE constexpr bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  CUZK_INLINE constexpr bool operator!=(const Fp2& o) const { return !(*this == o); }

  CUZK_INLINE constexpr Fp2 operator+(const Fp2& o) const { return {c0 + o.c0, c1 + o.c1}; }
  CUZK_INLINE constexpr Fp2 operator-(const Fp2& o) const { return {c0 - o.c0, c1 - o.c1}; }
  CUZK_INLINE constexpr Fp2 operator-() const { return {-c0, -c1}; }
  CUZK_INLINE constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  CUZK_INLINE constexpr Fp2& operator+=(const Fp2& o) { return *this = *this + o; }
  CUZK_INLINE constexpr Fp2& operator-=(const Fp2& o) { return *this = *this - o; }
  CUZK_INLINE constexpr Fp2& operator*=(const Fp2& o) { return *this = *this * o; }

  // Karatsuba: three base multiplications (on the device, three unreduced products and two
  // reductions: ff/fp_cuda.hpp).
  CUZK_INLINE constexpr Fp2 operator*(const Fp2& o) const {
#if defined(__CUDA_ARCH__)
    if (!__builtin_is_constant_evaluated()) {
      typename Fq::Int z0, z1;
      cuda_fp::fp2_mul<typename Fq::Params>(c0.mont(), c1.mont(), o.c0.mont(), o.c1.mont(), z0, z1);
      return {Fq::from_mont(z0), Fq::from_mont(z1)};
    }
#endif
    Fq t0 = c0 * o.c0;
    Fq t1 = c1 * o.c1;
    return {t0 - t1, (c0 + c1) * (o.c0 + o.c1) - t0 - t1};
  }
  // The same product from three reduced base products: more multiplications than the
  // device's lazy form, but about two base elements' products fewer live registers.
  CUZK_INLINE constexpr Fp2 mul_reduced3(const Fp2& o) const {
    Fq t0 = c0 * o.c0;
    Fq t1 = c1 * o.c1;
    return {t0 - t1, (c0 + c1) * (o.c0 + o.c1) - t0 - t1};
  }
  // (a + bu)^2 = (a + b)(a - b) + 2ab u
  // a·b - c·d (ff::Fp::mul_sub's counterpart; no shared reduction here).
  CUZK_INLINE static constexpr Fp2 mul_sub(const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d) {
    return a * b - c * d;
  }
  CUZK_INLINE constexpr Fp2 square() const {
    Fq ab = c0 * c1;
    return {(c0 + c1) * (c0 - c1), ab.dbl()};
  }
  CUZK_INLINE constexpr Fp2 mul_by_base(const Fq& k) const { return {c0 * k, c1 * k}; }
  CUZK_INLINE constexpr Fp2 conjugate() const { return {c0, -c1}; }
  // x^(q^power): conjugation for odd powers.
  CUZK_INLINE constexpr Fp2 frobenius_map(size_t power) const { return (power & 1) ? conjugate() : *this; }
  // Multiplication by the tower's non-residue xi.
  CUZK_INLINE constexpr Fp2 mul_by_nonresidue() const {
    Fq a = mul_small(c0, Cfg::XI_C0) - mul_small(c1, Cfg::XI_C1);
    Fq b = mul_small(c1, Cfg::XI_C0) + mul_small(c0, Cfg::XI_C1);
    return {a, b};
  }
  CUZK_INLINE constexpr Fq norm() const { return c0.square() + c1.square(); }

  CUZK_HD constexpr Fp2 inverse() const {
    Fq t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }

  template <size_t M>
  CUZK_HD constexpr Fp2 pow(const BigInt<M>& e) const {
    Fp2 r = one();
    for (size_t i = e.num_bits(); i-- > 0;) {
      r = r.square();
      if (e.bit(i)) r = r * *this;
    }
    return r;
  }

  // x is a square in Fq2 iff its norm is a square in Fq.
  CUZK_HD constexpr int legendre() const { return norm().legendre(); }

  // Square root for q = 3 mod 4 (Adj and Rodriguez-Henriquez, "Square root computation
  // over even extension fields", algorithm 9). Returns false if x is not a square.
  CUZK_HD constexpr bool sqrt(Fp2& out) const {
    if (is_zero()) {
      out = zero();
      return true;
    }
    constexpr auto q = Fq::MODULUS;
    constexpr auto e1 = detail::shifted_right(detail::sub_small(q, 3), 2);  // (q-3)/4
    constexpr auto e2 = detail::shifted_right(detail::sub_small(q, 1), 1);  // (q-1)/2
    Fp2 a1 = pow(e1);
    Fp2 alpha = a1.square() * *this;
    Fp2 a0 = alpha.conjugate() * alpha;
    Fp2 minus_one = -one();
    if (a0 == minus_one) return false;
    Fp2 x0 = a1 * *this;
    Fp2 x;
    if (alpha == minus_one) {
      x = {-x0.c1, x0.c0};  // u * x0
    } else {
      Fp2 b = (one() + alpha).pow(e2);
      x = b * x0;
    }
    if (x.square() != *this) return false;
    out = x;
    return true;
  }

  template <class Rng>
  static Fp2 random(Rng& rng) {
    Fq a = Fq::random(rng);
    Fq b = Fq::random(rng);
    return {a, b};
  }
};

}  // namespace cuzk::ff
