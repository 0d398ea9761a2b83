// Membership in the prime-order subgroup of order r.
//
//   is_in_subgroup_slow(P): [r]P == O, for any group; the reference.
//   is_in_subgroup(P):      the fastest published check for each group:
//     bn254 G1       cofactor 1: every point on the curve is in the subgroup;
//     bn254 G2       psi(P) == [6x^2]P (El Housni, Guillevic, Piellard 2022, sec. 6);
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

template <class C>
CUZK_HD constexpr bool is_in_subgroup(const Affine<C>& p) {
  if (p.is_infinity()) return true;
  using J = Jacobian<C>;
  J pj = J::from_affine(p);
  if constexpr (std::is_same_v<C, bn254::G1Config>) {
    return true;
  } else if constexpr (std::is_same_v<C, bn254::G2Config>) {
    constexpr auto k = bn254::SIX_X_SQUARED;
    return J::from_affine(bn254::psi(p)) == pj.mul(k);
  } else if constexpr (std::is_same_v<C, bls12_381::G1Config>) {
    constexpr auto x = bls12_381::X_ABS;
    return J::from_affine(bls12_381::phi(p)) == -pj.mul(x).mul(x);
  } else if constexpr (std::is_same_v<C, bls12_381::G2Config>) {
    constexpr auto x = bls12_381::X_ABS;
    return J::from_affine(bls12_381::psi(p)) == -pj.mul(x);
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
