// Quadratic extension Fq12 = Fq6[w] / (w^2 - v): where pairings take their values.
#pragma once

#include "ff/fp6.hpp"

namespace cuzk::ff {

template <class Cfg>
struct Fp12 {
  using F6 = Fp6<Cfg>;
  using F2 = Fp2<Cfg>;
  F6 c0, c1;  // c0 + c1*w

  constexpr Fp12() = default;
  CUZK_INLINE constexpr Fp12(const F6& a, const F6& b) : c0(a), c1(b) {}
  CUZK_INLINE static constexpr Fp12 zero() { return {F6::zero(), F6::zero()}; }
  CUZK_INLINE static constexpr Fp12 one() { return {F6::one(), F6::zero()}; }

  CUZK_INLINE constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_INLINE constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  CUZK_INLINE constexpr bool operator==(const Fp12& o) const { return c0 == o.c0 && c1 == o.c1; }
  CUZK_INLINE constexpr bool operator!=(const Fp12& o) const { return !(*this == o); }

  CUZK_INLINE constexpr Fp12 operator+(const Fp12& o) const { return {c0 + o.c0, c1 + o.c1}; }
  CUZK_INLINE constexpr Fp12 operator-(const Fp12& o) const { return {c0 - o.c0, c1 - o.c1}; }
  CUZK_INLINE constexpr Fp12 operator-() const { return {-c0, -c1}; }

  CUZK_HD constexpr Fp12 operator*(const Fp12& o) const {
    F6 t0 = c0 * o.c0;
    F6 t1 = c1 * o.c1;
    return {t0 + t1.mul_by_nonresidue(), (c0 + c1) * (o.c0 + o.c1) - t0 - t1};
  }
  CUZK_HD constexpr Fp12 square() const {
    F6 ab = c0 * c1;
    F6 t = (c0 + c1) * (c0 + c1.mul_by_nonresidue());
    return {t - ab - ab.mul_by_nonresidue(), ab.dbl()};
  }
  // The inverse for elements of norm 1 (the cyclotomic subgroup, where pairings land).
  CUZK_INLINE constexpr Fp12 conjugate() const { return {c0, -c1}; }

  CUZK_HD constexpr Fp12 inverse() const {
    F6 t = (c0.square() - c1.square().mul_by_nonresidue()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  template <size_t M>
  CUZK_HD constexpr Fp12 pow(const BigInt<M>& e) const {
    Fp12 r = one();
    for (size_t i = e.num_bits(); i-- > 0;) {
      r = r.square();
      if (e.bit(i)) r = r * *this;
    }
    return r;
  }

  template <class Rng>
  static Fp12 random(Rng& rng) {
    F6 a = F6::random(rng), b = F6::random(rng);
    return {a, b};
  }
};

}  // namespace cuzk::ff
