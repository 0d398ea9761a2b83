// Cubic extension Fq6 = Fq2[v] / (v^3 - xi), xi the tower's non-residue in Fq2.
#pragma once

#include "ff/fp2.hpp"

namespace cuzk::ff {

template <class Cfg>
struct Fp6 {
  using F2 = Fp2<Cfg>;
  F2 c0, c1, c2;  // c0 + c1*v + c2*v^2

  constexpr Fp6() = default;
  CUZK_INLINE constexpr Fp6(const F2& a, const F2& b, const F2& c) : c0(a), c1(b), c2(c) {}
  CUZK_INLINE static constexpr Fp6 zero() { return {F2::zero(), F2::zero(), F2::zero()}; }
  CUZK_INLINE static constexpr Fp6 one() { return {F2::one(), F2::zero(), F2::zero()}; }

  CUZK_INLINE constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  CUZK_INLINE constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  CUZK_INLINE constexpr bool operator==(const Fp6& o) const { return c0 == o.c0 && c1 == o.c1 && c2 == o.c2; }
  CUZK_INLINE constexpr bool operator!=(const Fp6& o) const { return !(*this == o); }

  CUZK_INLINE constexpr Fp6 operator+(const Fp6& o) const { return {c0 + o.c0, c1 + o.c1, c2 + o.c2}; }
  CUZK_INLINE constexpr Fp6 operator-(const Fp6& o) const { return {c0 - o.c0, c1 - o.c1, c2 - o.c2}; }
  CUZK_INLINE constexpr Fp6 operator-() const { return {-c0, -c1, -c2}; }
  CUZK_INLINE constexpr Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }

  // Karatsuba-style interpolation: six Fq2 multiplications.
  CUZK_HD constexpr Fp6 operator*(const Fp6& o) const {
    F2 t0 = c0 * o.c0;
    F2 t1 = c1 * o.c1;
    F2 t2 = c2 * o.c2;
    F2 r0 = ((c1 + c2) * (o.c1 + o.c2) - t1 - t2).mul_by_nonresidue() + t0;
    F2 r1 = (c0 + c1) * (o.c0 + o.c1) - t0 - t1 + t2.mul_by_nonresidue();
    F2 r2 = (c0 + c2) * (o.c0 + o.c2) - t0 - t2 + t1;
    return {r0, r1, r2};
  }
  // Chung-Hasan SQR2.
  CUZK_HD constexpr Fp6 square() const {
    F2 s0 = c0.square();
    F2 s1 = (c0 * c1).dbl();
    F2 s2 = (c0 - c1 + c2).square();
    F2 s3 = (c1 * c2).dbl();
    F2 s4 = c2.square();
    return {s3.mul_by_nonresidue() + s0, s4.mul_by_nonresidue() + s1, s1 + s2 + s3 - s0 - s4};
  }
  CUZK_INLINE constexpr Fp6 mul_by_fp2(const F2& k) const { return {c0 * k, c1 * k, c2 * k}; }
  // Multiplication by v: (c0, c1, c2) -> (xi*c2, c0, c1).
  CUZK_INLINE constexpr Fp6 mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  CUZK_HD constexpr Fp6 inverse() const {
    F2 a = c0.square() - (c1 * c2).mul_by_nonresidue();
    F2 b = c2.square().mul_by_nonresidue() - c0 * c1;
    F2 c = c1.square() - c0 * c2;
    F2 f = c0 * a + (c2 * b + c1 * c).mul_by_nonresidue();
    F2 fi = f.inverse();
    return {a * fi, b * fi, c * fi};
  }

  template <class Rng>
  static Fp6 random(Rng& rng) {
    F2 a = F2::random(rng), b = F2::random(rng), c = F2::random(rng);
    return {a, b, c};
  }
};

}  // namespace cuzk::ff
