// The four prime-order groups cuzk works with, as short Weierstrass curves y^2 = x^3 + b
// over Fq (G1) or Fq2 (G2, the sextic twist), and the point types over them.
//
// A curve config C supplies:
//   using Base = ...;    // Fq or Fq2
//   using Scalar = ...;  // Fr
//   static constexpr Base b();            // the curve coefficient
//   static constexpr Affine<C> generator();
//   static constexpr const char* NAME;
#pragma once

#include "core/hd.hpp"
#include "ff/fields.hpp"

namespace cuzk::ec {

// An affine point. The point at infinity is (0, 0), which is never on these curves
// (b != 0); this matches snarkjs's binary form and keeps key points at two coordinates.
template <class C>
struct Affine {
  using Base = typename C::Base;
  using Curve = C;
  Base x, y;

  CUZK_INLINE static constexpr Affine infinity() { return {Base::zero(), Base::zero()}; }
  CUZK_INLINE constexpr bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  CUZK_INLINE constexpr bool operator==(const Affine& o) const { return x == o.x && y == o.y; }
  CUZK_INLINE constexpr bool operator!=(const Affine& o) const { return !(*this == o); }
  // -(0, 0) is (0, 0) again, so infinity needs no special case.
  CUZK_INLINE constexpr Affine operator-() const { return {x, -y}; }
  // y^2 == x^3 + b, or the point at infinity.
  CUZK_INLINE constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    return y.square() == x.square() * x + C::b();
  }
};

namespace detail {
template <class F>
constexpr F hex(const char* s) {
  return F::from_canonical(ff::bigint_from_hex<F::N>(s));
}
template <class F2>
constexpr F2 hex2(const char* c0, const char* c1) {
  using F = typename F2::Fq;
  return F2(hex<F>(c0), hex<F>(c1));
}
}  // namespace detail

}  // namespace cuzk::ec

namespace cuzk::bn254 {

struct G1Config {
  using Base = Fq;
  using Scalar = Fr;
  static constexpr const char* NAME = "bn254.G1";
  CUZK_INLINE static constexpr Fq b() { return Fq::from_u64(3); }
  CUZK_INLINE static constexpr ec::Affine<G1Config> generator() { return {Fq::from_u64(1), Fq::from_u64(2)}; }
};

// D-type twist: b' = 3 / (9 + u).
struct G2Config {
  using Base = Fq2;
  using Scalar = Fr;
  static constexpr const char* NAME = "bn254.G2";
  CUZK_INLINE static constexpr Fq2 b() {
    return ec::detail::hex2<Fq2>("0x2b149d40ceb8aaae81be18991be06ac3b5b4c5e559dbefa33267e6dc24a138e5",
                                 "0x009713b03af0fed4cd2cafadeed8fdf4a74fa084e52d1852e4a2bd0685c315d2");
  }
  CUZK_INLINE static constexpr ec::Affine<G2Config> generator() {
    return {ec::detail::hex2<Fq2>("0x1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed",
                                  "0x198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2"),
            ec::detail::hex2<Fq2>("0x12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa",
                                  "0x090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b")};
  }
};

using G1Affine = ec::Affine<G1Config>;
using G2Affine = ec::Affine<G2Config>;

}  // namespace cuzk::bn254

namespace cuzk::bls12_381 {

struct G1Config {
  using Base = Fq;
  using Scalar = Fr;
  static constexpr const char* NAME = "bls12_381.G1";
  CUZK_INLINE static constexpr Fq b() { return Fq::from_u64(4); }
  CUZK_INLINE static constexpr ec::Affine<G1Config> generator() {
    return {ec::detail::hex<Fq>("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
            ec::detail::hex<Fq>("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};
  }
};

// M-type twist: b' = 4 (1 + u).
struct G2Config {
  using Base = Fq2;
  using Scalar = Fr;
  static constexpr const char* NAME = "bls12_381.G2";
  CUZK_INLINE static constexpr Fq2 b() { return Fq2(Fq::from_u64(4), Fq::from_u64(4)); }
  CUZK_INLINE static constexpr ec::Affine<G2Config> generator() {
    return {ec::detail::hex2<Fq2>(
                "0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
                "0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"),
            ec::detail::hex2<Fq2>(
                "0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
                "0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")};
  }
};

using G1Affine = ec::Affine<G1Config>;
using G2Affine = ec::Affine<G2Config>;

}  // namespace cuzk::bls12_381

// Per-curve bundles: what the layers above (poly, msm, groth16, formats) are templated on.
namespace cuzk::bn254 {
struct Curve {
  using Fr = bn254::Fr;
  using Fq = bn254::Fq;
  using Fq2 = bn254::Fq2;
  using Fq12 = bn254::Fq12;
  using G1 = G1Config;
  using G2 = G2Config;
  static constexpr const char* NAME = "bn254";
  static constexpr const char* SNARKJS_NAME = "bn128";
};
}  // namespace cuzk::bn254

namespace cuzk::bls12_381 {
struct Curve {
  using Fr = bls12_381::Fr;
  using Fq = bls12_381::Fq;
  using Fq2 = bls12_381::Fq2;
  using Fq12 = bls12_381::Fq12;
  using G1 = G1Config;
  using G2 = G2Config;
  static constexpr const char* NAME = "bls12_381";
  static constexpr const char* SNARKJS_NAME = "bls12381";
};
}  // namespace cuzk::bls12_381
