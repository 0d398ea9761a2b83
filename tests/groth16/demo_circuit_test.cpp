#include "groth16/demo_circuit.hpp"

#include <gtest/gtest.h>

#include "ec/curves.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
class DemoCircuitTest : public ::testing::Test {};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(DemoCircuitTest, Curves);

template <class Fr>
std::vector<Fr> as_field(const std::vector<typename Fr::Int>& w) {
  std::vector<Fr> out;
  for (const auto& v : w) out.push_back(Fr::from_canonical(v));
  return out;
}

TYPED_TEST(DemoCircuitTest, HasExactlyTheRequestedConstraintsAndIsSatisfied) {
  using Fr = typename TypeParam::Fr;
  for (uint32_t n : {4u, 5u, 33u, 100u, 1000u, 4093u}) {
    auto c = make_demo_circuit<Fr>(n, n);
    ASSERT_TRUE(c.is_ok()) << c.status().to_string();
    EXPECT_EQ(c->r1cs.n_constraints, n);
    EXPECT_EQ(c->r1cs.offsets.size(), 3 * size_t(n) + 1);
    EXPECT_EQ(c->witness.size(), c->r1cs.n_vars);
    EXPECT_EQ(c->r1cs.n_public(), 4u);
    EXPECT_TRUE(c->r1cs.is_satisfied(as_field<Fr>(c->witness))) << n << " constraints";
  }
}

TYPED_TEST(DemoCircuitTest, WitnessIsMostlyBitsLikeHashCircuits) {
  using Fr = typename TypeParam::Fr;
  auto c = make_demo_circuit<Fr>(1 << 12, 7);
  ASSERT_TRUE(c.is_ok());
  size_t bits = 0;
  for (const auto& v : c->witness) bits += v.is_zero() || v == Fr::Int::from_u64(1);
  EXPECT_GT(bits * 10, c->witness.size() * 7);  // > 70% zeros and ones
  EXPECT_LT(bits, c->witness.size());           // and some full-size values
}

TYPED_TEST(DemoCircuitTest, SameSeedSameCircuitDifferentSeedDifferentWitness) {
  using Fr = typename TypeParam::Fr;
  auto a = make_demo_circuit<Fr>(300, 1), b = make_demo_circuit<Fr>(300, 1), c = make_demo_circuit<Fr>(300, 2);
  ASSERT_TRUE(a.is_ok() && b.is_ok() && c.is_ok());
  EXPECT_EQ(a->witness, b->witness);
  EXPECT_NE(a->witness, c->witness);
}

TYPED_TEST(DemoCircuitTest, BreakingOneWitnessValueUnsatisfiesIt) {
  using Fr = typename TypeParam::Fr;
  auto c = make_demo_circuit<Fr>(200, 3);
  ASSERT_TRUE(c.is_ok());
  auto w = as_field<Fr>(c->witness);
  for (size_t i : {size_t(1), size_t(2), w.size() / 2, w.size() - 1}) {
    auto bad = w;
    bad[i] += Fr::one();
    EXPECT_FALSE(c->r1cs.is_satisfied(bad)) << "wire " << i;
  }
}

TYPED_TEST(DemoCircuitTest, RejectsTooFewConstraints) {
  auto c = make_demo_circuit<typename TypeParam::Fr>(3, 0);
  ASSERT_FALSE(c.is_ok());
  EXPECT_NE(c.status().message().find("at least 4"), std::string::npos);
}

// The chain: exactly the constraints asked for, satisfied, every private value full-size,
// the public signals out = t_n^2, acc = t_n, x, y; a broken value unsatisfies it.
TYPED_TEST(DemoCircuitTest, ChainIsSatisfiedWithFullSizeValues) {
  using Fr = typename TypeParam::Fr;
  for (uint32_t n : {2u, 3u, 100u, 4091u}) {
    auto c = make_chain_circuit<Fr>(n, n);
    ASSERT_TRUE(c.is_ok()) << c.status().to_string();
    EXPECT_EQ(c->r1cs.n_constraints, n);
    EXPECT_EQ(c->r1cs.n_public(), 4u);
    EXPECT_EQ(c->witness.size(), c->r1cs.n_vars);
    EXPECT_EQ(c->r1cs.terms.capacity(), c->r1cs.terms.size());
    auto w = as_field<Fr>(c->witness);
    EXPECT_TRUE(c->r1cs.is_satisfied(w)) << n << " constraints";
    EXPECT_EQ(w[1], w[2] * w[2]);  // out = acc^2
    size_t small = 0;
    for (size_t i = 5; i < w.size(); ++i) small += c->witness[i].is_zero() || c->witness[i] == Fr::Int::from_u64(1);
    EXPECT_EQ(small, 0u);
    for (size_t i : {size_t(2), w.size() - 1}) {
      auto bad = w;
      bad[i] += Fr::one();
      EXPECT_FALSE(c->r1cs.is_satisfied(bad)) << "value " << i;
    }
  }
  EXPECT_FALSE(make_chain_circuit<Fr>(1, 1).is_ok());
  EXPECT_TRUE(make_named_circuit<Fr>("chain", 10, 1).is_ok());
  auto bad = make_named_circuit<Fr>("sha", 10, 1);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("expected demo or chain"), std::string::npos);
}

}  // namespace
}  // namespace cuzk::groth16
