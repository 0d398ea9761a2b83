#include <gtest/gtest.h>

#include <random>

#include "formats/zkey.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "scratch_dir.hpp"

namespace cuzk::groth16 {
namespace {

// One dev-setup key for a demo circuit, opened for proving.
template <class C>
struct Fixture {
  using Fr = typename C::Fr;
  testing::ScratchDir dir;
  ThreadPool pool{2};
  CpuBackend<C> backend{pool};
  DemoCircuit<Fr> circuit;
  VerifyingKey<C> vk;
  std::optional<formats::Zkey<C>> zkey;
  std::optional<Prover<C>> prover;

  explicit Fixture(uint32_t constraints, uint64_t seed = 1) {
    auto c = make_demo_circuit<Fr>(constraints, seed);
    EXPECT_TRUE(c.is_ok()) << c.status().to_string();
    circuit = std::move(*c);
    auto v = dev_setup<C>(circuit.r1cs, dir.file("k.zkey"), pool);
    EXPECT_TRUE(v.is_ok()) << v.status().to_string();
    vk = std::move(*v);
    auto z = formats::Zkey<C>::open(dir.file("k.zkey"));
    EXPECT_TRUE(z.is_ok()) << z.status().to_string();
    zkey.emplace(std::move(*z));
    auto p = Prover<C>::create(*zkey, backend, pool);
    EXPECT_TRUE(p.is_ok()) << p.status().to_string();
    prover.emplace(std::move(*p));
  }
};

template <class C>
class Groth16Test : public ::testing::Test {};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(Groth16Test, Curves);

TYPED_TEST(Groth16Test, ProofOfDemoCircuitVerifies) {
  using C = TypeParam;
  Fixture<C> f(300);
  auto out = f.prover->prove(f.circuit.witness);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  ASSERT_EQ(out->public_signals.size(), 4u);
  EXPECT_EQ(out->public_signals[0], f.circuit.witness[1]);
  Status s = verify<C>(f.vk, out->proof, out->public_signals);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_GT(out->timings.total, 0);
  EXPECT_GE(out->timings.total, out->timings.msm_total());
}

// A key opened for one-shot proving (pages dropped after each section is read) gives the
// same proofs as a resident one, proof after proof.
TYPED_TEST(Groth16Test, KeyNotKeptResidentProvesTheSame) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  Fixture<C> f(300);
  formats::ZkeyReadOptions opts;
  opts.keep_resident = false;
  auto z = formats::Zkey<C>::open(f.dir.file("k.zkey"), opts);
  ASSERT_TRUE(z.is_ok()) << z.status().to_string();
  auto p = Prover<C>::create(*z, f.backend, f.pool);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  for (int i = 0; i < 2; ++i) {
    auto got = p->prove_with_blinding(f.circuit.witness, Fr::from_u64(3), Fr::from_u64(4));
    auto want = f.prover->prove_with_blinding(f.circuit.witness, Fr::from_u64(3), Fr::from_u64(4));
    ASSERT_TRUE(got.is_ok() && want.is_ok());
    EXPECT_EQ(got->proof.a, want->proof.a);
    EXPECT_EQ(got->proof.b, want->proof.b);
    EXPECT_EQ(got->proof.c, want->proof.c);
    EXPECT_TRUE(verify<C>(f.vk, got->proof, got->public_signals).is_ok());
  }
}

TYPED_TEST(Groth16Test, KeyFileAndSetupAgreeOnTheVerifyingKeyAndSizes) {
  using C = TypeParam;
  Fixture<C> f(100);
  VerifyingKey<C> from_key = f.prover->verifying_key();
  EXPECT_EQ(from_key.alpha1, f.vk.alpha1);
  EXPECT_EQ(from_key.beta2, f.vk.beta2);
  EXPECT_EQ(from_key.delta2, f.vk.delta2);
  EXPECT_EQ(from_key.gamma2, C::G2::generator());
  EXPECT_EQ(from_key.ic, f.vk.ic);
  const auto& h = f.zkey->header();
  EXPECT_EQ(h.domain_size, 128u);  // 100 constraints + 4 public + 1 <= 128
  EXPECT_EQ(f.zkey->h().size(), 128u);
  EXPECT_EQ(snarkjs_domain_size(123, 4), 128u);
  EXPECT_EQ(snarkjs_domain_size(124, 4), 256u);
  size_t nnz = 0;
  for (uint32_t i = 0; i < f.circuit.r1cs.n_constraints; ++i) nnz += f.circuit.r1cs.a(i).size() + f.circuit.r1cs.b(i).size();
  EXPECT_EQ(f.zkey->coefficients().size(), nnz + 5);
}

TYPED_TEST(Groth16Test, EqualBlindingGivesEqualProofsOtherwiseTheyDiffer) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  Fixture<C> f(64);
  auto p1 = f.prover->prove_with_blinding(f.circuit.witness, Fr::from_u64(5), Fr::from_u64(9));
  auto p2 = f.prover->prove_with_blinding(f.circuit.witness, Fr::from_u64(5), Fr::from_u64(9));
  auto p3 = f.prover->prove(f.circuit.witness);
  ASSERT_TRUE(p1.is_ok() && p2.is_ok() && p3.is_ok());
  EXPECT_EQ(p1->proof.a, p2->proof.a);
  EXPECT_EQ(p1->proof.c, p2->proof.c);
  EXPECT_NE(p1->proof.a, p3->proof.a);
  EXPECT_TRUE(verify<C>(f.vk, p1->proof, p1->public_signals).is_ok());
  EXPECT_TRUE(verify<C>(f.vk, p3->proof, p3->public_signals).is_ok());
}

TYPED_TEST(Groth16Test, TamperedProofIsRejected) {
  using C = TypeParam;
  using G1J = ec::Jacobian<typename C::G1>;
  using G2J = ec::Jacobian<typename C::G2>;
  Fixture<C> f(64);
  auto out = f.prover->prove(f.circuit.witness);
  ASSERT_TRUE(out.is_ok());
  auto pub = out->public_signals;
  Proof<C> p = out->proof;
  p.a = (G1J::from_affine(p.a) + C::G1::generator()).to_affine();
  EXPECT_FALSE(verify<C>(f.vk, p, pub).is_ok());
  p = out->proof;
  p.b = (G2J::from_affine(p.b) + C::G2::generator()).to_affine();
  EXPECT_FALSE(verify<C>(f.vk, p, pub).is_ok());
  p = out->proof;
  p.c = {p.c.x, -p.c.y};
  Status s = verify<C>(f.vk, p, pub);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("pairing check failed"), std::string::npos) << s.message();
  p = out->proof;
  std::swap(p.a, p.c);
  EXPECT_FALSE(verify<C>(f.vk, p, pub).is_ok());
}

TYPED_TEST(Groth16Test, WrongPublicInputIsRejected) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  Fixture<C> f(64);
  auto out = f.prover->prove(f.circuit.witness);
  ASSERT_TRUE(out.is_ok());
  for (size_t i = 0; i < out->public_signals.size(); ++i) {
    auto pub = out->public_signals;
    pub[i] = (Fr::from_canonical(pub[i]) + Fr::one()).to_canonical();
    EXPECT_FALSE(verify<C>(f.vk, out->proof, pub).is_ok()) << "public signal " << i;
  }
  auto pub = out->public_signals;
  pub[0] = Fr::MODULUS;  // out of range: rejected before any pairing
  Status s = verify<C>(f.vk, out->proof, pub);
  EXPECT_NE(s.message().find("not below the field order r"), std::string::npos) << s.message();
  pub.pop_back();
  s = verify<C>(f.vk, out->proof, pub);
  EXPECT_NE(s.message().find("3 public signals given, the verification key expects 4"), std::string::npos)
      << s.message();
}

TYPED_TEST(Groth16Test, ProofForAnotherCircuitIsRejected) {
  using C = TypeParam;
  Fixture<C> f1(64, 1), f2(64, 2);
  auto out = f1.prover->prove(f1.circuit.witness);
  ASSERT_TRUE(out.is_ok());
  EXPECT_TRUE(verify<C>(f1.vk, out->proof, out->public_signals).is_ok());
  EXPECT_FALSE(verify<C>(f2.vk, out->proof, out->public_signals).is_ok());
}

TYPED_TEST(Groth16Test, WitnessOfWrongLengthIsRejectedWithAClearError) {
  using C = TypeParam;
  Fixture<C> f(64);
  auto w = f.circuit.witness;
  w.pop_back();
  auto out = f.prover->prove(w);
  ASSERT_FALSE(out.is_ok());
  EXPECT_NE(out.status().message().find("the witness has " + std::to_string(w.size()) + " values"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("expects nVars = " + std::to_string(w.size() + 1)), std::string::npos);
  w = f.circuit.witness;
  w[3] = C::Fr::MODULUS;
  out = f.prover->prove(w);
  ASSERT_FALSE(out.is_ok());
  EXPECT_NE(out.status().message().find("witness value 3 is not reduced below r"), std::string::npos);
}

TYPED_TEST(Groth16Test, ProofPointsOutsideTheSubgroupOrAtInfinityAreRejected) {
  using C = TypeParam;
  Fixture<C> f(32);
  auto out = f.prover->prove(f.circuit.witness);
  ASSERT_TRUE(out.is_ok());
  Proof<C> p = out->proof;
  p.c = ec::Affine<typename C::G1>::infinity();
  EXPECT_NE(verify<C>(f.vk, p, out->public_signals).message().find("pi_c is the point at infinity"), std::string::npos);
  // A random point of the twist is on the curve but, with a huge cofactor, off the subgroup.
  std::mt19937_64 rng(5);
  using Fq2 = typename C::Fq2;
  ec::Affine<typename C::G2> q;
  for (;;) {
    Fq2 x = Fq2::random(rng), y;
    if ((x.square() * x + C::G2::b()).sqrt(y)) {
      q = {x, y};
      break;
    }
  }
  ASSERT_TRUE(q.is_on_curve());
  p = out->proof;
  p.b = q;
  Status s = verify<C>(f.vk, p, out->public_signals);
  EXPECT_NE(s.message().find("pi_b is not in the prime-order subgroup"), std::string::npos) << s.message();
  p.b = {q.x, q.y + Fq2::one()};
  s = verify<C>(f.vk, p, out->public_signals);
  EXPECT_NE(s.message().find("pi_b is not on the curve"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace cuzk::groth16
