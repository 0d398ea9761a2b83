#include "formats/snarkjs_json.hpp"

#include <gtest/gtest.h>

#include <random>

#include "formats/test_util.hpp"

namespace cuzk::formats {
namespace {

using testing::random_point;
using testing::random_subgroup_point;

template <class C>
class SnarkjsJsonTest : public ::testing::Test {};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(SnarkjsJsonTest, Curves);

TYPED_TEST(SnarkjsJsonTest, ProofRoundTripsThroughText) {
  using C = TypeParam;
  std::mt19937_64 rng(1);
  Groth16Proof<C> p{random_subgroup_point<typename C::G1>(rng), random_subgroup_point<typename C::G2>(rng),
                    random_subgroup_point<typename C::G1>(rng)};
  testing::ScratchDir dir;
  ASSERT_TRUE(write_proof_json<C>(dir.file("proof.json"), p).is_ok());
  auto back = read_proof_json<C>(dir.file("proof.json"));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(*back, p);
}

TYPED_TEST(SnarkjsJsonTest, ProofUsesSnarkjsLayoutWithG2RealPartFirst) {
  using C = TypeParam;
  Groth16Proof<C> p{C::G1::generator(), C::G2::generator(), ec::Affine<typename C::G1>::infinity()};
  Json j = proof_to_json<C>(p);
  const auto& pi_b = j.find("pi_b")->as_array();
  ASSERT_EQ(pi_b.size(), 3u);
  EXPECT_EQ(pi_b[0].as_array()[0].as_string(), ff::field_to_decimal(C::G2::generator().x.c0));
  EXPECT_EQ(pi_b[0].as_array()[1].as_string(), ff::field_to_decimal(C::G2::generator().x.c1));
  EXPECT_EQ(pi_b[2].dump(), R"(["1","0"])");
  if constexpr (std::is_same_v<C, bn254::Curve>) {
    EXPECT_EQ(j.find("pi_a")->dump(), R"(["1","2","1"])");
  }
  EXPECT_EQ(j.find("pi_c")->dump(), R"(["0","1","0"])");
  EXPECT_EQ(j.find("protocol")->as_string(), "groth16");
  EXPECT_EQ(j.find("curve")->as_string(), C::SNARKJS_NAME);
  auto back = proof_from_json<C>(j, "p");
  ASSERT_TRUE(back.is_ok());
  EXPECT_TRUE(back->c.is_infinity());
}

TYPED_TEST(SnarkjsJsonTest, ProofRejectsOffCurveWrongCurveAndBadZ) {
  using C = TypeParam;
  Groth16Proof<C> p{C::G1::generator(), C::G2::generator(), C::G1::generator()};
  Json j = proof_to_json<C>(p);
  Json off = j;
  off.as_object()[0].second.as_array()[1] = Json("3");
  auto r = proof_from_json<C>(off, "proof.json");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().message().rfind("proof.json: pi_a: ", 0), 0u) << r.status().message();
  EXPECT_NE(r.status().message().find("point is not on the curve"), std::string::npos) << r.status().message();
  Json z = j;
  z.as_object()[2].second.as_array()[2] = Json("2");
  std::string zmsg = proof_from_json<C>(z, "proof.json").status().message();
  EXPECT_EQ(zmsg.rfind("proof.json: pi_c: ", 0), 0u) << zmsg;
  EXPECT_NE(zmsg.find("z must be 1 (affine) or 0 (infinity)"), std::string::npos) << zmsg;
  Json curve = j;
  curve.as_object()[4].second = Json(std::is_same_v<C, bn254::Curve> ? "bls12381" : "bn128");
  EXPECT_NE(proof_from_json<C>(curve, "proof.json").status().message().find("proof.json: curve is"), std::string::npos);
  Json big = j;
  big.as_object()[0].second.as_array()[0] = Json(ff::to_decimal(C::Fq::MODULUS));
  std::string bmsg = proof_from_json<C>(big, "proof.json").status().message();
  EXPECT_EQ(bmsg.rfind("proof.json: pi_a: ", 0), 0u) << bmsg;
  EXPECT_NE(bmsg.find("not less than the field modulus"), std::string::npos) << bmsg;
  Json missing = j;
  missing.as_object().erase(missing.as_object().begin() + 1);
  EXPECT_EQ(proof_from_json<C>(missing, "proof.json").status().message(), "proof.json: missing field \"pi_b\"");
}

TYPED_TEST(SnarkjsJsonTest, ProofPointOutsideTheSubgroupIsRejectedUnlessTrusted) {
  using C = TypeParam;
  using G2 = typename C::G2;
  std::mt19937_64 rng(9);
  // G2 has a large cofactor on both curves, so a random curve point is almost surely outside.
  Groth16Proof<C> p{C::G1::generator(), random_point<G2>(rng), C::G1::generator()};
  Json j = proof_to_json<C>(p);
  auto strict = proof_from_json<C>(j, "proof.json");
  ASSERT_FALSE(strict.is_ok());
  EXPECT_NE(strict.status().message().find("subgroup"), std::string::npos) << strict.status().message();
  ec::DecodeOptions trusted;
  trusted.check_subgroup = false;
  auto lax = proof_from_json<C>(j, "proof.json", trusted);
  ASSERT_TRUE(lax.is_ok());
  EXPECT_EQ(*lax, p);
}

TYPED_TEST(SnarkjsJsonTest, PublicSignalsRoundTripAndRejectValuesNotBelowR) {
  using Fr = typename TypeParam::Fr;
  std::vector<Fr> sig = {Fr::from_u64(33), Fr::zero(), -Fr::one()};
  Json j = public_to_json<Fr>(sig);
  EXPECT_EQ(j.as_array()[0].as_string(), "33");
  auto back = public_from_json<Fr>(j, "public.json");
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(*back, sig);
  j.as_array()[1] = Json(ff::to_decimal(Fr::MODULUS));
  EXPECT_FALSE(public_from_json<Fr>(j, "public.json").is_ok());
  j.as_array()[1] = Json::number(5);
  EXPECT_EQ(public_from_json<Fr>(j, "public.json").status().message(),
            "public.json[1]: expected a decimal string, got number");
}

TYPED_TEST(SnarkjsJsonTest, VerificationKeyRoundTripsWithAlphaBetaNesting) {
  using C = TypeParam;
  using Fq2 = typename C::Fq2;
  std::mt19937_64 rng(5);
  VerificationKey<C> vk;
  vk.n_public = 2;
  vk.alpha1 = random_subgroup_point<typename C::G1>(rng);
  vk.beta2 = random_subgroup_point<typename C::G2>(rng);
  vk.gamma2 = C::G2::generator();
  vk.delta2 = random_subgroup_point<typename C::G2>(rng);
  for (int i = 0; i < 3; ++i) vk.ic.push_back(random_subgroup_point<typename C::G1>(rng));
  for (auto* f6 : {&vk.alphabeta_12.c0, &vk.alphabeta_12.c1}) {
    f6->c0 = Fq2::random(rng);
    f6->c1 = Fq2::random(rng);
    f6->c2 = Fq2::random(rng);
  }
  Json j = vk_to_json<C>(vk);
  // [2][3][2]: c1 of the Fq12 is the second row; its v^2 coefficient the third entry.
  EXPECT_EQ(j.find("vk_alphabeta_12")->as_array()[1].as_array()[2].as_array()[1].as_string(),
            ff::field_to_decimal(vk.alphabeta_12.c1.c2.c1));
  EXPECT_EQ(j.find("nPublic")->dump(), "2");
  auto back = vk_from_json<C>(Json::parse(j.dump(1)).value(), "vk");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->n_public, 2u);
  EXPECT_EQ(back->alpha1, vk.alpha1);
  EXPECT_EQ(back->beta2, vk.beta2);
  EXPECT_EQ(back->gamma2, vk.gamma2);
  EXPECT_EQ(back->delta2, vk.delta2);
  EXPECT_EQ(back->ic, vk.ic);
  EXPECT_EQ(back->alphabeta_12, vk.alphabeta_12);
  EXPECT_EQ(vk_to_json<C>(*back), j);
  j.as_object()[2].second = Json::number(3);
  EXPECT_EQ(vk_from_json<C>(j, "vk").status().message(), "vk: IC must hold nPublic + 1 = 4 points");
}

}  // namespace
}  // namespace cuzk::formats
