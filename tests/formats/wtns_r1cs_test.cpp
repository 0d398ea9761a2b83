#include <gtest/gtest.h>

#include <random>

#include "formats/r1cs.hpp"
#include "formats/test_util.hpp"
#include "formats/wtns.hpp"

namespace cuzk::formats {
namespace {

using testing::make_binfile;
using testing::RawSection;
using testing::read_bytes;
using testing::split_binfile;
using testing::write_bytes;

template <class C>
class WtnsR1csTest : public ::testing::Test {
 protected:
  using Fr = typename C::Fr;
  using Int = typename Fr::Int;
  testing::ScratchDir dir_;

  // x^3 + x + 5 = out, the classic toy: wires 1 = out, 2 = x, 3 = x^2, 4 = x^3.
  R1cs<Fr> toy() {
    R1cs<Fr> r;
    r.n_vars = 5;
    r.n_outputs = 1;
    r.n_pub_inputs = 0;
    r.n_prv_inputs = 1;
    r.n_labels = 6;
    using T = R1csTerm<Fr>;
    std::vector<T> x{{2, Fr::one()}}, x2{{3, Fr::one()}}, x3{{4, Fr::one()}};
    std::vector<T> out_lc{{1, Fr::one()}, {2, -Fr::one()}, {4, -Fr::one()}, {0, -Fr::from_u64(5)}};
    r.add_constraint(x, x, x2);
    r.add_constraint(x2, x, x3);
    r.add_constraint({}, {}, out_lc);  // linear: 0 = out - x - x^3 - 5, as circom writes them
    r.wire_to_label = {0, 1, 2, 4, 5};
    return r;
  }
  std::vector<Fr> toy_witness(uint64_t x) {
    Fr fx = Fr::from_u64(x);
    return {Fr::one(), fx * fx * fx + fx + Fr::from_u64(5), fx, fx * fx, fx * fx * fx};
  }
  std::vector<Int> canonical(const std::vector<Fr>& w) {
    std::vector<Int> out;
    for (const Fr& v : w) out.push_back(v.to_canonical());
    return out;
  }
};

using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(WtnsR1csTest, Curves);

TYPED_TEST(WtnsR1csTest, WitnessRoundTripsInStandardForm) {
  using Fr = typename TypeParam::Fr;
  auto w = this->canonical(this->toy_witness(3));
  std::string path = this->dir_.file("w.wtns");
  ASSERT_TRUE(write_wtns<Fr>(path, w).is_ok());
  auto back = read_wtns<Fr>(path);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  ASSERT_EQ(back->size(), w.size());
  for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(back->values[i], w[i]);
  EXPECT_EQ(back->field(2), Fr::from_u64(3));
  // Standard form on disk: value 2 (x = 3) is the byte 3 followed by zeros.
  auto bytes = read_bytes(path);
  auto secs = split_binfile(bytes);
  EXPECT_EQ(secs[1].data[2 * Fr::BYTES], 3);
  EXPECT_EQ(secs[1].data[2 * Fr::BYTES + 1], 0);
}

TYPED_TEST(WtnsR1csTest, WitnessRejectsValueNotBelowR) {
  using Fr = typename TypeParam::Fr;
  auto w = this->canonical(this->toy_witness(3));
  w[4] = Fr::MODULUS;
  std::string path = this->dir_.file("w.wtns");
  ASSERT_TRUE(write_wtns<Fr>(path, w).is_ok());
  auto back = read_wtns<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_EQ(back.status().message(), "w.wtns: section 2 (witness values): value 4 is not reduced below r");
}

TYPED_TEST(WtnsR1csTest, WitnessRejectsCountThatDisagreesWithSection) {
  using Fr = typename TypeParam::Fr;
  std::string path = this->dir_.file("w.wtns");
  ASSERT_TRUE(write_wtns<Fr>(path, this->canonical(this->toy_witness(3))).is_ok());
  auto secs = split_binfile(read_bytes(path));
  secs[1].data.resize(secs[1].data.size() - Fr::BYTES);
  write_bytes(path, make_binfile("wtns", 2, secs));
  auto back = read_wtns<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_EQ(back.status().message(),
            "w.wtns: section 2 (witness values) has 128 bytes, expected 160 (nWitness 5 x 32)");
}

TYPED_TEST(WtnsR1csTest, WitnessRejectsFirstValueOtherThanOne) {
  using Fr = typename TypeParam::Fr;
  auto w = this->canonical(this->toy_witness(3));
  w[0] = Fr::Int::from_u64(2);
  std::string path = this->dir_.file("w.wtns");
  ASSERT_TRUE(write_wtns<Fr>(path, w).is_ok());
  EXPECT_FALSE(read_wtns<Fr>(path).is_ok());
}

TYPED_TEST(WtnsR1csTest, WitnessOfTheOtherCurveIsNamed) {
  using Fr = typename TypeParam::Fr;
  using OtherFr = std::conditional_t<std::is_same_v<Fr, bn254::Fr>, bls12_381::Fr, bn254::Fr>;
  std::vector<typename OtherFr::Int> w = {OtherFr::Int::from_u64(1)};
  std::string path = this->dir_.file("w.wtns");
  ASSERT_TRUE(write_wtns<OtherFr>(path, w).is_ok());
  auto back = read_wtns<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.status().message().find("w.wtns: section 1 (header): prime is the "), std::string::npos);
  EXPECT_NE(back.status().message().find("(wrong curve?)"), std::string::npos);
}

TYPED_TEST(WtnsR1csTest, ConstraintSystemRoundTripsAndIsSatisfiedByItsWitness) {
  using Fr = typename TypeParam::Fr;
  auto r = this->toy();
  std::string path = this->dir_.file("c.r1cs");
  ASSERT_TRUE(write_r1cs<Fr>(path, r).is_ok());
  auto back = read_r1cs<Fr>(path);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->n_vars, 5u);
  EXPECT_EQ(back->n_public(), 1u);
  EXPECT_EQ(back->n_constraints, 3u);
  EXPECT_EQ(back->wire_to_label, r.wire_to_label);
  ASSERT_EQ(back->terms.size(), r.terms.size());
  for (size_t i = 0; i < r.terms.size(); ++i) {
    EXPECT_EQ(back->terms[i].wire, r.terms[i].wire);
    EXPECT_EQ(back->terms[i].coef, r.terms[i].coef);
  }
  EXPECT_EQ(back->c(2).size(), 4u);
  EXPECT_TRUE(back->a(2).empty());
  auto w = this->toy_witness(3);
  EXPECT_TRUE(back->is_satisfied(w));
  w[1] += Fr::one();
  EXPECT_FALSE(back->is_satisfied(w));
  EXPECT_EQ(read_bytes(path).size(), 12u + 12 + 64 + 12 + (4 * 9 + 10 * 36) + 12 + 40);
}

TYPED_TEST(WtnsR1csTest, ConstraintSystemRejectsWireOutOfRange) {
  using Fr = typename TypeParam::Fr;
  auto r = this->toy();
  r.terms[2].wire = 99;
  std::string path = this->dir_.file("c.r1cs");
  ASSERT_TRUE(write_r1cs<Fr>(path, r).is_ok());
  auto back = read_r1cs<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_EQ(back.status().message(),
            "c.r1cs: section 2 (constraints): constraint 0 C term 0: wire 99 is not below nVars 5");
}

TYPED_TEST(WtnsR1csTest, ConstraintSystemRejectsTruncationAndTrailingBytes) {
  using Fr = typename TypeParam::Fr;
  std::string path = this->dir_.file("c.r1cs");
  ASSERT_TRUE(write_r1cs<Fr>(path, this->toy()).is_ok());
  auto secs = split_binfile(read_bytes(path));
  // circom writes section 2 first: the reader must not care.
  std::swap(secs[0], secs[1]);
  write_bytes(path, make_binfile("r1cs", 1, secs));
  ASSERT_TRUE(read_r1cs<Fr>(path).is_ok());
  auto cut = secs;
  cut[0].data.resize(cut[0].data.size() - 5);
  write_bytes(path, make_binfile("r1cs", 1, cut));
  auto back = read_r1cs<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.status().message().find("c.r1cs: section 2 (constraints): truncated reading"), std::string::npos)
      << back.status().message();
  auto extra = secs;
  extra[0].data.push_back(0);
  write_bytes(path, make_binfile("r1cs", 1, extra));
  back = read_r1cs<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.status().message().find("has 1 trailing bytes"), std::string::npos) << back.status().message();
}

TYPED_TEST(WtnsR1csTest, ConstraintSystemRejectsCustomGates) {
  using Fr = typename TypeParam::Fr;
  std::string path = this->dir_.file("c.r1cs");
  ASSERT_TRUE(write_r1cs<Fr>(path, this->toy()).is_ok());
  auto secs = split_binfile(read_bytes(path));
  secs.push_back({4, {0, 0, 0, 0}});
  write_bytes(path, make_binfile("r1cs", 1, secs));
  auto back = read_r1cs<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_EQ(back.status().message(),
            "c.r1cs: section 4 (custom gates list): custom gates (PLONK only) are not supported");
}

// Found by fuzzing (issue 10): a header claiming 2^32 - 1 constraints over a 4-byte
// constraints section made the reader reserve ~103 GB before looking at the section.
TYPED_TEST(WtnsR1csTest, ConstraintSystemRejectsConstraintCountBeyondTheSection) {
  using Fr = typename TypeParam::Fr;
  std::string path = this->dir_.file("c.r1cs");
  ASSERT_TRUE(write_r1cs<Fr>(path, this->toy()).is_ok());
  auto secs = split_binfile(read_bytes(path));
  ASSERT_EQ(secs[0].id, 1u);
  auto& header = secs[0].data;
  for (size_t i = header.size() - 4; i < header.size(); ++i) header[i] = 0xff;  // nConstraints
  secs[1].data = {0, 0, 0, 0};
  write_bytes(path, make_binfile("r1cs", 1, secs));
  auto back = read_r1cs<Fr>(path);
  ASSERT_FALSE(back.is_ok());
  EXPECT_EQ(back.status().message(),
            "c.r1cs: section 2 (constraints): nConstraints 4294967295 needs at least 51539607540 bytes, section has 4");
}

TEST(DetectCurve, TellsCurveFromR1csAndWtnsPrimes) {
  testing::ScratchDir dir;
  std::vector<bls12_381::Fr::Int> w = {bls12_381::Fr::Int::from_u64(1)};
  ASSERT_TRUE(write_wtns<bls12_381::Fr>(dir.file("w.wtns"), w).is_ok());
  auto id = detect_curve(dir.file("w.wtns"));
  ASSERT_TRUE(id.is_ok()) << id.status().to_string();
  EXPECT_EQ(*id, CurveId::kBls12_381);
  R1cs<bn254::Fr> r;
  r.n_vars = 1;
  ASSERT_TRUE(write_r1cs<bn254::Fr>(dir.file("c.r1cs"), r).is_ok());
  id = detect_curve(dir.file("c.r1cs"));
  ASSERT_TRUE(id.is_ok()) << id.status().to_string();
  EXPECT_EQ(*id, CurveId::kBn254);
  testing::write_bytes(dir.file("x.bin"), {'p', 't', 'a', 'u', 1, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_FALSE(detect_curve(dir.file("x.bin")).is_ok());
}

// Each file type has one version its reader takes, and the message says which.
TEST(DetectCurve, NamesTheOneSupportedVersion) {
  testing::ScratchDir dir;
  const struct {
    const char* magic;
    uint32_t bad_version;
    const char* expected;
  } cases[] = {
      {"zkey", 2, "k.bin: unsupported zkey version 2 (supported: 1)"},
      {"r1cs", 2, "k.bin: unsupported r1cs version 2 (supported: 1)"},
      {"wtns", 1, "k.bin: unsupported wtns version 1 (supported: 2)"},
  };
  for (const auto& c : cases) {
    testing::write_bytes(dir.file("k.bin"), make_binfile(c.magic, c.bad_version, {}));
    auto id = detect_curve(dir.file("k.bin"));
    ASSERT_FALSE(id.is_ok());
    EXPECT_EQ(id.status().message(), c.expected);
  }
}

}  // namespace
}  // namespace cuzk::formats
