// Every encoding round-trips, and every malformed input is rejected with its own message.
#include "ec/encoding.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ec/points.hpp"
#include "ec/subgroup.hpp"
#include "ff/decimal.hpp"
#include "random_points.hpp"

namespace cuzk::ec {
namespace {

using fixtures::random_curve_point;
using fixtures::random_x_off_curve;
using Bytes = std::vector<uint8_t>;

template <class C, class Rng>
Affine<C> subgroup_point(Rng& rng) {
  return (Jacobian<C>::generator() * C::Scalar::random(rng)).to_affine();
}

std::vector<uint8_t> from_hex(const std::string& h) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(uint8_t(std::stoul(h.substr(i, 2), nullptr, 16)));
  return out;
}

// The decoder must fail, and its message must contain `needle`.
template <class R>
void expect_error(const R& r, const std::string& needle) {
  ASSERT_FALSE(r.is_ok()) << "expected an error containing \"" << needle << "\"";
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
}

// The big-endian bytes of the modulus q of BLS12-381.
Bytes bls_q_be() {
  Bytes q(48);
  bls12_381::Fq::write_be(bls12_381::Fq::MODULUS, q.data());
  return q;
}

// ---- zcash / bellperson ----

using bls12_381::G1Config;
using bls12_381::G2Config;

template <class C>
class ZcashTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0xec0003};
};
using BlsGroups = ::testing::Types<G1Config, G2Config>;
TYPED_TEST_SUITE(ZcashTest, BlsGroups);

TYPED_TEST(ZcashTest, RoundTripsInBothForms) {
  for (Form form : {Form::kCompressed, Form::kUncompressed}) {
    for (int i = 0; i < 8; ++i) {
      auto p = subgroup_point<TypeParam>(this->rng);
      for (auto q : {p, -p}) {
        auto bytes = zcash_encode(q, form);
        ASSERT_EQ(bytes.size(), zcash_size<TypeParam>(form));
        EXPECT_EQ(bool(bytes[0] & 0x80), form == Form::kCompressed);
        auto r = zcash_decode<TypeParam>(bytes, form);
        ASSERT_TRUE(r.is_ok()) << r.status().message();
        EXPECT_EQ(*r, q);
      }
    }
  }
}

TYPED_TEST(ZcashTest, SortFlagSeparatesPointFromItsNegation) {
  auto p = subgroup_point<TypeParam>(this->rng);
  auto a = zcash_encode(p, Form::kCompressed);
  auto b = zcash_encode(-p, Form::kCompressed);
  EXPECT_NE(a[0] & 0x20, b[0] & 0x20);
  a[0] &= 0x1f;
  b[0] &= 0x1f;
  EXPECT_EQ(a, b);
}

TYPED_TEST(ZcashTest, InfinityIsFlagOnly) {
  using A = Affine<TypeParam>;
  auto c = zcash_encode(A::infinity(), Form::kCompressed);
  auto u = zcash_encode(A::infinity(), Form::kUncompressed);
  EXPECT_EQ(c[0], 0xc0);
  EXPECT_EQ(u[0], 0x40);
  for (size_t i = 1; i < c.size(); ++i) EXPECT_EQ(c[i], 0);
  for (size_t i = 1; i < u.size(); ++i) EXPECT_EQ(u[i], 0);
  EXPECT_TRUE(zcash_decode<TypeParam>(c, Form::kCompressed)->is_infinity());
  EXPECT_TRUE(zcash_decode<TypeParam>(u, Form::kUncompressed)->is_infinity());
}

TYPED_TEST(ZcashTest, RejectsWrongLength) {
  const bool g2 = kIsG2<TypeParam>;
  auto p = subgroup_point<TypeParam>(this->rng);
  auto c = zcash_encode(p, Form::kCompressed);
  c.pop_back();
  expect_error(zcash_decode<TypeParam>(c, Form::kCompressed),
               std::string(g2 ? "bls12_381 G2" : "bls12_381 G1") + " compressed: expected " +
                   (g2 ? "96 bytes, got 95" : "48 bytes, got 47"));
  auto u = zcash_encode(p, Form::kUncompressed);
  u.push_back(0);
  expect_error(zcash_decode<TypeParam>(u, Form::kUncompressed),
               std::string("uncompressed: expected ") + (g2 ? "192 bytes, got 193" : "96 bytes, got 97"));
}

TYPED_TEST(ZcashTest, RejectsCompressionFlagThatDoesNotMatchTheForm) {
  auto p = subgroup_point<TypeParam>(this->rng);
  auto c = zcash_encode(p, Form::kCompressed);
  c[0] &= 0x7f;
  expect_error(zcash_decode<TypeParam>(c, Form::kCompressed), "compression flag is not set, expected a compressed");
  auto u = zcash_encode(p, Form::kUncompressed);
  u[0] |= 0x80;
  expect_error(zcash_decode<TypeParam>(u, Form::kUncompressed), "compression flag is set, expected an uncompressed");
}

TYPED_TEST(ZcashTest, RejectsSortFlagOnUncompressedOrInfinity) {
  auto u = zcash_encode(subgroup_point<TypeParam>(this->rng), Form::kUncompressed);
  u[0] |= 0x20;
  expect_error(zcash_decode<TypeParam>(u, Form::kUncompressed), "sort flag is set on an uncompressed point");
  auto inf = zcash_encode(Affine<TypeParam>::infinity(), Form::kCompressed);
  inf[0] |= 0x20;
  expect_error(zcash_decode<TypeParam>(inf, Form::kCompressed), "sort flag is set on the point at infinity");
}

TYPED_TEST(ZcashTest, RejectsNonCanonicalInfinity) {
  for (Form form : {Form::kCompressed, Form::kUncompressed}) {
    auto low_bit = zcash_encode(Affine<TypeParam>::infinity(), form);
    low_bit.back() = 1;
    expect_error(zcash_decode<TypeParam>(low_bit, form), "non-canonical infinity");
    auto first_byte = zcash_encode(Affine<TypeParam>::infinity(), form);
    first_byte[0] |= 0x01;
    expect_error(zcash_decode<TypeParam>(first_byte, form), "non-canonical infinity");
    // A real point's coordinates under the infinity flag.
    auto p = zcash_encode(subgroup_point<TypeParam>(this->rng), form);
    p[0] = (p[0] & 0x9f) | 0x40;
    expect_error(zcash_decode<TypeParam>(p, form), "non-canonical infinity");
  }
}

TYPED_TEST(ZcashTest, RejectsCoordinateNotLessThanModulus) {
  const bool g2 = kIsG2<TypeParam>;
  const Bytes q = bls_q_be();
  auto c = zcash_encode(subgroup_point<TypeParam>(this->rng), Form::kCompressed);
  std::copy(q.begin(), q.end(), c.begin());  // x, or x.c1 for G2
  c[0] |= 0x80;
  expect_error(zcash_decode<TypeParam>(c, Form::kCompressed),
               std::string(g2 ? "x.c1" : "x") + " is not less than the field modulus");
  auto u = zcash_encode(subgroup_point<TypeParam>(this->rng), Form::kUncompressed);
  std::copy(q.begin(), q.end(), u.end() - 48);  // y, or y.c0 for G2
  expect_error(zcash_decode<TypeParam>(u, Form::kUncompressed),
               std::string(g2 ? "y.c0" : "y") + " is not less than the field modulus");
}

TYPED_TEST(ZcashTest, RejectsXWithNoPoint) {
  Affine<TypeParam> fake{random_x_off_curve<TypeParam>(this->rng), TypeParam::Base::one()};
  auto c = zcash_encode(fake, Form::kCompressed);
  expect_error(zcash_decode<TypeParam>(c, Form::kCompressed), "no point with this x");
}

TYPED_TEST(ZcashTest, RejectsPointNotOnCurve) {
  auto p = subgroup_point<TypeParam>(this->rng);
  p.y = p.y + TypeParam::Base::one();
  expect_error(zcash_decode<TypeParam>(zcash_encode(p, Form::kUncompressed), Form::kUncompressed),
               "point is not on the curve");
  // (0, 0) without the infinity flag.
  Bytes zeros(zcash_size<TypeParam>(Form::kUncompressed), 0);
  expect_error(zcash_decode<TypeParam>(zeros, Form::kUncompressed), "point is not on the curve");
}

TYPED_TEST(ZcashTest, RejectsPointOutsideSubgroupUnlessTrusted) {
  auto p = random_curve_point<TypeParam>(this->rng);
  ASSERT_FALSE(is_in_subgroup_slow(p));
  for (Form form : {Form::kCompressed, Form::kUncompressed}) {
    auto bytes = zcash_encode(p, form);
    expect_error(zcash_decode<TypeParam>(bytes, form), "point is not in the prime-order subgroup");
    auto trusted = zcash_decode<TypeParam>(bytes, form, DecodeOptions{.check_subgroup = false});
    ASSERT_TRUE(trusted.is_ok()) << trusted.status().message();
    EXPECT_EQ(*trusted, p);
  }
}

// The generators' compressed forms, as published with the zcash serialization spec.
TEST(Zcash, GeneratorsMatchPublishedEncodings) {
  EXPECT_EQ(zcash_encode(G1Config::generator(), Form::kCompressed),
            from_hex("97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"));
  EXPECT_EQ(zcash_encode(G2Config::generator(), Form::kCompressed),
            from_hex("93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
                     "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"));
}

// ---- snarkjs binary and JSON ----

// The prime field under a base field: Fq itself, or the Fq of an Fq2.
template <class F>
struct PrimeField {
  using type = F;
};
template <class Cfg>
struct PrimeField<ff::Fp2<Cfg>> {
  using type = typename Cfg::Fq;
};

template <class C>
class SnarkjsTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0xec0004};
};
using AllGroups = ::testing::Types<bn254::G1Config, bn254::G2Config, bls12_381::G1Config, bls12_381::G2Config>;
TYPED_TEST_SUITE(SnarkjsTest, AllGroups);

TYPED_TEST(SnarkjsTest, BinaryRoundTrips) {
  for (int i = 0; i < 8; ++i) {
    auto p = subgroup_point<TypeParam>(this->rng);
    auto bytes = snarkjs_encode(p);
    ASSERT_EQ(bytes.size(), snarkjs_size<TypeParam>());
    auto r = snarkjs_decode<TypeParam>(bytes);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    EXPECT_EQ(*r, p);
  }
}

TYPED_TEST(SnarkjsTest, BinaryIsLittleEndianMontgomeryXThenY) {
  auto p = subgroup_point<TypeParam>(this->rng);
  auto bytes = snarkjs_encode(p);
  constexpr size_t n = TypeParam::Base::BYTES;
  Bytes expect(2 * n);
  if constexpr (kIsG2<TypeParam>) {
    constexpr size_t h = n / 2;
    p.x.c0.to_mont_bytes_le(expect.data());
    p.x.c1.to_mont_bytes_le(expect.data() + h);
    p.y.c0.to_mont_bytes_le(expect.data() + n);
    p.y.c1.to_mont_bytes_le(expect.data() + n + h);
  } else {
    p.x.to_mont_bytes_le(expect.data());
    p.y.to_mont_bytes_le(expect.data() + n);
  }
  EXPECT_EQ(bytes, expect);
}

TYPED_TEST(SnarkjsTest, BinaryInfinityIsAllZero) {
  auto bytes = snarkjs_encode(Affine<TypeParam>::infinity());
  EXPECT_EQ(bytes, Bytes(snarkjs_size<TypeParam>(), 0));
  auto r = snarkjs_decode<TypeParam>(bytes);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_TRUE(r->is_infinity());
}

TYPED_TEST(SnarkjsTest, BinaryRejectsMalformedInput) {
  auto p = subgroup_point<TypeParam>(this->rng);
  auto bytes = snarkjs_encode(p);
  Bytes shorter(bytes.begin(), bytes.end() - 1);
  expect_error(snarkjs_decode<TypeParam>(shorter),
               "snarkjs: expected " + std::to_string(bytes.size()) + " bytes, got " + std::to_string(bytes.size() - 1));

  Bytes big_x = bytes;
  std::fill(big_x.begin(), big_x.begin() + TypeParam::Base::BYTES / (kIsG2<TypeParam> ? 2 : 1), 0xff);
  expect_error(snarkjs_decode<TypeParam>(big_x),
               std::string(kIsG2<TypeParam> ? "x.c0" : "x") + " is not less than the field modulus");
  Bytes big_y = bytes;
  std::fill(big_y.end() - 8, big_y.end(), 0xff);  // top limb of y (y.c1 for G2)
  expect_error(snarkjs_decode<TypeParam>(big_y),
               std::string(kIsG2<TypeParam> ? "y.c1" : "y") + " is not less than the field modulus");

  auto off = p;
  off.y = off.y + TypeParam::Base::one();
  expect_error(snarkjs_decode<TypeParam>(snarkjs_encode(off)), "point is not on the curve");
}

TYPED_TEST(SnarkjsTest, BinaryRejectsPointOutsideSubgroupUnlessTrusted) {
  if constexpr (std::is_same_v<TypeParam, bn254::G1Config>) GTEST_SKIP() << "cofactor 1";
  auto p = random_curve_point<TypeParam>(this->rng);
  auto bytes = snarkjs_encode(p);
  expect_error(snarkjs_decode<TypeParam>(bytes), "snarkjs: point is not in the prime-order subgroup");
  auto trusted = snarkjs_decode<TypeParam>(bytes, DecodeOptions{.check_subgroup = false});
  ASSERT_TRUE(trusted.is_ok()) << trusted.status().message();
  EXPECT_EQ(*trusted, p);
}

TYPED_TEST(SnarkjsTest, JsonRoundTrips) {
  for (int i = 0; i < 8; ++i) {
    auto p = subgroup_point<TypeParam>(this->rng);
    auto j = json_encode(p);
    ASSERT_EQ(j.size(), 3u);
    auto r = json_decode<TypeParam>(j);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    EXPECT_EQ(*r, p);
    j.pop_back();  // [x, y] is accepted too
    EXPECT_EQ(*json_decode<TypeParam>(j), p);
  }
  auto inf = json_decode<TypeParam>(json_encode(Affine<TypeParam>::infinity()));
  ASSERT_TRUE(inf.is_ok()) << inf.status().message();
  EXPECT_TRUE(inf->is_infinity());
}

TYPED_TEST(SnarkjsTest, JsonRejectsMalformedInput) {
  auto p = subgroup_point<TypeParam>(this->rng);
  auto good = json_encode(p);
  auto mutate = [&](auto f) {
    auto j = good;
    f(j);
    return json_decode<TypeParam>(j);
  };
  // The first decimal string of coordinate i.
  auto text = [](auto& j, size_t i) -> std::string& {
    if constexpr (kIsG2<TypeParam>) {
      return j[i][0];
    } else {
      return j[i];
    }
  };
  const std::string c0 = kIsG2<TypeParam> ? ".c0" : "";
  expect_error(mutate([](auto& j) { j.push_back(j[0]); }), "json: expected 2 or 3 coordinates (x, y[, z]), got 4");
  expect_error(mutate([&](auto& j) { text(j, 0) = "12a"; }), "x" + c0 + ": \"12a\" is not a decimal integer");
  expect_error(mutate([&](auto& j) { text(j, 1) = ""; }), "y" + c0 + ": \"\" is not a decimal integer");
  expect_error(mutate([&](auto& j) { text(j, 0) = "-1"; }), "is not a decimal integer");
  expect_error(mutate([&](auto& j) { text(j, 0) = "1" + std::string(200, '0'); }),
               "x" + c0 + " is not less than the field modulus");
  expect_error(mutate([&](auto& j) { text(j, 1) = ff::to_decimal(PrimeField<typename TypeParam::Base>::type::MODULUS); }),
               "y" + c0 + " is not less than the field modulus");
  expect_error(mutate([&](auto& j) { text(j, 2) = "2"; }), "z must be 1 (affine) or 0 (infinity)");
  expect_error(mutate([&](auto& j) { text(j, 2) = "0"; }), "z is 0 but (x, y) is not (0, 1) (non-canonical infinity)");
  expect_error(mutate([&](auto& j) { text(j, 1) = "7"; }), "json: point is not on the curve");
  if constexpr (kIsG2<TypeParam>) {
    expect_error(mutate([](auto& j) { j[1].pop_back(); }), "y: expected 2 components (c0, c1), got 1");
  }
}

TYPED_TEST(SnarkjsTest, JsonRejectsPointOutsideSubgroupUnlessTrusted) {
  if constexpr (std::is_same_v<TypeParam, bn254::G1Config>) GTEST_SKIP() << "cofactor 1";
  auto j = json_encode(random_curve_point<TypeParam>(this->rng));
  expect_error(json_decode<TypeParam>(j), "json: point is not in the prime-order subgroup");
  EXPECT_TRUE(json_decode<TypeParam>(j, DecodeOptions{.check_subgroup = false}).is_ok());
}

TEST(SnarkjsJson, MatchesFfjavascriptLayout) {
  using V = std::vector<std::string>;
  using VV = std::vector<V>;
  EXPECT_EQ(json_encode(bn254::G1Config::generator()), (V{"1", "2", "1"}));
  EXPECT_EQ(json_encode(bn254::G1Affine::infinity()), (V{"0", "1", "0"}));
  EXPECT_EQ(json_encode(bls12_381::G2Affine::infinity()), (VV{{"0", "0"}, {"1", "0"}, {"0", "0"}}));
  auto g2 = json_encode(bn254::G2Config::generator());
  ASSERT_EQ(g2.size(), 3u);
  EXPECT_EQ(g2[0][0], "10857046999023057135944570762232829481370756359578518086990519993285655852781");
  EXPECT_EQ(g2[0][1], "11559732032986387107991004021392285783925812861821192530917403151452391805634");
  EXPECT_EQ(g2[2], (V{"1", "0"}));
}

}  // namespace
}  // namespace cuzk::ec
