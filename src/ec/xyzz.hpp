// Extended Jacobian points (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ and ZZ^3 = ZZZ^2
// (Bernstein-Lange's "xyzz" coordinates). Additions are cheaper than in Jacobian form,
// which is why MSM buckets use them. Infinity is ZZ = 0. Special cases (P == Q,
// P == -Q, infinity on either side) are handled inside add and mixed add.
#pragma once

#include "core/hd.hpp"
#include "ec/curves.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"

namespace cuzk::ec {

template <class C>
struct Xyzz {
  using Base = typename C::Base;
  using Scalar = typename C::Scalar;
  using Curve = C;
  using AffinePoint = Affine<C>;

  Base x, y, zz, zzz;

  CUZK_INLINE static constexpr Xyzz infinity() { return {Base::one(), Base::one(), Base::zero(), Base::zero()}; }
  CUZK_INLINE static constexpr Xyzz from_affine(const AffinePoint& a) {
    if (a.is_infinity()) return infinity();
    return {a.x, a.y, Base::one(), Base::one()};
  }
  CUZK_INLINE static constexpr Xyzz generator() { return from_affine(C::generator()); }
  // Jacobian (X, Y, Z) is XYZZ (X, Y, Z^2, Z^3).
  CUZK_INLINE static constexpr Xyzz from_jacobian(const Jacobian<C>& p) {
    if (p.is_infinity()) return infinity();
    Base z2 = p.z.square();
    return {p.x, p.y, z2, z2 * p.z};
  }
  // Taking Z = ZZZ avoids an inversion: X' = X ZZ^2, Y' = Y ZZZ^2.
  CUZK_HD constexpr Jacobian<C> to_jacobian() const {
    if (is_infinity()) return Jacobian<C>::infinity();
    return {x * zz.square(), y * zzz.square(), zzz};
  }

  CUZK_INLINE constexpr bool is_infinity() const { return zz.is_zero(); }

  CUZK_HD constexpr AffinePoint to_affine() const {
    if (is_infinity()) return AffinePoint::infinity();
    Base zzzi = zzz.inverse();
    Base zzi = (zzzi * zz).square();  // (ZZ/ZZZ)^2 = 1/ZZ since ZZ^3 = ZZZ^2
    return {x * zzi, y * zzzi};
  }

  // Y^2 = X^3 + b ZZZ^2 and ZZ^3 = ZZZ^2.
  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    Base zzz2 = zzz.square();
    if (zz.square() * zz != zzz2) return false;
    return y.square() == x.square() * x + C::b() * zzz2;
  }

  CUZK_HD constexpr bool operator==(const Xyzz& o) const {
    if (is_infinity() || o.is_infinity()) return is_infinity() && o.is_infinity();
    return x * o.zz == o.x * zz && y * o.zzz == o.y * zzz;
  }
  CUZK_HD constexpr bool operator!=(const Xyzz& o) const { return !(*this == o); }

  CUZK_INLINE constexpr Xyzz operator-() const { return {x, -y, zz, zzz}; }

  // dbl-2008-s-1 (a = 0): 6M + 3S.
  CUZK_HD constexpr Xyzz dbl() const {
    if (is_infinity()) return *this;
    Base u = y.dbl();
    Base v = u.square();
    Base w = u * v;
    Base s = x * v;
    Base x2 = x.square();
    Base m = x2.dbl() + x2;
    Xyzz r;
    r.x = m.square() - s.dbl();
    r.y = Base::mul_sub(m, s - r.x, w, y);
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  // add-2008-s: 12M + 2S, falling back to dbl() when the inputs are equal.
  CUZK_HD constexpr Xyzz operator+(const Xyzz& o) const {
    if (is_infinity()) return o;
    if (o.is_infinity()) return *this;
    Base u1 = x * o.zz;
    Base u2 = o.x * zz;
    Base s1 = y * o.zzz;
    Base s2 = o.y * zzz;
    Base p = u2 - u1;
    Base rr = s2 - s1;
    if (p.is_zero()) return rr.is_zero() ? dbl() : infinity();
    Base pp = p.square();
    Base ppp = p * pp;
    Base q = u1 * pp;
    Xyzz r;
    r.x = rr.square() - ppp - q.dbl();
    r.y = Base::mul_sub(rr, q - r.x, s1, ppp);
    r.zz = zz * o.zz * pp;
    r.zzz = zzz * o.zzz * ppp;
    return r;
  }

  // madd-2008-s (ZZ2 = ZZZ2 = 1): 8M + 2S.
  CUZK_HD constexpr Xyzz operator+(const AffinePoint& o) const {
    if (o.is_infinity()) return *this;
    if (is_infinity()) return from_affine(o);
    Base u2 = o.x * zz;
    Base s2 = o.y * zzz;
    Base p = u2 - x;
    Base rr = s2 - y;
    if (p.is_zero()) return rr.is_zero() ? dbl() : infinity();
    Base pp = p.square();
    Base ppp = p * pp;
    Base q = x * pp;
    Xyzz r;
    r.x = rr.square() - ppp - q.dbl();
    r.y = Base::mul_sub(rr, q - r.x, y, ppp);
    r.zz = zz * pp;
    r.zzz = zzz * ppp;
    return r;
  }

  CUZK_HD constexpr Xyzz operator-(const Xyzz& o) const { return *this + (-o); }
  CUZK_HD constexpr Xyzz operator-(const AffinePoint& o) const { return *this + (-o); }
  CUZK_HD constexpr Xyzz& operator+=(const Xyzz& o) { return *this = *this + o; }
  CUZK_HD constexpr Xyzz& operator+=(const AffinePoint& o) { return *this = *this + o; }
  CUZK_HD constexpr Xyzz& operator-=(const Xyzz& o) { return *this = *this - o; }
  CUZK_HD constexpr Xyzz& operator-=(const AffinePoint& o) { return *this = *this - o; }

  template <size_t M>
  CUZK_HD constexpr Xyzz mul(const ff::BigInt<M>& k) const {
    return detail::window_mul(*this, k);
  }
  CUZK_HD constexpr Xyzz mul(const Scalar& k) const { return mul(k.to_canonical()); }
  CUZK_HD constexpr Xyzz operator*(const Scalar& k) const { return mul(k); }
  CUZK_HD constexpr Xyzz& operator*=(const Scalar& k) { return *this = mul(k); }
};

template <class C>
CUZK_HD constexpr Xyzz<C> operator*(const typename C::Scalar& k, const Xyzz<C>& p) {
  return p.mul(k);
}

}  // namespace cuzk::ec
