// Membership in the prime-order subgroup of order r.
//
//   is_in_subgroup_slow(P): [r]P == O, for any group; the reference.
//   is_in_subgroup(P):      the fastest published check for each group:
//     bn254 G1       cofactor 1: every point on the curve is in the subgroup;
//     bn254 G2       [x+1]P + psi([x]P) + psi^2([x]P) == psi^3([2x]P) (Dai, Lin, Zhao, Zhou,
//                    "Fast subgroup membership testings for G1, G2 and GT on pairing-friendly
//                    curves", eprint 2022/348: valid as x != 4 mod 13 and x != 92 mod 97),
//                    one 63-bit multiplication instead of psi(P) == [6x^2]P's 127 bits;
//     bls12_381 G1   phi(P) == [-x^2]P (Scott 2021, "A note on group membership tests");
//     bls12_381 G2   psi(P) == [x]P    (Scott 2021).
// Both expect P on the curve (check that first with P.is_on_curve()); the point at
// infinity is in the subgroup. is_valid(P) does both.
#pragma once

#include <type_traits>

#include "core/hd.hpp"
#include "ec/curves.hpp"
#include "ec/endomorphism.hpp"
#include "ec/jacobian.hpp"

namespace cuzk::ec {

template <class C>
CUZK_HD constexpr bool is_in_subgroup_slow(const Affine<C>& p) {
  constexpr auto r = C::Scalar::MODULUS;
  return Jacobian<C>::from_affine(p).mul(r).is_infinity();
}

namespace detail {

// [k]P by left-to-right double-and-add, for a sparse public k: the BLS parameter has six
// set bits in 64, where the windowed mul's 14-point table would cost more than it saves.
// P is affine (mixed additions) or Jacobian.
template <class J, class Point, size_t M>
CUZK_HD constexpr J mul_binary(const Point& p, const ff::BigInt<M>& k) {
  J acc = J::infinity();
  for (size_t i = k.num_bits(); i-- > 0;) {
    acc = acc.dbl();
    if (k.bit(i)) acc += p;
  }
  return acc;
}

}  // namespace detail

template <class C>
CUZK_HD constexpr bool is_in_subgroup(const Affine<C>& p) {
  if (p.is_infinity()) return true;
  using J = Jacobian<C>;
  if constexpr (std::is_same_v<C, bn254::G1Config>) {
    return true;
  } else if constexpr (std::is_same_v<C, bn254::G2Config>) {
    constexpr auto x = bn254::X;
    const J q = J::from_affine(p);
    const J xq = q.mul(x);
    const J psi_xq = bn254::psi(xq);
    return xq + q + psi_xq + bn254::psi(psi_xq) == bn254::psi(bn254::psi(bn254::psi(xq.dbl())));
  } else if constexpr (std::is_same_v<C, bls12_381::G1Config>) {
    constexpr auto x = bls12_381::X_ABS;
    return J::from_affine(bls12_381::phi(p)) == -detail::mul_binary<J>(detail::mul_binary<J>(p, x), x);
  } else if constexpr (std::is_same_v<C, bls12_381::G2Config>) {
    constexpr auto x = bls12_381::X_ABS;
    return J::from_affine(bls12_381::psi(p)) == -detail::mul_binary<J>(p, x);
  } else {
    return is_in_subgroup_slow(p);
  }
}

// On the curve and in the prime-order subgroup.
template <class C>
CUZK_HD constexpr bool is_valid(const Affine<C>& p) {
  return p.is_on_curve() && is_in_subgroup(p);
}

}  // namespace cuzk::ec
