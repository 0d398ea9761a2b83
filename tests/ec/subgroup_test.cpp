// Fast subgroup checks agree with [r]P == O, inside and outside the subgroup.
#include <gtest/gtest.h>

#include <random>

#include "ec/endomorphism.hpp"
#include "ec/points.hpp"
#include "ec/subgroup.hpp"
#include "random_points.hpp"

namespace cuzk::ec {
namespace {

using fixtures::random_curve_point;

template <class C>
class SubgroupTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0xec0002};
  Affine<C> subgroup_point() { return (Jacobian<C>::generator() * C::Scalar::random(rng)).to_affine(); }
};

using Groups = ::testing::Types<bn254::G1Config, bn254::G2Config, bls12_381::G1Config, bls12_381::G2Config>;
TYPED_TEST_SUITE(SubgroupTest, Groups);

constexpr int kTrials = 6;

TYPED_TEST(SubgroupTest, FastMatchesSlowOnSubgroupPoints) {
  EXPECT_TRUE(is_in_subgroup(Affine<TypeParam>::infinity()));
  EXPECT_TRUE(is_in_subgroup_slow(Affine<TypeParam>::infinity()));
  EXPECT_TRUE(is_in_subgroup(TypeParam::generator()));
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->subgroup_point();
    EXPECT_TRUE(is_in_subgroup_slow(p));
    EXPECT_TRUE(is_in_subgroup(p));
    EXPECT_TRUE(is_valid(p));
  }
}

TYPED_TEST(SubgroupTest, FastMatchesSlowOnRandomCurvePoints) {
  constexpr bool cofactor = !std::is_same_v<TypeParam, bn254::G1Config>;
  for (int i = 0; i < kTrials; ++i) {
    auto p = random_curve_point<TypeParam>(this->rng);
    ASSERT_TRUE(p.is_on_curve());
    bool slow = is_in_subgroup_slow(p);
    EXPECT_EQ(slow, !cofactor);  // a random point of a composite-order group is almost never in G
    EXPECT_EQ(is_in_subgroup(p), slow);
    EXPECT_EQ(is_valid(p), slow);
  }
}

// [r]P has order dividing the cofactor: a torsion point the check must reject, alone and
// added to a subgroup point.
TYPED_TEST(SubgroupTest, FastRejectsCofactorTorsion) {
  if constexpr (std::is_same_v<TypeParam, bn254::G1Config>) GTEST_SKIP() << "cofactor 1";
  using J = Jacobian<TypeParam>;
  constexpr auto r = TypeParam::Scalar::MODULUS;
  for (int i = 0; i < kTrials; ++i) {
    J t = J::from_affine(random_curve_point<TypeParam>(this->rng)).mul(r);
    ASSERT_FALSE(t.is_infinity());
    auto ta = t.to_affine();
    auto mixed = (t + this->subgroup_point()).to_affine();
    EXPECT_FALSE(is_in_subgroup_slow(ta));
    EXPECT_FALSE(is_in_subgroup(ta));
    EXPECT_FALSE(is_in_subgroup_slow(mixed));
    EXPECT_FALSE(is_in_subgroup(mixed));
  }
}

TYPED_TEST(SubgroupTest, OffCurvePointIsNotValid) {
  auto p = this->subgroup_point();
  p.y = p.y + TypeParam::Base::one();
  EXPECT_FALSE(is_valid(p));
}

TEST(Endomorphism, Bls12381BetaIsPrimitiveCubeRootOfUnity) {
  using bls12_381::Fq;
  Fq beta = bls12_381::glv_beta();
  EXPECT_FALSE(beta.is_one());
  EXPECT_TRUE((beta.square() * beta).is_one());
}

TEST(Endomorphism, Bls12381PhiActsAsMinusXSquaredOnG1) {
  using J = bls12_381::G1Jacobian;
  auto g = bls12_381::G1Config::generator();
  EXPECT_EQ(J::from_affine(bls12_381::phi(g)), -J::from_affine(g).mul(bls12_381::X_ABS).mul(bls12_381::X_ABS));
}

// (q-1)/3 and (q-1)/2 from the field's own constants.
template <class Fq>
typename Fq::Int q_minus_1_over(uint64_t d) {
  auto v = Fq::MODULUS;
  v.limb[0] -= 1;  // q is odd: no borrow
  typename Fq::Int quotient{};
  unsigned __int128 rem = 0;
  for (size_t i = Fq::N; i-- > 0;) {
    unsigned __int128 cur = (rem << 64) | v.limb[i];
    quotient.limb[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  EXPECT_EQ(uint64_t(rem), 0u);
  return quotient;
}

TEST(Endomorphism, Bls12381PsiConstantsMatchDefinition) {
  using namespace bls12_381;
  Fq2 xi(Fq::one(), Fq::one());
  EXPECT_EQ(psi_cx(), xi.pow(q_minus_1_over<Fq>(3)).inverse());
  EXPECT_EQ(psi_cy(), xi.pow(q_minus_1_over<Fq>(2)).inverse());
}

TEST(Endomorphism, Bn254PsiConstantsMatchDefinition) {
  using namespace bn254;
  Fq2 xi(Fq::from_u64(9), Fq::one());
  EXPECT_EQ(psi_cx(), xi.pow(q_minus_1_over<Fq>(3)));
  EXPECT_EQ(psi_cy(), xi.pow(q_minus_1_over<Fq>(2)));
}

TEST(Endomorphism, Bn254SixXSquaredIsTraceMinusOne) {
  // 6x^2 = (x * x) * 6, computed with 128-bit arithmetic.
  unsigned __int128 x = bn254::X.limb[0];
  unsigned __int128 v = x * x * 6;
  EXPECT_EQ(bn254::SIX_X_SQUARED.limb[0], uint64_t(v));
  EXPECT_EQ(bn254::SIX_X_SQUARED.limb[1], uint64_t(v >> 64));
}

TEST(Endomorphism, PsiActsAsFrobeniusEigenvalueOnG2) {
  auto g = bn254::G2Config::generator();
  EXPECT_EQ(bn254::G2Jacobian::from_affine(bn254::psi(g)), bn254::G2Jacobian::from_affine(g).mul(bn254::SIX_X_SQUARED));
  auto h = bls12_381::G2Config::generator();
  EXPECT_EQ(bls12_381::G2Jacobian::from_affine(bls12_381::psi(h)),
            -bls12_381::G2Jacobian::from_affine(h).mul(bls12_381::X_ABS));
}

// The BN254 G2 test applies psi to Jacobian points (Z != 1), on and off the subgroup.
TEST(Endomorphism, Bn254PsiOnJacobianPointsMatchesTheAffineOne) {
  std::mt19937_64 rng{std::random_device{}()};
  using J = bn254::G2Jacobian;
  for (int i = 0; i < 3; ++i) {
    for (auto a :
         {(J::generator() * bn254::Fr::random(rng)).to_affine(), fixtures::random_curve_point<bn254::G2Config>(rng)}) {
      J p = J::from_affine(a).dbl() + J::from_affine(a);  // Z != 1
      EXPECT_EQ(bn254::psi(p), J::from_affine(bn254::psi(p.to_affine())));
    }
  }
}

TEST(Endomorphism, PsiMapsCurveToCurve) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(bn254::psi(random_curve_point<bn254::G2Config>(rng)).is_on_curve());
    EXPECT_TRUE(bls12_381::psi(random_curve_point<bls12_381::G2Config>(rng)).is_on_curve());
    EXPECT_TRUE(bls12_381::phi(random_curve_point<bls12_381::G1Config>(rng)).is_on_curve());
  }
}

}  // namespace
}  // namespace cuzk::ec
