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

// e(G1, G2) as @noble/curves 2.4.0 pairing() returns it (snarkjs 0.7.5 / ffjavascript
// returns the same), canonical hex in tower order c0.c0.c0, c0.c0.c1, ..., c1.c2.c1.
constexpr const char* kNobleBn254GeneratorPairing[12] = {
    "0x262b253feda94cfe0da01bde280a3ed6f87e5feb898578b55e1f63739d870e95",
    "0x2e02d2cc795a2000a1b1f823879abbd397c4dea0918ed66b49d34b48efb8a4a",
    "0x13a9f2d6e29b128da5b1ad44b31977935fd2957387ecb1fc4e135402fdbd1de0",
    "0x40ba9fa500f1a5c4b31984a74e68659c4b420bd699ce630b130b08a6ea1162b",
    "0xafc2f3fd870678fbe359d7f9873f052478f590b211ce30bf5e3eeaef89eafdb",
    "0x1c54a530398c9064bdc662d929e645cadda9a712cc5a8243f9cddbd2d98dd1f0",
    "0x95c0fbf5d5a1ac023794a0d856f92591ba990ecfd4b7aef5c0d58c5dc2429fe",
    "0x14d3d6ca72d8a950a31dc10f7b4053c9e9ad9ebb590cb4a60f8215d4b99f2b4a",
    "0x1dc0e7bbc3d70e6689dc206b4b91c85759dc1a23043c585fdfaf545838ca7429",
    "0xb53320e5a6488cb98a855ffc837d2a75ab90d61ac16cc1b7ab2cd3ed5e22b97",
    "0x13a8afd3085dae4c6c91476ef36cd1d318ce07bac42a9c0f9bd7fddaf5ebd723",
    "0xf97b5221474526b601f3730a3afa965ceee1b343940c383e5314859e762c97"};
constexpr const char* kNobleBls12381GeneratorPairing[12] = {
    "0x1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "0x89a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "0x1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "0x193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "0x1b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "0x18107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "0x19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "0x6fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "0x11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "0x3350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "0x4c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0xf41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631"};

template <class Fq12>
Fq12 fq12_from_hex(const char* const (&hex)[12]) {
  using F2 = typename Fq12::F2;
  using Fq = typename F2::Fq;
  auto c = [&](int i) {
    return F2(Fq::from_canonical(ff::bigint_from_hex<Fq::N>(hex[i])), Fq::from_canonical(ff::bigint_from_hex<Fq::N>(hex[i + 1])));
  };
  return Fq12({c(0), c(2), c(4)}, {c(6), c(8), c(10)});
}

TEST(PairingCompat, Bn254MatchesNobleAndSnarkjs) {
  EXPECT_EQ(pairing_compat(bn254::G1Config::generator(), bn254::G2Config::generator()),
            fq12_from_hex<bn254::Fq12>(kNobleBn254GeneratorPairing));
}

TEST(PairingCompat, Bls12381MatchesNobleAndSnarkjs) {
  EXPECT_EQ(pairing_compat(bls12_381::G1Config::generator(), bls12_381::G2Config::generator()),
            fq12_from_hex<bls12_381::Fq12>(kNobleBls12381GeneratorPairing));
}

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
