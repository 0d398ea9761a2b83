// Reads the real circom/snarkjs fixtures (tests/interop/fixtures) and checks them against
// each other: the zkey against the r1cs, the witness against the r1cs and public.json,
// the verification key and proof JSON against the zkey. Then damages copies of them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "formats/r1cs.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/test_util.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"

namespace cuzk::formats {
namespace {

using testing::make_binfile;
using testing::read_bytes;
using testing::split_binfile;
using testing::write_bytes;

std::string fixtures_dir() {
  const char* env = std::getenv("CUZK_SNARKJS_FIXTURES_DIR");
  return env != nullptr ? env : CUZK_SNARKJS_FIXTURES_DIR;
}

template <class C>
class SnarkjsFiles : public ::testing::Test {
 protected:
  using Fr = typename C::Fr;
  static std::string dir(const std::string& circuit) {
    return fixtures_dir() + "/" + C::SNARKJS_NAME + "/" + circuit;
  }
  void SetUp() override {
    if (!std::filesystem::exists(dir("chain") + "/circuit.zkey")) {
      GTEST_SKIP() << "no fixtures in " << fixtures_dir() << " (run the snarkjs_fixtures test)";
    }
  }
  testing::ScratchDir scratch_;
};

using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(SnarkjsFiles, Curves);

const char* const kCircuits[] = {"chain", "poseidon_hash"};

TYPED_TEST(SnarkjsFiles, ZkeyAgreesWithItsR1cs) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  for (const char* name : kCircuits) {
    SCOPED_TRACE(name);
    std::string d = this->dir(name);
    auto r1cs = read_r1cs<Fr>(d + "/circuit.r1cs");
    ASSERT_TRUE(r1cs.is_ok()) << r1cs.status().to_string();
    for (const char* key : {"/circuit_0000.zkey", "/circuit.zkey"}) {
      auto z = Zkey<C>::open(d + key);
      ASSERT_TRUE(z.is_ok()) << z.status().to_string();
      const auto& h = z->header();
      EXPECT_EQ(h.n_vars, r1cs->n_vars);
      EXPECT_EQ(h.n_public, r1cs->n_public());
      // The smallest power of two holding the constraints plus the nPublic + 1 input rows.
      uint64_t rows = uint64_t(r1cs->n_constraints) + h.n_public + 1;
      EXPECT_GE(h.domain_size, rows);
      EXPECT_LT(h.domain_size / 2, rows);
      EXPECT_EQ(h.gamma2, C::G2::generator());
      EXPECT_EQ(z->h().size(), h.domain_size);
      EXPECT_EQ(z->c().size(), h.n_vars - h.n_public - 1);
      // Section 4: per constraint its A then B terms in file order, then the input rows.
      std::vector<ZkeyCoefficient<Fr>> want;
      for (uint32_t c = 0; c < r1cs->n_constraints; ++c) {
        for (uint32_t m = 0; m < 2; ++m) {
          for (const auto& t : r1cs->lc(c, int(m))) want.push_back({m, c, t.wire, t.coef});
        }
      }
      for (uint32_t s = 0; s <= h.n_public; ++s) want.push_back({0, r1cs->n_constraints + s, s, Fr::one()});
      auto got = z->coefficients();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i].matrix, want[i].matrix) << i;
        ASSERT_EQ(got[i].constraint, want[i].constraint) << i;
        ASSERT_EQ(got[i].signal, want[i].signal) << i;
        ASSERT_EQ(got[i].coefficient(), want[i].value) << i;
      }
      // The public rows make every IC point's A entry non-zero.
      for (uint32_t s = 0; s <= h.n_public; ++s) EXPECT_FALSE(z->a()[s].is_infinity());
    }
    auto fresh = Zkey<C>::open(d + "/circuit_0000.zkey");
    auto final_key = Zkey<C>::open(d + "/circuit.zkey");
    ASSERT_TRUE(fresh.is_ok() && final_key.is_ok());
    EXPECT_EQ(fresh->mpc()->n_contributions, 0u);
    EXPECT_EQ(final_key->mpc()->n_contributions, 1u);
    EXPECT_EQ(fresh->mpc()->cs_hash, final_key->mpc()->cs_hash);
    // A contribution changes delta (and C, H) but nothing else.
    EXPECT_NE(fresh->header().delta2, final_key->header().delta2);
    EXPECT_EQ(fresh->header().alpha1, final_key->header().alpha1);
    EXPECT_TRUE(std::equal(fresh->b2().begin(), fresh->b2().end(), final_key->b2().begin()));
  }
}

TYPED_TEST(SnarkjsFiles, WitnessSatisfiesR1csAndMatchesPublicJson) {
  using Fr = typename TypeParam::Fr;
  for (const char* name : kCircuits) {
    SCOPED_TRACE(name);
    std::string d = this->dir(name);
    auto r1cs = read_r1cs<Fr>(d + "/circuit.r1cs");
    auto w = read_wtns<Fr>(d + "/witness.wtns");
    auto pub = read_public_json<Fr>(d + "/public.json");
    ASSERT_TRUE(r1cs.is_ok() && w.is_ok() && pub.is_ok());
    ASSERT_EQ(w->size(), r1cs->n_vars);
    std::vector<Fr> wf(w->size());
    for (size_t i = 0; i < wf.size(); ++i) wf[i] = w->field(i);
    EXPECT_TRUE(r1cs->is_satisfied(wf));
    ASSERT_EQ(pub->size(), r1cs->n_public());
    for (size_t i = 0; i < pub->size(); ++i) EXPECT_EQ((*pub)[i], wf[i + 1]);
    EXPECT_EQ(r1cs->wire_to_label.size(), r1cs->n_vars);
  }
}

TYPED_TEST(SnarkjsFiles, ZkeyCoefficientsTimesRawWitnessGiveSatisfiedRows) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  std::string d = this->dir("poseidon_hash");
  auto z = Zkey<C>::open(d + "/circuit.zkey");
  auto w = read_wtns<Fr>(d + "/witness.wtns");
  auto r1cs = read_r1cs<Fr>(d + "/circuit.r1cs");
  ASSERT_TRUE(z.is_ok() && w.is_ok() && r1cs.is_ok());
  // The prover's trick (zkey.hpp): stored value times the unconverted standard-form witness.
  std::vector<Fr> a(z->header().domain_size), b(z->header().domain_size);
  for (const auto& e : z->coefficients()) {
    Fr term = e.value * Fr::from_mont(w->values[e.signal]);
    (e.matrix == 0 ? a : b)[e.constraint] += term;
  }
  for (uint32_t c = 0; c < r1cs->n_constraints; ++c) {
    Fr cw = Fr::zero();
    for (const auto& t : r1cs->c(c)) cw += t.coef * w->field(t.wire);
    ASSERT_EQ(a[c] * b[c], cw) << "constraint " << c;
  }
}

TYPED_TEST(SnarkjsFiles, VerificationKeyAndProofJsonMatchTheZkey) {
  using C = TypeParam;
  for (const char* name : kCircuits) {
    SCOPED_TRACE(name);
    std::string d = this->dir(name);
    auto z = Zkey<C>::open(d + "/circuit.zkey");
    auto vk = read_vk_json<C>(d + "/verification_key.json");
    ASSERT_TRUE(z.is_ok());
    ASSERT_TRUE(vk.is_ok()) << vk.status().to_string();
    EXPECT_EQ(vk->n_public, z->header().n_public);
    EXPECT_EQ(vk->alpha1, z->header().alpha1);
    EXPECT_EQ(vk->beta2, z->header().beta2);
    EXPECT_EQ(vk->gamma2, z->header().gamma2);
    EXPECT_EQ(vk->delta2, z->header().delta2);
    ASSERT_EQ(vk->ic.size(), z->ic().size());
    EXPECT_TRUE(std::equal(vk->ic.begin(), vk->ic.end(), z->ic().begin()));
    // Writing back gives the same JSON value as snarkjs's file.
    auto original = read_json_file(d + "/verification_key.json");
    ASSERT_TRUE(original.is_ok());
    EXPECT_EQ(vk_to_json<C>(*vk), *original);

    auto proof = read_proof_json<C>(d + "/proof.json");
    ASSERT_TRUE(proof.is_ok()) << proof.status().to_string();
    auto proof_text = read_json_file(d + "/proof.json");
    EXPECT_EQ(proof_to_json<C>(*proof), *proof_text);
    // Same bytes too: snarkjs writes JSON.stringify(.., null, 1) plus nothing.
    std::string out = this->scratch_.file("proof.json");
    ASSERT_TRUE(write_proof_json<C>(out, *proof).is_ok());
    auto mine = read_bytes(out), theirs = read_bytes(d + "/proof.json");
    mine.pop_back();  // our trailing newline
    EXPECT_EQ(mine, theirs);
  }
}

TYPED_TEST(SnarkjsFiles, DamagedCopiesGiveSpecificErrors) {
  using C = TypeParam;
  using Other = std::conditional_t<std::is_same_v<C, bn254::Curve>, bls12_381::Curve, bn254::Curve>;
  std::string d = this->dir("chain");
  auto bytes = read_bytes(d + "/circuit.zkey");
  std::string path = this->scratch_.file("circuit.zkey");

  // Truncation anywhere fails cleanly.
  for (size_t len : {size_t(0), size_t(11), size_t(100), bytes.size() / 2, bytes.size() - 1}) {
    write_bytes(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(len)));
    auto z = Zkey<C>::open(path);
    ASSERT_FALSE(z.is_ok()) << len;
    EXPECT_EQ(z.status().code(), StatusCode::kDataLoss) << z.status().message();
  }
  // A flipped bit in an H point.
  auto secs = split_binfile(bytes);
  for (auto& s : secs) {
    if (s.id == zkey_section::kH) s.data[sizeof(ec::Affine<typename C::G1>) * 7 + 1] ^= 0x40;
  }
  write_bytes(path, make_binfile("zkey", 1, secs));
  auto z = Zkey<C>::open(path);
  ASSERT_FALSE(z.is_ok());
  EXPECT_EQ(z.status().message(), "circuit.zkey: section 9 (H points): point 7 is not on the curve");
  // The same file skips the point checks when asked (a trusted cache).
  ZkeyReadOptions fast;
  fast.check_points = false;
  EXPECT_TRUE(Zkey<C>::open(path, fast).is_ok());

  // Files of the other curve.
  std::string od = fixtures_dir() + "/" + Other::SNARKJS_NAME + "/chain";
  auto wrong = Zkey<C>::open(od + "/circuit.zkey");
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.status().message().find("(wrong curve?)"), std::string::npos) << wrong.status().message();
  EXPECT_FALSE(read_wtns<typename C::Fr>(od + "/witness.wtns").is_ok());
  EXPECT_FALSE(read_r1cs<typename C::Fr>(od + "/circuit.r1cs").is_ok());
  EXPECT_FALSE(read_proof_json<C>(od + "/proof.json").is_ok());
  // A witness passed where a key is expected.
  auto not_key = Zkey<C>::open(d + "/witness.wtns");
  ASSERT_FALSE(not_key.is_ok());
  EXPECT_EQ(not_key.status().message(), "witness.wtns: bad magic \"wtns\", expected \"zkey\"");
}

TEST(SnarkjsFilesCurve, DetectsEachFixtureCurve) {
  for (const char* curve : {"bn128", "bls12381"}) {
    std::string d = fixtures_dir() + "/" + curve + "/chain";
    if (!std::filesystem::exists(d + "/circuit.zkey")) GTEST_SKIP() << "no fixtures";
    for (const char* f : {"/circuit.zkey", "/circuit.r1cs", "/witness.wtns"}) {
      auto id = detect_curve(d + f);
      ASSERT_TRUE(id.is_ok()) << id.status().to_string();
      EXPECT_STREQ(snarkjs_curve_name(*id), curve);
    }
  }
}

}  // namespace
}  // namespace cuzk::formats
