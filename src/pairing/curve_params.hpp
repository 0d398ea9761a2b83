// What the optimal ate pairing needs to know about each curve: the curve parameter x,
// the Miller loop count, and which sextic twist carries G2.
#pragma once

#include <cstdint>

#include "ec/curves.hpp"
#include "pairing/frobenius.hpp"

namespace cuzk::pairing {

// D-type: E'(Fq2): y^2 = x^3 + b/xi, untwisted by (x, y) -> (x w^2, y w^3).
// M-type: E'(Fq2): y^2 = x^3 + b*xi, untwisted by (x, y) -> (x / w^2, y / w^3).
enum class Twist { D, M };

// The family fixes the Miller loop's shape and the final exponentiation's hard part.
enum class Family { BN, BLS12 };

struct Bn254Pairing {
  using Cfg = bn254::TowerConfig;
  using Fq = bn254::Fq;
  using Fq2 = bn254::Fq2;
  using Fq6 = bn254::Fq6;
  using Fq12 = bn254::Fq12;
  using G1Affine = bn254::G1Affine;
  using G2Affine = bn254::G2Affine;
  static constexpr Family FAMILY = Family::BN;
  static constexpr Twist TWIST = Twist::D;
  static constexpr uint64_t X_ABS = 4965661367192848881ULL;
  static constexpr bool X_NEGATIVE = false;
  // Optimal ate: f_{6x+2,Q} times the lines through pi(Q) and -pi^2(Q).
  static constexpr SignedDigits LOOP = signed_digits((unsigned __int128)X_ABS * 6 + 2);
  static Fq2 mul_by_3b(const Fq2& z) {
    static constexpr Fq2 three_b = ff::mul_small(bn254::G2Config::b(), 3);
    return z * three_b;
  }
};

struct Bls12381Pairing {
  using Cfg = bls12_381::TowerConfig;
  using Fq = bls12_381::Fq;
  using Fq2 = bls12_381::Fq2;
  using Fq6 = bls12_381::Fq6;
  using Fq12 = bls12_381::Fq12;
  using G1Affine = bls12_381::G1Affine;
  using G2Affine = bls12_381::G2Affine;
  static constexpr Family FAMILY = Family::BLS12;
  static constexpr Twist TWIST = Twist::M;
  static constexpr uint64_t X_ABS = 0xd201000000010000ULL;
  static constexpr bool X_NEGATIVE = true;
  // Optimal ate: f_{x,Q}; x < 0 is handled by a final conjugation.
  static constexpr SignedDigits LOOP = signed_digits(X_ABS);
  // 3 b' = 12 (1 + u) = 12 xi: a multiplication by xi and a few additions.
  static Fq2 mul_by_3b(const Fq2& z) { return ff::mul_small(z.mul_by_nonresidue(), 12); }
};

// The pairing parameters of a curve bundle (ec/curves.hpp): PairingFor<bn254::Curve>::type.
template <class Curve>
struct PairingFor;
template <>
struct PairingFor<bn254::Curve> {
  using type = Bn254Pairing;
};
template <>
struct PairingFor<bls12_381::Curve> {
  using type = Bls12381Pairing;
};

}  // namespace cuzk::pairing
