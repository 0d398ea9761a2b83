// XYZZ += affine (madd-2008-s, 8M + 2S) in place, with the products ordered so that at most
// seven coordinates are live at once. Bit-identical to Xyzz::operator+(Affine) (every value
// is fully reduced). Used by the device MSM's accumulation, where the live coordinates of a
// G2 addition (Fq2, 24 words each) decide the registers and so the occupancy.
//
// Mul is the multiplication policy: Mul::mul(a, b) returns a * b (PlainMul uses the field's
// own product; a policy may trade multiplications for live registers).
#pragma once

#include "core/hd.hpp"
#include "ec/curves.hpp"
#include "ec/xyzz.hpp"

namespace cuzk::ec {

struct PlainMul {
  template <class F>
  CUZK_INLINE static constexpr F mul(const F& a, const F& b) {
    return a * b;
  }
};

template <class M = PlainMul, class C>
CUZK_INLINE constexpr void madd_in_place(Xyzz<C>& a, const Affine<C>& o) {
  using Base = typename C::Base;
  if (o.is_infinity()) return;
  if (a.is_infinity()) {
    a = Xyzz<C>::from_affine(o);
    return;
  }
  const Base p = M::mul(o.x, a.zz) - a.x;
  const Base r = M::mul(o.y, a.zzz) - a.y;
  if (p.is_zero()) {
    // Doubling from a copy: a call on `a` itself would take its address and move the
    // accumulator out of registers for the whole kernel.
    const Xyzz<C> t = a;
    a = r.is_zero() ? t.dbl() : Xyzz<C>::infinity();
    return;
  }
  const Base pp = p.square();
  a.zz = M::mul(a.zz, pp);
  const Base q = M::mul(a.x, pp);
  const Base ppp = M::mul(p, pp);
  a.zzz = M::mul(a.zzz, ppp);
  a.x = r.square() - ppp - q.dbl();
  a.y = M::mul(r, q - a.x) - M::mul(a.y, ppp);
}

}  // namespace cuzk::ec
