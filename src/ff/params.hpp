// The four prime fields cuzk works in. Only the moduli are written by hand; every other
// Montgomery constant is derived from them at compile time (ff/fp.hpp).
#pragma once

#include "ff/bigint.hpp"

namespace cuzk::ff {

// BN254 (alt_bn128, snarkjs "bn128") base field q.
struct Bn254FqParams {
  static constexpr size_t N = 4;
  static constexpr BigInt<4> MODULUS =
      bigint_from_hex<4>("0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
  static constexpr uint64_t NONRESIDUE = 3;
  static constexpr const char* NAME = "bn254.Fq";
};

// BN254 scalar field r (the circuit field).
struct Bn254FrParams {
  static constexpr size_t N = 4;
  static constexpr BigInt<4> MODULUS =
      bigint_from_hex<4>("0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  static constexpr uint64_t NONRESIDUE = 5;
  static constexpr const char* NAME = "bn254.Fr";
};

// BLS12-381 base field q (381 bits).
struct Bls12381FqParams {
  static constexpr size_t N = 6;
  static constexpr BigInt<6> MODULUS = bigint_from_hex<6>(
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  static constexpr uint64_t NONRESIDUE = 2;
  static constexpr const char* NAME = "bls12_381.Fq";
};

// BLS12-381 scalar field r (255 bits).
struct Bls12381FrParams {
  static constexpr size_t N = 4;
  static constexpr BigInt<4> MODULUS =
      bigint_from_hex<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  static constexpr uint64_t NONRESIDUE = 5;
  static constexpr const char* NAME = "bls12_381.Fr";
};

}  // namespace cuzk::ff
