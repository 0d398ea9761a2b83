// Point serialization (host only). Three families, each with a writer and a validating
// reader that returns Result<Affine<C>> with one distinct message per failure:
//
// 1. zcash / bellperson / blst form, BLS12-381 only (C = bls12_381::G1Config or G2Config):
//      G1 compressed 48 B (x), uncompressed 96 B (x || y);
//      G2 compressed 96 B (x.c1 || x.c0), uncompressed 192 B (x.c1 || x.c0 || y.c1 || y.c0);
//      big-endian coordinates; the top three bits of byte 0 are flags:
//      0x80 compressed, 0x40 infinity (every other bit zero), 0x20 (compressed only)
//      "y is the lexicographically larger of y and -y" (Fq2: compare c1, then c0).
//        auto bytes = ec::zcash_encode(p, ec::Form::kCompressed);
//        auto r = ec::zcash_decode<bls12_381::G1Config>(bytes, ec::Form::kCompressed);
//        if (!r) return r.status();  // "bls12_381 G1 compressed: expected 48 bytes, got 47"
//
// 2. snarkjs binary form, both curves: affine x || y, each base-field element little-endian
//    Montgomery ("LEM"), Fq2 as c0 || c1; the point at infinity is all zero bytes.
//        ec::snarkjs_write(p, out);  auto r = ec::snarkjs_decode<bn254::G1Config>({in, 64});
//
// 3. snarkjs JSON decimal strings, both curves: G1 ["x", "y", "1"],
//    G2 [["x_c0", "x_c1"], ["y_c0", "y_c1"], ["1", "0"]]; infinity is what ffjavascript's
//    toObject writes: G1 ["0", "1", "0"], G2 [["0","0"], ["1","0"], ["0","0"]].
//    The reader also takes the two-coordinate form [x, y] that ffjavascript accepts.
//        ec::JsonPoint<C> j = ec::json_encode(p);  auto r = ec::json_decode<C>(j);
//
// Every reader checks: length / shape, coordinates < p, the point is on the curve, and
// (unless DecodeOptions::check_subgroup is false, for trusted files) that it lies in the
// prime-order subgroup. Messages start with "<curve> <group> <form>: ", e.g.
// "bn254 G2 snarkjs: point is not on the curve".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/status.hpp"
#include "ec/curves.hpp"

namespace cuzk::ec {

struct DecodeOptions {
  // The fast subgroup check costs about one scalar multiplication by a 64- or 128-bit
  // integer; turn it off only for files the caller already trusts.
  bool check_subgroup = true;
};

enum class Form { kCompressed, kUncompressed };

// True for the G2 configs (coordinates in Fq2).
template <class C>
inline constexpr bool kIsG2 = requires(typename C::Base b) { b.c1; };

// ---- zcash / bellperson (BLS12-381) ----

template <class C>
constexpr size_t zcash_size(Form form) {
  static_assert(std::is_same_v<C, bls12_381::G1Config> || std::is_same_v<C, bls12_381::G2Config>,
                "the zcash form is defined for BLS12-381 only");
  constexpr size_t coord = kIsG2<C> ? 96 : 48;  // one Fq2 or one Fq
  return form == Form::kCompressed ? coord : 2 * coord;
}

// Writes zcash_size<C>(form) bytes to out.
template <class C>
void zcash_write(const Affine<C>& p, Form form, uint8_t* out);

template <class C>
std::vector<uint8_t> zcash_encode(const Affine<C>& p, Form form) {
  std::vector<uint8_t> out(zcash_size<C>(form));
  zcash_write(p, form, out.data());
  return out;
}

template <class C>
Result<Affine<C>> zcash_decode(std::span<const uint8_t> in, Form form, DecodeOptions opts = {});

// ---- snarkjs binary (little-endian Montgomery) ----

template <class C>
constexpr size_t snarkjs_size() {
  return 2 * C::Base::BYTES;
}

// Writes snarkjs_size<C>() bytes to out.
template <class C>
void snarkjs_write(const Affine<C>& p, uint8_t* out);

template <class C>
std::vector<uint8_t> snarkjs_encode(const Affine<C>& p) {
  std::vector<uint8_t> out(snarkjs_size<C>());
  snarkjs_write(p, out.data());
  return out;
}

template <class C>
Result<Affine<C>> snarkjs_decode(std::span<const uint8_t> in, DecodeOptions opts = {});

// ---- snarkjs JSON decimal strings ----

template <class C>
using JsonPoint = std::conditional_t<kIsG2<C>, std::vector<std::vector<std::string>>, std::vector<std::string>>;

template <class C>
JsonPoint<C> json_encode(const Affine<C>& p);

template <class C>
Result<Affine<C>> json_decode(const JsonPoint<C>& in, DecodeOptions opts = {});

}  // namespace cuzk::ec
