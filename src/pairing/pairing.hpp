// Optimal ate pairings on BN254 and BLS12-381, for verification on the CPU.
//
// Values are the standard reduced pairing e(P, Q) = f_{P,Q}^((q^12 - 1)/r) in the tower
// Fq12 = Fq6[w]/(w^2 - v), Fq6 = Fq2[v]/(v^3 - xi). Inputs are affine points assumed on
// their curves and in their prime-order subgroups (the caller checks untrusted points);
// a pair with either point at infinity contributes 1.
#pragma once

#include <span>
#include <utility>

#include "ec/curves.hpp"

namespace cuzk::pairing {

using Bn254Pair = std::pair<bn254::G1Affine, bn254::G2Affine>;
using Bls12381Pair = std::pair<bls12_381::G1Affine, bls12_381::G2Affine>;

// prod_i f(P_i, Q_i) before the final exponentiation, over one shared squaring chain.
bn254::Fq12 miller_loop(std::span<const Bn254Pair> pairs);
bls12_381::Fq12 miller_loop(std::span<const Bls12381Pair> pairs);

// f^((q^12 - 1)/r).
bn254::Fq12 final_exponentiation(const bn254::Fq12& f);
bls12_381::Fq12 final_exponentiation(const bls12_381::Fq12& f);

// The fixed power of f^((q^12 - 1)/r) that @noble/curves and snarkjs return, for
// byte-for-byte agreement with them: e^(2x(6x^2 + 3x + 1)) on BN254 (x the BN parameter),
// e^3 on BLS12-381. Bilinear and non-degenerate like the standard one.
bn254::Fq12 final_exponentiation_compat(const bn254::Fq12& f);
bls12_381::Fq12 final_exponentiation_compat(const bls12_381::Fq12& f);

bn254::Fq12 pairing(const bn254::G1Affine& p, const bn254::G2Affine& q);
bls12_381::Fq12 pairing(const bls12_381::G1Affine& p, const bls12_381::G2Affine& q);
bn254::Fq12 pairing_compat(const bn254::G1Affine& p, const bn254::G2Affine& q);
bls12_381::Fq12 pairing_compat(const bls12_381::G1Affine& p, const bls12_381::G2Affine& q);

// prod_i e(P_i, Q_i) == 1, with one Miller loop and one final exponentiation: the
// Groth16 verification equation.
bool pairing_product_is_one(std::span<const Bn254Pair> pairs);
bool pairing_product_is_one(std::span<const Bls12381Pair> pairs);

}  // namespace cuzk::pairing
