// The GLV method for G1 MSMs on BN254 and BLS12-381 (Gallant, Lambert, Vanstone 2001).
//
// Both curves have j-invariant 0, so phi(x, y) = (beta·x, y), beta a cube root of unity in
// Fq, is an endomorphism that acts on G1 as multiplication by a cube root of unity lambda
// in Fr. A scalar k < r splits as k = k1 + k2·lambda (mod r) with |k1|, |k2| < 2^128, and
// then k·P = k1·P + k2·phi(P): an MSM over m points with 255-bit scalars becomes one over
// 2m points with 128-bit scalars. The bucket additions stay the same in number, but there
// are half as many windows whose buckets must be summed, and phi(P) costs one product.
//
// The split is Babai rounding against a short basis (a1, b1), (a2, b2) of the lattice
// {(x, y) : x + y·lambda = 0 mod r}: c1 = round(b2·k/r), c2 = round(−b1·k/r) (taken as
// (k·g1) >> 256 and (k·g2) >> 256 with g = round(2^256·b2/r), round(−2^256·b1/r)), then
// k1 = k − c1·a1 − c2·a2 and k2 = −c1·b1 − c2·b2. The constants below were computed from
// those definitions (extended Euclid on r and lambda); tests/msm checks every one of them:
// the basis against lambda, lambda against phi on the generator, and the split's range
// and congruence on random and edge scalars. Signed constants are 256-bit two's
// complement, and the split's arithmetic runs modulo 2^256, where the results (below 2^128
// in magnitude) are exact.
#pragma once

#include <cstdint>

#include "ec/curves.hpp"
#include "ec/endomorphism.hpp"
#include "ff/bigint.hpp"

namespace cuzk::msm {

using U256 = ff::BigInt<4>;

// k = k1 + k2·lambda (mod r), as magnitudes and signs.
struct GlvSplit {
  ff::BigInt<2> k1, k2;
  bool neg1 = false, neg2 = false;
};

struct GlvLattice {
  U256 a1, b1, a2, b2;  // the basis (two's complement)
  U256 g1, g2;          // round(2^256·b2/r), round(−2^256·b1/r)
};

namespace detail {

// The 512-bit product a·b as eight limbs.
inline void mul_wide(const U256& a, const U256& b, uint64_t out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = 0;
  for (int i = 0; i < 4; ++i) {
    uint64_t carry = 0;
    for (int j = 0; j < 4; ++j) out[i + j] = ff::mac(out[i + j], a.limb[i], b.limb[j], carry);
    out[i + 4] = carry;
  }
}

inline U256 mul_high(const U256& a, const U256& b) {
  uint64_t w[8];
  mul_wide(a, b, w);
  return U256{{w[4], w[5], w[6], w[7]}};
}

inline U256 mul_low(const U256& a, const U256& b) {
  uint64_t w[8];
  mul_wide(a, b, w);
  return U256{{w[0], w[1], w[2], w[3]}};
}

// |v| and its sign for v in (−2^128, 2^128) held as 256-bit two's complement.
inline void signed_magnitude(U256 v, ff::BigInt<2>& mag, bool& neg) {
  neg = (v.limb[3] >> 63) != 0;
  if (neg) {
    U256 zero{};
    zero.sub_in_place(v);
    v = zero;
  }
  mag = ff::BigInt<2>{{v.limb[0], v.limb[1]}};
}

}  // namespace detail

inline GlvSplit glv_split(const U256& k, const GlvLattice& l) {
  const U256 c1 = detail::mul_high(k, l.g1), c2 = detail::mul_high(k, l.g2);
  U256 k1 = k, k2{};
  k1.sub_in_place(detail::mul_low(c1, l.a1));
  k1.sub_in_place(detail::mul_low(c2, l.a2));
  k2.sub_in_place(detail::mul_low(c1, l.b1));
  k2.sub_in_place(detail::mul_low(c2, l.b2));
  GlvSplit s;
  detail::signed_magnitude(k1, s.k1, s.neg1);
  detail::signed_magnitude(k2, s.k2, s.neg2);
  return s;
}

// The endomorphism data of a group; kEnabled is false where cuzk has none (G2).
template <class C>
struct Glv {
  static constexpr bool kEnabled = false;
};

template <>
struct Glv<bn254::G1Config> {
  static constexpr bool kEnabled = true;
  static constexpr size_t kBits = 128;  // |k1|, |k2| < 2^kBits
  static bn254::Fq beta() {
    static const bn254::Fq b =
        ec::detail::hex<bn254::Fq>("0x30644e72e131a0295e6dd9e7e0acccb0c28f069fbb966e3de4bd44e5607cfd48");
    return b;
  }
  static bn254::Fr lambda() {
    static const bn254::Fr l =
        ec::detail::hex<bn254::Fr>("0x30644e72e131a029048b6e193fd84104cc37a73fec2bc5e9b8ca0b2d36636f23");
    return l;
  }
  static const GlvLattice& lattice() {
    static const GlvLattice l{
        ff::bigint_from_hex<4>("0x6f4d8248eeb859fc8211bbeb7d4f1128"),
        ff::bigint_from_hex<4>("0xffffffffffffffffffffffffffffffffffffffffffffffff762cda976b2dec1d"),
        ff::bigint_from_hex<4>("0x89d3256894d213e3"),
        ff::bigint_from_hex<4>("0x6f4d8248eeb859fd0be4e1541221250b"),
        ff::bigint_from_hex<4>("0x24ccef014a773d2d25398fd0300ff6565"),
        ff::bigint_from_hex<4>("0x2d91d232ec7e0b3d7"),
    };
    return l;
  }
};

template <>
struct Glv<bls12_381::G1Config> {
  static constexpr bool kEnabled = true;
  static constexpr size_t kBits = 128;
  static bls12_381::Fq beta() { return bls12_381::glv_beta(); }
  static bls12_381::Fr lambda() {
    static const bls12_381::Fr l =
        ec::detail::hex<bls12_381::Fr>("0x73eda753299d7d483339d80809a1d804a7780001fffcb7fcfffffffe00000001");
    return l;
  }
  static const GlvLattice& lattice() {
    static const GlvLattice l{
        ff::bigint_from_hex<4>("0x1"),
        ff::bigint_from_hex<4>("0xffffffffffffffffffffffffffffffff53ba5bfefffe5bfdffffffff00000001"),
        ff::bigint_from_hex<4>("0xac45a4010001a4020000000100000000"),
        ff::bigint_from_hex<4>("0x1"),
        ff::bigint_from_hex<4>("0x2"),
        ff::bigint_from_hex<4>("0x17c6becf1e01faadd63f6e522f6cfee2e"),
    };
    return l;
  }
};

}  // namespace cuzk::msm
