// The defining properties of the reduced pairing on both curves: bilinearity,
// non-degeneracy, values of order r, and the product check used by Groth16 verification.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/points.hpp"
#include "pairing/curve_params.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::pairing {
namespace {

template <class PC>
class PairingTest : public ::testing::Test {
 protected:
  using G1A = typename PC::G1Affine;
  using G2A = typename PC::G2Affine;
  using G1 = ec::Jacobian<typename G1A::Curve>;
  using G2 = ec::Jacobian<typename G2A::Curve>;
  using Fr = typename G1A::Curve::Scalar;
  using Fq12 = typename PC::Fq12;
  using Pair = std::pair<G1A, G2A>;

  std::mt19937_64 rng{0x9a1c0002};
  Fr scalar() { return Fr::random(rng); }
  G1A g1(const Fr& k) { return (G1::generator() * k).to_affine(); }
  G2A g2(const Fr& k) { return (G2::generator() * k).to_affine(); }
  G1A p() { return g1(scalar()); }
  G2A q() { return g2(scalar()); }
  static Fq12 e(const G1A& p, const G2A& q) { return pairing::pairing(p, q); }
  static Fq12 ml(const std::vector<Pair>& pairs) { return miller_loop(std::span<const Pair>(pairs)); }
  static bool product_is_one(const std::vector<Pair>& pairs) {
    return pairing_product_is_one(std::span<const Pair>(pairs));
  }
};

using Curves = ::testing::Types<Bn254Pairing, Bls12381Pairing>;
TYPED_TEST_SUITE(PairingTest, Curves);

TYPED_TEST(PairingTest, IsNonDegenerate) {
  auto g = this->e(TypeParam::G1Affine::Curve::generator(), TypeParam::G2Affine::Curve::generator());
  EXPECT_FALSE(g.is_one());
  EXPECT_FALSE(g.is_zero());
}

TYPED_TEST(PairingTest, ValuesHaveOrderR) {
  using Fr = typename TestFixture::Fr;
  auto v = this->e(this->p(), this->q());
  EXPECT_FALSE(v.is_one());
  EXPECT_TRUE(v.pow(Fr::MODULUS).is_one());
}

TYPED_TEST(PairingTest, IsBilinearInScalars) {
  auto P = this->p();
  auto Q = this->q();
  auto base = this->e(P, Q);
  for (int i = 0; i < 2; ++i) {
    auto a = this->scalar();
    auto b = this->scalar();
    auto aP = (TestFixture::G1::from_affine(P) * a).to_affine();
    auto bQ = (TestFixture::G2::from_affine(Q) * b).to_affine();
    EXPECT_EQ(this->e(aP, bQ), base.pow((a * b).to_canonical()));
  }
}

TYPED_TEST(PairingTest, IsAdditiveInG1) {
  using G1 = typename TestFixture::G1;
  auto P1 = this->p();
  auto P2 = this->p();
  auto Q = this->q();
  auto sum = (G1::from_affine(P1) + G1::from_affine(P2)).to_affine();
  EXPECT_EQ(this->e(sum, Q), this->e(P1, Q) * this->e(P2, Q));
}

TYPED_TEST(PairingTest, IsAdditiveInG2) {
  using G2 = typename TestFixture::G2;
  auto P = this->p();
  auto Q1 = this->q();
  auto Q2 = this->q();
  auto sum = (G2::from_affine(Q1) + G2::from_affine(Q2)).to_affine();
  EXPECT_EQ(this->e(P, sum), this->e(P, Q1) * this->e(P, Q2));
}

TYPED_TEST(PairingTest, NegationInvertsTheValue) {
  auto P = this->p();
  auto Q = this->q();
  auto negP = P;
  negP.y = -negP.y;
  auto negQ = Q;
  negQ.y = -negQ.y;
  auto v = this->e(P, Q);
  EXPECT_EQ(this->e(negP, Q), v.conjugate());
  EXPECT_EQ(this->e(P, negQ), v.conjugate());
  EXPECT_EQ(this->e(negP, Q) * v, TestFixture::Fq12::one());
}

TYPED_TEST(PairingTest, InfinityContributesOne) {
  using G1A = typename TestFixture::G1A;
  using G2A = typename TestFixture::G2A;
  EXPECT_TRUE(this->e(G1A::infinity(), this->q()).is_one());
  EXPECT_TRUE(this->e(this->p(), G2A::infinity()).is_one());
  auto P = this->p();
  auto Q = this->q();
  EXPECT_EQ(this->ml({{P, Q}, {G1A::infinity(), this->q()}, {this->p(), G2A::infinity()}}), this->ml({{P, Q}}));
  EXPECT_TRUE(this->ml({}).is_one());
  EXPECT_TRUE(this->product_is_one({}));
}

TYPED_TEST(PairingTest, MultiMillerLoopIsProductOfSingleLoops) {
  auto a = std::make_pair(this->p(), this->q());
  auto b = std::make_pair(this->p(), this->q());
  auto c = std::make_pair(this->p(), this->q());
  EXPECT_EQ(this->ml({a, b, c}), this->ml({a}) * this->ml({b}) * this->ml({c}));
}

TYPED_TEST(PairingTest, ProductCheckAcceptsBalancedPairs) {
  using G1 = typename TestFixture::G1;
  auto a = this->scalar();
  auto b = this->scalar();
  auto P = this->p();
  auto Q = this->q();
  auto aP = (G1::from_affine(P) * a).to_affine();
  auto bQ = (TestFixture::G2::from_affine(Q) * b).to_affine();
  auto abP = (G1::from_affine(P) * (a * b)).to_affine();
  abP.y = -abP.y;
  EXPECT_TRUE(this->product_is_one({{aP, bQ}, {abP, Q}}));
  // A Groth16-shaped equation with four pairs: e(A,B) = e(alpha,beta) e(L,gamma) e(C,delta).
  auto alpha = this->scalar(), beta = this->scalar(), l = this->scalar(), gamma = this->scalar();
  auto c = this->scalar(), delta = this->scalar(), x = this->scalar();
  // Choose B = x G2 and A so that A x = alpha beta + l gamma + c delta.
  auto A = (alpha * beta + l * gamma + c * delta) * x.inverse();
  auto neg = [](auto pt) {
    pt.y = -pt.y;
    return pt;
  };
  EXPECT_TRUE(this->product_is_one({{this->g1(A), this->g2(x)},
                                     {neg(this->g1(alpha)), this->g2(beta)},
                                     {neg(this->g1(l)), this->g2(gamma)},
                                     {neg(this->g1(c)), this->g2(delta)}}));
}

TYPED_TEST(PairingTest, ProductCheckRejectsUnbalancedPairs) {
  using G1 = typename TestFixture::G1;
  auto a = this->scalar();
  auto b = this->scalar();
  auto P = this->p();
  auto Q = this->q();
  auto aP = (G1::from_affine(P) * a).to_affine();
  auto bQ = (TestFixture::G2::from_affine(Q) * b).to_affine();
  auto wrong = (G1::from_affine(P) * (a * b + TestFixture::Fr::one())).to_affine();
  wrong.y = -wrong.y;
  EXPECT_FALSE(this->product_is_one({{aP, bQ}, {wrong, Q}}));
  EXPECT_FALSE(this->product_is_one({{aP, bQ}}));
}

}  // namespace
}  // namespace cuzk::pairing
