// Jacobian projective points (X, Y, Z) with x = X/Z^2, y = Y/Z^3, for a = 0 curves.
// Infinity is Z = 0. The sum and the mixed sum handle P == Q, P == -Q and infinity
// on either side, so callers never need to special-case their inputs.
#pragma once

#include "core/hd.hpp"
#include "ec/curves.hpp"
#include "ec/scalar_mul.hpp"

namespace cuzk::ec {

template <class C>
struct Jacobian {
  using Base = typename C::Base;
  using Scalar = typename C::Scalar;
  using Curve = C;
  using AffinePoint = Affine<C>;

  Base x, y, z;

  CUZK_INLINE static constexpr Jacobian infinity() { return {Base::one(), Base::one(), Base::zero()}; }
  CUZK_INLINE static constexpr Jacobian from_affine(const AffinePoint& a) {
    if (a.is_infinity()) return infinity();
    return {a.x, a.y, Base::one()};
  }
  CUZK_INLINE static constexpr Jacobian generator() { return from_affine(C::generator()); }

  CUZK_INLINE constexpr bool is_infinity() const { return z.is_zero(); }

  // One field inversion; use batch_to_affine (ec/batch_affine.hpp) for many points.
  CUZK_HD constexpr AffinePoint to_affine() const {
    if (is_infinity()) return AffinePoint::infinity();
    Base zi = z.inverse();
    Base zi2 = zi.square();
    return {x * zi2, y * zi2 * zi};
  }

  // Y^2 = X^3 + b Z^6.
  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    Base z2 = z.square();
    Base z6 = z2.square() * z2;
    return y.square() == x.square() * x + C::b() * z6;
  }

  // Same point, whatever the representatives: X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3.
  CUZK_HD constexpr bool operator==(const Jacobian& o) const {
    if (is_infinity() || o.is_infinity()) return is_infinity() && o.is_infinity();
    Base z1z1 = z.square();
    Base z2z2 = o.z.square();
    if (x * z2z2 != o.x * z1z1) return false;
    return y * z2z2 * o.z == o.y * z1z1 * z;
  }
  CUZK_HD constexpr bool operator!=(const Jacobian& o) const { return !(*this == o); }

  CUZK_INLINE constexpr Jacobian operator-() const { return {x, -y, z}; }

  // dbl-2009-l (a = 0): 2M + 5S. A point with y = 0 (order 2) gives Z3 = 0, as it should.
  CUZK_HD constexpr Jacobian dbl() const {
    if (is_infinity()) return *this;
    Base a = x.square();
    Base b = y.square();
    Base c = b.square();
    Base d = ((x + b).square() - a - c).dbl();
    Base e = a.dbl() + a;
    Base f = e.square();
    Jacobian r;
    r.x = f - d.dbl();
    r.y = e * (d - r.x) - c.dbl().dbl().dbl();
    r.z = (y * z).dbl();
    return r;
  }

  // add-2007-bl: 11M + 5S, falling back to dbl() when the inputs are equal.
  CUZK_HD constexpr Jacobian operator+(const Jacobian& o) const {
    if (is_infinity()) return o;
    if (o.is_infinity()) return *this;
    Base z1z1 = z.square();
    Base z2z2 = o.z.square();
    Base u1 = x * z2z2;
    Base u2 = o.x * z1z1;
    Base s1 = y * o.z * z2z2;
    Base s2 = o.y * z * z1z1;
    Base h = u2 - u1;
    Base rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : infinity();
    Base i = h.dbl().square();
    Base j = h * i;
    Base v = u1 * i;
    Jacobian r;
    r.x = rr.square() - j - v.dbl();
    r.y = rr * (v - r.x) - (s1 * j).dbl();
    r.z = ((z + o.z).square() - z1z1 - z2z2) * h;
    return r;
  }

  // madd-2007-bl (Z2 = 1): 7M + 4S.
  CUZK_HD constexpr Jacobian operator+(const AffinePoint& o) const {
    if (o.is_infinity()) return *this;
    if (is_infinity()) return from_affine(o);
    Base z1z1 = z.square();
    Base u2 = o.x * z1z1;
    Base s2 = o.y * z * z1z1;
    Base h = u2 - x;
    Base rr = (s2 - y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : infinity();
    Base hh = h.square();
    Base i = hh.dbl().dbl();
    Base j = h * i;
    Base v = x * i;
    Jacobian r;
    r.x = rr.square() - j - v.dbl();
    r.y = rr * (v - r.x) - (y * j).dbl();
    r.z = (z + h).square() - z1z1 - hh;
    return r;
  }

  CUZK_HD constexpr Jacobian operator-(const Jacobian& o) const { return *this + (-o); }
  CUZK_HD constexpr Jacobian operator-(const AffinePoint& o) const { return *this + (-o); }
  CUZK_HD constexpr Jacobian& operator+=(const Jacobian& o) { return *this = *this + o; }
  CUZK_HD constexpr Jacobian& operator+=(const AffinePoint& o) { return *this = *this + o; }
  CUZK_HD constexpr Jacobian& operator-=(const Jacobian& o) { return *this = *this - o; }
  CUZK_HD constexpr Jacobian& operator-=(const AffinePoint& o) { return *this = *this - o; }

  // [k]P for a plain integer k (any width).
  template <size_t M>
  CUZK_HD constexpr Jacobian mul(const ff::BigInt<M>& k) const {
    return detail::window_mul(*this, k);
  }
  // [k]P for a scalar field element, using its canonical value.
  CUZK_HD constexpr Jacobian mul(const Scalar& k) const { return mul(k.to_canonical()); }
  CUZK_HD constexpr Jacobian operator*(const Scalar& k) const { return mul(k); }
  CUZK_HD constexpr Jacobian& operator*=(const Scalar& k) { return *this = mul(k); }
};

template <class C>
CUZK_HD constexpr Jacobian<C> operator*(const typename C::Scalar& k, const Jacobian<C>& p) {
  return p.mul(k);
}

}  // namespace cuzk::ec
