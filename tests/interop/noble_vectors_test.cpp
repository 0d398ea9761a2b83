// cuzk against @noble/curves: every vector gen_vectors.mjs wrote must come out of our
// code as the same text, token for token.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "ec/points.hpp"
#include "interop/noble_vectors.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::interop {
namespace {

std::vector<Vector> vectors_for(const char* curve, const char* group, const char* op) {
  const VectorFile& file = VectorFile::get();
  EXPECT_EQ(file.error(), "");
  auto vs = file.select(curve, group, op);
  // An empty selection would let every check below pass vacuously.
  EXPECT_FALSE(vs.empty()) << "no `" << curve << " " << group << " " << op << "` vectors in " << file.path();
  return vs;
}

template <class A, class Fn>
void check_unary(const char* curve, const char* group, const char* op, Fn fn) {
  for (const Vector& v : vectors_for(curve, group, op)) {
    size_t pos = 0;
    A a;
    ASSERT_TRUE(get(v.args, pos, a) && pos == v.args.size()) << where(v);
    EXPECT_EQ(text(fn(a)), v.results) << where(v) << ": " << group << " " << op;
  }
}

template <class A, class B, class Fn>
void check_binary(const char* curve, const char* group, const char* op, Fn fn) {
  for (const Vector& v : vectors_for(curve, group, op)) {
    size_t pos = 0;
    A a;
    B b;
    ASSERT_TRUE(get(v.args, pos, a) && get(v.args, pos, b) && pos == v.args.size()) << where(v);
    EXPECT_EQ(text(fn(a, b)), v.results) << where(v) << ": " << group << " " << op;
  }
}

// Which of the two roots a sqrt returns is unspecified, so either sign matches; a
// non-square ("none") must be refused.
template <class F>
void check_sqrt(const char* curve, const char* group) {
  size_t squares = 0, non_squares = 0;
  for (const Vector& v : vectors_for(curve, group, "sqrt")) {
    size_t pos = 0;
    F a;
    ASSERT_TRUE(get(v.args, pos, a)) << where(v);
    F root;
    bool found = a.sqrt(root);
    if (v.results == Tokens{"none"}) {
      ++non_squares;
      EXPECT_FALSE(found) << where(v) << ": " << group << " sqrt of a non-square";
      continue;
    }
    ++squares;
    ASSERT_TRUE(found) << where(v) << ": " << group << " sqrt of a square";
    EXPECT_TRUE(text(root) == v.results || text(-root) == v.results) << where(v) << ": " << group << " sqrt";
  }
  EXPECT_GT(squares, 0u);
  EXPECT_GT(non_squares, 0u);
}

template <class F>
void check_prime_field(const char* curve, const char* group) {
  check_binary<F, F>(curve, group, "add", [](const F& a, const F& b) { return a + b; });
  check_binary<F, F>(curve, group, "sub", [](const F& a, const F& b) { return a - b; });
  check_binary<F, F>(curve, group, "mul", [](const F& a, const F& b) { return a * b; });
  check_unary<F>(curve, group, "neg", [](const F& a) { return -a; });
  check_unary<F>(curve, group, "square", [](const F& a) { return a.square(); });
  check_unary<F>(curve, group, "inv", [](const F& a) { return a.inverse(); });
  check_sqrt<F>(curve, group);
}

template <class C>
class NobleVectors : public ::testing::Test {};

struct CurveNames {
  template <class C>
  static std::string GetName(int) {
    return C::NAME;
  }
};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(NobleVectors, Curves, CurveNames);

TEST(NobleVectorFile, IsPresentAndWellFormed) {
  const VectorFile& file = VectorFile::get();
  EXPECT_EQ(file.error(), "");
}

TYPED_TEST(NobleVectors, FqArithmeticMatches) {
  check_prime_field<typename TypeParam::Fq>(TypeParam::NAME, "Fq");
}

TYPED_TEST(NobleVectors, FrArithmeticMatches) {
  check_prime_field<typename TypeParam::Fr>(TypeParam::NAME, "Fr");
}

TYPED_TEST(NobleVectors, Fq2ArithmeticMatches) {
  using F2 = typename TypeParam::Fq2;
  const char* c = TypeParam::NAME;
  check_binary<F2, F2>(c, "Fq2", "mul", [](const F2& a, const F2& b) { return a * b; });
  check_unary<F2>(c, "Fq2", "square", [](const F2& a) { return a.square(); });
  check_unary<F2>(c, "Fq2", "inv", [](const F2& a) { return a.inverse(); });
  check_sqrt<F2>(c, "Fq2");
}

// Same tower (Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v)) as noble, so the twelve
// coefficients must agree one by one.
TYPED_TEST(NobleVectors, Fq12ArithmeticMatches) {
  using F12 = typename TypeParam::Fq12;
  const char* c = TypeParam::NAME;
  check_binary<F12, F12>(c, "Fq12", "mul", [](const F12& a, const F12& b) { return a * b; });
  check_unary<F12>(c, "Fq12", "square", [](const F12& a) { return a.square(); });
  check_unary<F12>(c, "Fq12", "inv", [](const F12& a) { return a.inverse(); });
}

template <class C>
void check_group(const char* curve, const char* group) {
  using Affine = ec::Affine<C>;
  using Jacobian = ec::Jacobian<C>;
  for (const Vector& v : vectors_for(curve, group, "generator")) {
    EXPECT_EQ(text(C::generator()), v.results) << where(v) << ": " << group << " generator";
  }
  // Scalars are given as integers below r; parse them as Fr so a bad token fails loudly.
  for (const Vector& v : vectors_for(curve, group, "mul")) {
    size_t pos = 0;
    typename C::Scalar k;
    ASSERT_TRUE(get(v.args, pos, k)) << where(v);
    EXPECT_EQ(text(Jacobian::generator().mul(k).to_affine()), v.results) << where(v) << ": " << group << " mul";
  }
  check_binary<Affine, Affine>(curve, group, "add", [](const Affine& p, const Affine& q) {
    return (Jacobian::from_affine(p) + Jacobian::from_affine(q)).to_affine();
  });
  // The mixed (Jacobian + affine) sum must give the same answers, special cases included.
  check_binary<Affine, Affine>(curve, group, "add", [](const Affine& p, const Affine& q) {
    return (Jacobian::from_affine(p) + q).to_affine();
  });
  check_unary<Affine>(curve, group, "double", [](const Affine& p) { return Jacobian::from_affine(p).dbl().to_affine(); });
  check_unary<Affine>(curve, group, "neg", [](const Affine& p) { return -p; });
}

TYPED_TEST(NobleVectors, G1ArithmeticMatches) { check_group<typename TypeParam::G1>(TypeParam::NAME, "G1"); }

TYPED_TEST(NobleVectors, G2ArithmeticMatches) { check_group<typename TypeParam::G2>(TypeParam::NAME, "G2"); }

std::string to_hex(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

std::vector<uint8_t> from_hex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) out.push_back(uint8_t(std::stoi(s.substr(i, 2), nullptr, 16)));
  return out;
}

// Both directions: our encoding of noble's point is noble's bytes, and decoding those
// bytes (with the subgroup check on) gives the point back.
template <class C>
void check_zcash_form(const char* group, const char* op, ec::Form form) {
  for (const Vector& v : vectors_for("bls12_381", group, op)) {
    size_t pos = 0;
    ec::Affine<C> p;
    ASSERT_TRUE(get(v.args, pos, p) && v.results.size() == 1) << where(v);
    EXPECT_EQ(to_hex(ec::zcash_encode(p, form)), v.results[0]) << where(v) << ": " << group << " " << op;
    auto decoded = ec::zcash_decode<C>(from_hex(v.results[0]), form);
    ASSERT_TRUE(decoded) << where(v) << ": " << decoded.status().to_string();
    EXPECT_EQ(text(*decoded), text(p)) << where(v) << ": " << group << " " << op << " decode";
  }
}

// An encoding noble refuses must be refused in either form.
template <class C>
void check_zcash_rejects(const char* group) {
  for (const Vector& v : vectors_for("bls12_381", group, "decode")) {
    ASSERT_EQ(v.args.size(), 1u) << where(v);
    ASSERT_EQ(v.results, Tokens{"reject"}) << where(v);
    std::vector<uint8_t> bytes = from_hex(v.args[0]);
    for (ec::Form form : {ec::Form::kCompressed, ec::Form::kUncompressed}) {
      auto decoded = ec::zcash_decode<C>(bytes, form);
      EXPECT_FALSE(decoded) << where(v) << ": " << group << " accepted " << v.args[0]
                            << (form == ec::Form::kCompressed ? " as compressed" : " as uncompressed");
    }
  }
}

TEST(NobleVectorsBls12381, ZcashEncodingsMatch) {
  check_zcash_form<bls12_381::G1Config>("G1", "compressed", ec::Form::kCompressed);
  check_zcash_form<bls12_381::G1Config>("G1", "uncompressed", ec::Form::kUncompressed);
  check_zcash_form<bls12_381::G2Config>("G2", "compressed", ec::Form::kCompressed);
  check_zcash_form<bls12_381::G2Config>("G2", "uncompressed", ec::Form::kUncompressed);
}

TEST(NobleVectorsBls12381, ZcashDecoderRejectsWhatNobleRejects) {
  check_zcash_rejects<bls12_381::G1Config>("G1");
  check_zcash_rejects<bls12_381::G2Config>("G2");
}

// noble (like snarkjs's ffjavascript, blst and zkcrypto) does not return the reduced
// pairing e itself but a fixed power e^m that its final exponentiation chain yields:
// m = 3 on BLS12-381, m = 2x(6x^2 + 3x + 1) on BN254 (x = 4965661367192848881). cuzk's
// pairing returns e exactly, so e^m must reproduce noble's twelve coefficients.
template <class Curve>
ff::BigInt<4> noble_pairing_power() {
  ff::BigInt<4> m{};
  bool ok = ff::from_decimal(std::string(Curve::NAME) == "bn254" ? "1469306990098747947464455738335385361638823152381947992820" : "3", m);
  EXPECT_TRUE(ok);
  return m;
}

TYPED_TEST(NobleVectors, PairingMatchesNobleUpToItsFixedPower) {
  using P1 = ec::Affine<typename TypeParam::G1>;
  using P2 = ec::Affine<typename TypeParam::G2>;
  const ff::BigInt<4> m = noble_pairing_power<TypeParam>();
  check_binary<P1, P2>(TypeParam::NAME, "GT", "pairing", [&](const P1& p, const P2& q) { return pairing::pairing(p, q).pow(m); });
}

// pairing_compat is what verification_key.json's vk_alphabeta_12 needs: it must equal
// noble's value coefficient for coefficient, with no power applied.
TYPED_TEST(NobleVectors, PairingCompatEqualsNobleExactly) {
  using P1 = ec::Affine<typename TypeParam::G1>;
  using P2 = ec::Affine<typename TypeParam::G2>;
  check_binary<P1, P2>(TypeParam::NAME, "GT", "pairing", [](const P1& p, const P2& q) { return pairing::pairing_compat(p, q); });
}

}  // namespace
}  // namespace cuzk::interop
