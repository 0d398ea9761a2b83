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

}  // namespace
}  // namespace cuzk::groth16
