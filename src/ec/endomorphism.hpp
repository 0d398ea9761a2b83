// The cheap endomorphisms the fast subgroup checks are built on.
//
// BLS12-381 G1: phi(x, y) = (beta x, y), beta a primitive cube root of unity in Fq,
// chosen so that phi acts on G1 as multiplication by -x^2 (x the BLS parameter).
// psi on G2 (both curves): untwist, Frobenius, twist. psi(x, y) = (cx conj(x), cy conj(y)),
// where for the M-type BLS12-381 twist cx = (1+u)^-((q-1)/3), cy = (1+u)^-((q-1)/2) and for
// the D-type BN254 twist cx = (9+u)^((q-1)/3), cy = (9+u)^((q-1)/2). On G2, psi acts as
// multiplication by q mod r, which is x for BLS12 and 6x^2 for BN.
// The constants were computed from those definitions; tests/ec recomputes them. Each is a
// constexpr local so that the hex parsing is folded at compile time, on the device too.
#pragma once

#include "core/hd.hpp"
#include "ec/curves.hpp"
#include "ec/jacobian.hpp"
#include "ff/bigint.hpp"

namespace cuzk::bls12_381 {

// |x| for the BLS parameter x = -0xd201000000010000.
inline constexpr ff::BigInt<1> X_ABS = {{0xd201000000010000ull}};

CUZK_INLINE constexpr Fq glv_beta() {
  constexpr Fq beta =
      ec::detail::hex<Fq>("0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
  return beta;
}

CUZK_INLINE constexpr G1Affine phi(const G1Affine& p) { return {p.x * glv_beta(), p.y}; }

CUZK_INLINE constexpr Fq2 psi_cx() {
  constexpr Fq2 c = ec::detail::hex2<Fq2>(
      "0x0",
      "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad");
  return c;
}
CUZK_INLINE constexpr Fq2 psi_cy() {
  constexpr Fq2 c = ec::detail::hex2<Fq2>(
      "0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2",
      "0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09");
  return c;
}

CUZK_INLINE constexpr G2Affine psi(const G2Affine& p) {
  return {p.x.conjugate() * psi_cx(), p.y.conjugate() * psi_cy()};
}

}  // namespace cuzk::bls12_381

namespace cuzk::bn254 {

// The BN parameter x = 4965661367192848881, and 6x^2 (the trace minus one).
inline constexpr ff::BigInt<1> X = {{4965661367192848881ull}};
inline constexpr ff::BigInt<2> SIX_X_SQUARED = ff::bigint_from_hex<2>("0x6f4d8248eeb859fbf83e9682e87cfd46");

CUZK_INLINE constexpr Fq2 psi_cx() {
  constexpr Fq2 c = ec::detail::hex2<Fq2>("0x2fb347984f7911f74c0bec3cf559b143b78cc310c2c3330c99e39557176f553d",
                               "0x16c9e55061ebae204ba4cc8bd75a079432ae2a1d0b7c9dce1665d51c640fcba2");
  return c;
}
CUZK_INLINE constexpr Fq2 psi_cy() {
  constexpr Fq2 c = ec::detail::hex2<Fq2>("0x063cf305489af5dcdc5ec698b6e2f9b9dbaae0eda9c95998dc54014671a0135a",
                               "0x07c03cbcac41049a0704b5a7ec796f2b21807dc98fa25bd282d37f632623b0e3");
  return c;
}

CUZK_INLINE constexpr G2Affine psi(const G2Affine& p) {
  return {p.x.conjugate() * psi_cx(), p.y.conjugate() * psi_cy()};
}

// psi in Jacobian coordinates: conjugation is a field automorphism, so conj(X)/conj(Z)^2 is
// conj(x) and Z only needs conjugating.
CUZK_INLINE constexpr ec::Jacobian<G2Config> psi(const ec::Jacobian<G2Config>& p) {
  return {p.x.conjugate() * psi_cx(), p.y.conjugate() * psi_cy(), p.z.conjugate()};
}

}  // namespace cuzk::bn254
