// XYZZ additions in place (madd-2008-s, 8M + 2S; add-2008-s, 12M + 2S) with the products
// ordered so that few coordinates are live at once, and every product and square taken
// through a policy M: M::mul(a, b) = a * b, M::sqr(a) = a^2, and where M has it
// M::mul_sub(a, b, c, d) = a * b - c * d (PlainMul: the field's, which on the device
// shares one reduction between the products). Bit-identical to
// Xyzz::operator+ (every value is fully reduced).
//
// Used by the device MSM: over Fq2 one G2 addition inlined is tens of thousands of
// instructions, more than the instruction caches hold once the warps of a multiprocessor
// drift apart; a policy that keeps the Fq2 product out of line shrinks it to one copy.
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
  template <class F>
  CUZK_INLINE static constexpr F sqr(const F& a) {
    return a.square();
  }
  template <class F>
  CUZK_INLINE static constexpr F mul_sub(const F& a, const F& b, const F& c, const F& d) {
    return F::mul_sub(a, b, c, d);
  }
};

// a * b - c * d through M: its mul_sub where it has one, else two products.
template <class M, class F>
CUZK_INLINE constexpr F policy_mul_sub(const F& a, const F& b, const F& c, const F& d) {
  if constexpr (requires { M::mul_sub(a, b, c, d); }) {
    return M::mul_sub(a, b, c, d);
  } else {
    return M::mul(a, b) - M::mul(c, d);
  }
}

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
  const Base pp = M::sqr(p);
  a.zz = M::mul(a.zz, pp);
  const Base q = M::mul(a.x, pp);
  const Base ppp = M::mul(p, pp);
  a.zzz = M::mul(a.zzz, ppp);
  a.x = M::sqr(r) - ppp - q.dbl();
  a.y = policy_mul_sub<M>(r, q - a.x, a.y, ppp);
}

template <class M = PlainMul, class C>
CUZK_INLINE constexpr void add_in_place(Xyzz<C>& a, const Xyzz<C>& o) {
  using Base = typename C::Base;
  if (o.is_infinity()) return;
  if (a.is_infinity()) {
    a = o;
    return;
  }
  const Base u1 = M::mul(a.x, o.zz);
  const Base s1 = M::mul(a.y, o.zzz);
  const Base p = M::mul(o.x, a.zz) - u1;
  const Base r = M::mul(o.y, a.zzz) - s1;
  if (p.is_zero()) {
    const Xyzz<C> t = a;
    a = r.is_zero() ? t.dbl() : Xyzz<C>::infinity();
    return;
  }
  const Base pp = M::sqr(p);
  const Base ppp = M::mul(p, pp);
  const Base q = M::mul(u1, pp);
  a.zz = M::mul(M::mul(a.zz, o.zz), pp);
  a.zzz = M::mul(M::mul(a.zzz, o.zzz), ppp);
  a.x = M::sqr(r) - ppp - q.dbl();
  a.y = policy_mul_sub<M>(r, q - a.x, s1, ppp);
}

}  // namespace cuzk::ec
