// verify against a PreparedVerifyingKey must decide exactly as verify against the plain
// key, with the same message, on valid proofs and on every kind of bad input.
#include "groth16/prepared_verifier.hpp"

#include <gtest/gtest.h>

#include <random>

#include "groth16/demo_circuit.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "scratch_dir.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
class PreparedVerifyTest : public ::testing::Test {
 protected:
  using Fr = typename C::Fr;
  using G1A = ec::Affine<typename C::G1>;
  using G2A = ec::Affine<typename C::G2>;
  using G1J = ec::Jacobian<typename C::G1>;
  using G2J = ec::Jacobian<typename C::G2>;
  using Pub = std::vector<typename Fr::Int>;

  // Fresh randomness every run; the seed is printed with any failure.
  uint64_t seed = std::random_device{}();
  std::mt19937_64 rng{seed};
  Fr rnd() { return Fr::random(rng); }

  // A key with known discrete logs and a valid proof: C = (ab - alpha beta - gamma x) / delta
  // for x the discrete log of IC_0 + sum pub_i IC_i.
  struct Instance {
    VerifyingKey<C> vk;
    Proof<C> proof;
    Pub pub;
  };
  Instance instance(size_t n_public, const std::vector<Fr>& signals = {}) {
    Instance in;
    Fr alpha = rnd(), beta = rnd(), gamma = rnd(), delta = rnd(), a = rnd(), b = rnd(), x = rnd();
    in.vk.n_public = uint32_t(n_public);
    in.vk.ic.push_back((G1J::generator() * x).to_affine());
    for (size_t i = 0; i < n_public; ++i) {
      Fr ic = rnd(), p = i < signals.size() ? signals[i] : rnd();
      in.vk.ic.push_back((G1J::generator() * ic).to_affine());
      in.pub.push_back(p.to_canonical());
      x = x + ic * p;
    }
    in.vk.alpha1 = (G1J::generator() * alpha).to_affine();
    in.vk.beta2 = (G2J::generator() * beta).to_affine();
    in.vk.gamma2 = (G2J::generator() * gamma).to_affine();
    in.vk.delta2 = (G2J::generator() * delta).to_affine();
    in.proof.a = (G1J::generator() * a).to_affine();
    in.proof.b = (G2J::generator() * b).to_affine();
    in.proof.c = (G1J::generator() * ((a * b - alpha * beta - gamma * x) * delta.inverse())).to_affine();
    return in;
  }

  // Both verifiers on one input: the same decision and message. Returns the status.
  Status both(const PreparedVerifyingKey<C>& pvk, const Proof<C>& proof, const Pub& pub) {
    Status plain = verify<C>(pvk.key(), proof, pub);
    Status prepared = verify<C>(pvk, proof, pub);
    EXPECT_EQ(prepared.is_ok(), plain.is_ok()) << "seed " << seed << ": " << plain.to_string();
    EXPECT_EQ(prepared.message(), plain.message()) << "seed " << seed;
    return prepared;
  }

  // A point of the curve that, with overwhelming probability, is off the prime-order
  // subgroup (on BN254 G1, cofactor 1, it is simply some other point): a random x with a
  // square root, the cofactor not cleared.
  template <class P>
  ec::Affine<P> raw_curve_point() {
    using Base = typename P::Base;
    for (;;) {
      Base x = Base::random(rng), y;
      if ((x.square() * x + P::b()).sqrt(y)) return {x, y};
    }
  }

  // The tampered and malformed variants of a valid proof; each must be rejected by both
  // verifiers alike (the first is the proof itself, accepted).
  void expect_agreement_on_variants(const PreparedVerifyingKey<C>& pvk, const Proof<C>& good, const Pub& pub) {
    EXPECT_TRUE(both(pvk, good, pub).is_ok()) << "seed " << seed;
    auto rejected = [&](const Proof<C>& p, const Pub& s, const char* what) {
      EXPECT_FALSE(both(pvk, p, s).is_ok()) << what << ", seed " << seed;
    };
    Proof<C> p = good;
    p.a = (G1J::from_affine(good.a) + C::G1::generator()).to_affine();
    rejected(p, pub, "pi_a + G1");
    p = good;
    p.b = (G2J::from_affine(good.b) + C::G2::generator()).to_affine();
    rejected(p, pub, "pi_b + G2");
    p = good;
    p.c = -good.c;
    rejected(p, pub, "-pi_c");
    p = good;
    std::swap(p.a, p.c);
    rejected(p, pub, "pi_a and pi_c swapped");
    p = good;
    p.a = G1A::infinity();
    rejected(p, pub, "pi_a at infinity");
    p = good;
    p.b = G2A::infinity();
    rejected(p, pub, "pi_b at infinity");
    p = good;
    p.c = G1A::infinity();
    rejected(p, pub, "pi_c at infinity");
    p = good;
    p.a.y = p.a.y + C::Fq::one();
    rejected(p, pub, "pi_a off the curve");
    p = good;
    p.b.x = p.b.x + C::Fq2::one();
    rejected(p, pub, "pi_b off the curve");
    p = good;
    p.c.y = p.c.y + C::Fq::one();
    rejected(p, pub, "pi_c off the curve");
    p = good;
    p.a = raw_curve_point<typename C::G1>();
    rejected(p, pub, "pi_a off the subgroup");
    p = good;
    p.b = raw_curve_point<typename C::G2>();
    rejected(p, pub, "pi_b off the subgroup");
    p = good;
    p.c = raw_curve_point<typename C::G1>();
    rejected(p, pub, "pi_c off the subgroup");
    // Two faults at once: the message names the one verify checks first (pi_b's subgroup
    // test runs in another place on the prepared path).
    p = good;
    p.b = raw_curve_point<typename C::G2>();
    p.c = G1A::infinity();
    rejected(p, pub, "pi_b off the subgroup, pi_c at infinity");
    p.a.y = p.a.y + C::Fq::one();
    rejected(p, pub, "pi_b off the subgroup, pi_a off the curve");
    p = good;
    p.b = raw_curve_point<typename C::G2>();
    if (!pub.empty()) {
      Pub s = pub;
      s[0] = Fr::MODULUS;
      rejected(p, s, "pi_b off the subgroup, a public signal equal to r");
    }
    for (size_t i = 0; i < pub.size(); ++i) {
      Pub s = pub;
      s[i] = (Fr::from_canonical(s[i]) + Fr::one()).to_canonical();
      rejected(good, s, "a public signal + 1");
      s[i] = Fr::MODULUS;
      rejected(good, s, "a public signal equal to r");
    }
    Pub s = pub;
    s.push_back(Fr::one().to_canonical());
    rejected(good, s, "one public signal too many");
    if (!pub.empty()) {
      s = pub;
      s.pop_back();
      rejected(good, s, "one public signal too few");
    }
  }
};

using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(PreparedVerifyTest, Curves);

TYPED_TEST(PreparedVerifyTest, AgreesWithVerifyOnValidAndTamperedProofs) {
  for (size_t n : {0, 1, 4}) {
    auto in = this->instance(n);
    PreparedVerifyingKey<TypeParam> pvk(in.vk);
    this->expect_agreement_on_variants(pvk, in.proof, in.pub);
  }
}

// The window recoding of the IC sum at its edges: zero, one, r - 1, powers of two and
// all-ones windows, where the signed digits carry.
TYPED_TEST(PreparedVerifyTest, IcSumMatchesScalarMultiplicationAtTheEdges) {
  using Fr = typename TypeParam::Fr;
  using G1J = typename TestFixture::G1J;
  Fr minus_one = Fr::zero() - Fr::one();
  Fr eights = Fr::zero(), ffs = Fr::zero();
  for (int i = 0; i < 60; ++i) {
    eights = eights * Fr::from_u64(16) + Fr::from_u64(8);
    ffs = ffs * Fr::from_u64(16) + Fr::from_u64(15);
  }
  const std::vector<Fr> signals{Fr::zero(),
                                Fr::one(),
                                minus_one,
                                Fr::from_u64(8),
                                Fr::from_u64(9),
                                eights,
                                ffs,
                                Fr::from_u64(uint64_t(1) << 63),
                                this->rnd(),
                                minus_one - eights};
  auto in = this->instance(signals.size(), signals);
  PreparedVerifyingKey<TypeParam> pvk(in.vk);
  G1J want = G1J::from_affine(in.vk.ic[0]);
  for (size_t i = 0; i < in.pub.size(); ++i) want += G1J::from_affine(in.vk.ic[i + 1]).mul(in.pub[i]);
  EXPECT_EQ(pvk.ic_sum(in.pub), want) << "seed " << this->seed;
  EXPECT_TRUE(this->both(pvk, in.proof, in.pub).is_ok());
}

// Past kMaxTabledInputs the IC points are multiplied out; the result must not change.
TYPED_TEST(PreparedVerifyTest, InputsBeyondTheTablesVerifyAlike) {
  constexpr size_t n = PreparedVerifyingKey<TypeParam>::kMaxTabledInputs + 2;
  auto in = this->instance(n);
  PreparedVerifyingKey<TypeParam> pvk(in.vk);
  EXPECT_EQ(pvk.tabled_inputs(), n - 2);
  EXPECT_TRUE(this->both(pvk, in.proof, in.pub).is_ok());
  auto pub = in.pub;
  pub[n - 1] = (TypeParam::Fr::from_canonical(pub[n - 1]) + TypeParam::Fr::one()).to_canonical();
  EXPECT_FALSE(this->both(pvk, in.proof, pub).is_ok());
}

TYPED_TEST(PreparedVerifyTest, MalformedKeyGivesVerifysMessage) {
  auto in = this->instance(3);
  in.vk.ic.pop_back();
  PreparedVerifyingKey<TypeParam> pvk(in.vk);
  Status s = this->both(pvk, in.proof, in.pub);
  EXPECT_NE(s.message().find("has 3 IC points for nPublic 3"), std::string::npos) << s.message();
}

// The other key's gamma2 or delta2 or alpha1: the prepared parts must come from the key.
TYPED_TEST(PreparedVerifyTest, ProofForAnotherKeyIsRejectedAlike) {
  auto in = this->instance(2);
  auto other = this->instance(2);
  for (int part = 0; part < 4; ++part) {
    auto vk = in.vk;
    if (part == 0) vk.alpha1 = other.vk.alpha1;
    if (part == 1) vk.beta2 = other.vk.beta2;
    if (part == 2) vk.gamma2 = other.vk.gamma2;
    if (part == 3) vk.delta2 = other.vk.delta2;
    PreparedVerifyingKey<TypeParam> pvk(vk);
    EXPECT_FALSE(this->both(pvk, in.proof, in.pub).is_ok()) << "part " << part;
  }
}

// Real proofs from the prover of a dev-setup key, the path the daemon takes.
TYPED_TEST(PreparedVerifyTest, AgreesWithVerifyOnProverProofs) {
  using C = TypeParam;
  testing::ScratchDir dir;
  ThreadPool pool{2};
  CpuBackend<C> backend{pool};
  auto circuit = make_demo_circuit<typename C::Fr>(64, this->seed);
  ASSERT_TRUE(circuit.is_ok()) << circuit.status().to_string();
  auto vk = dev_setup<C>(circuit->r1cs, dir.file("k.zkey"), pool);
  ASSERT_TRUE(vk.is_ok()) << vk.status().to_string();
  auto zkey = formats::Zkey<C>::open(dir.file("k.zkey"));
  ASSERT_TRUE(zkey.is_ok()) << zkey.status().to_string();
  auto prover = Prover<C>::create(*zkey, backend, pool);
  ASSERT_TRUE(prover.is_ok()) << prover.status().to_string();
  PreparedVerifyingKey<C> pvk(*vk);
  for (int i = 0; i < 2; ++i) {
    auto out = prover->prove(circuit->witness);
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    this->expect_agreement_on_variants(pvk, out->proof, out->public_signals);
  }
}

}  // namespace
}  // namespace cuzk::groth16
