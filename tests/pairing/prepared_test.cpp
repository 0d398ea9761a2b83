// Prepared Miller loops (pairing/prepared.hpp) and the "is one" final exponentiation
// (pairing/final_exponentiation_check.hpp) against the plain miller_loop and
// final_exponentiation they stand in for.
#include "pairing/prepared.hpp"

#include "pairing/final_exponentiation_check.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/points.hpp"
#include "ec/random_points.hpp"
#include "ec/subgroup.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::pairing {
namespace {

template <class PC>
class PreparedTest : public ::testing::Test {
 protected:
  using G1A = typename PC::G1Affine;
  using G2A = typename PC::G2Affine;
  using G1 = ec::Jacobian<typename G1A::Curve>;
  using G2 = ec::Jacobian<typename G2A::Curve>;
  using Fr = typename G1A::Curve::Scalar;
  using Pair = std::pair<G1A, G2A>;

  // Fresh points every run; the seed is printed with any failure.
  uint64_t seed = std::random_device{}();
  std::mt19937_64 rng{seed};
  G1A p() { return (G1::generator() * Fr::random(rng)).to_affine(); }
  G2A q() { return (G2::generator() * Fr::random(rng)).to_affine(); }

  // miller_loop_prepared over (p, q) and the prepared pairs, against miller_loop over all:
  // equal as computed with lines kept as they are, equal after the final exponentiation
  // with the lines scaled (BLS12-381).
  void expect_same_loop(const G1A& p, const G2A& q, const std::vector<Pair>& fixed) {
    std::vector<Pair> all{{p, q}};
    all.insert(all.end(), fixed.begin(), fixed.end());
    const auto want = miller_loop<PC>(std::span<const Pair>(all));
    for (bool scaling : {false, true}) {
      std::vector<G2Prepared<PC>> prepared;
      for (const auto& [pi, qi] : fixed) {
        prepared.push_back(prepare_g2<PC>(qi, scaling));
        EXPECT_EQ(prepared.back().scaled, scaling && PC::TWIST == Twist::M && !qi.is_infinity());
      }
      std::vector<PreparedPair<PC>> pairs;
      for (size_t i = 0; i < fixed.size(); ++i) pairs.push_back({fixed[i].first, &prepared[i]});
      const auto got = miller_loop_prepared<PC>(p, q, std::span<const PreparedPair<PC>>(pairs));
      if (!scaling) {
        EXPECT_EQ(got, want) << "seed " << seed << ", " << fixed.size() << " prepared pairs";
      }
      EXPECT_EQ(final_exponentiation<PC>(got), final_exponentiation<PC>(want))
          << "seed " << seed << ", " << fixed.size() << " prepared pairs, scaling " << scaling;
    }
  }
};

using Curves = ::testing::Types<Bn254Pairing, Bls12381Pairing>;
TYPED_TEST_SUITE(PreparedTest, Curves);

TYPED_TEST(PreparedTest, PreparedLoopEqualsPlainLoop) {
  for (size_t n : {0, 1, 2, 3, 5}) {
    std::vector<typename TestFixture::Pair> fixed;
    for (size_t i = 0; i < n; ++i) fixed.push_back({this->p(), this->q()});
    this->expect_same_loop(this->p(), this->q(), fixed);
  }
}

TYPED_TEST(PreparedTest, InfinityOnEitherSideContributesOne) {
  using G1A = typename TestFixture::G1A;
  using G2A = typename TestFixture::G2A;
  this->expect_same_loop(G1A::infinity(), this->q(), {{this->p(), this->q()}});
  this->expect_same_loop(this->p(), G2A::infinity(), {{this->p(), this->q()}});
  this->expect_same_loop(this->p(), this->q(), {{G1A::infinity(), this->q()}, {this->p(), G2A::infinity()}});
  this->expect_same_loop(G1A::infinity(), G2A::infinity(), {});
  EXPECT_TRUE(prepare_g2<TypeParam>(G2A::infinity()).is_infinity());
  EXPECT_FALSE(prepare_g2<TypeParam>(this->q()).is_infinity());
}

TYPED_TEST(PreparedTest, IsOneAgreesWithTheFullFinalExponentiation) {
  using Pair = typename TestFixture::Pair;
  using G1 = typename TestFixture::G1;
  using Fr = typename TestFixture::Fr;
  // Unbalanced: a random Miller-loop value is not sent to one.
  std::vector<Pair> pairs{{this->p(), this->q()}, {this->p(), this->q()}};
  auto f = miller_loop<TypeParam>(std::span<const Pair>(pairs));
  EXPECT_FALSE(final_exponentiation_is_one<TypeParam>(f)) << "seed " << this->seed;
  EXPECT_FALSE(final_exponentiation<TypeParam>(f).is_one());
  // Balanced: e(aP, Q) e(-P, aQ) = 1, though the Miller-loop value is not one.
  Fr a = Fr::random(this->rng);
  auto P = this->p();
  auto Q = this->q();
  auto aQ = (TestFixture::G2::from_affine(Q) * a).to_affine();
  pairs = {{(G1::from_affine(P) * a).to_affine(), Q}, {-P, aQ}};
  f = miller_loop<TypeParam>(std::span<const Pair>(pairs));
  EXPECT_FALSE(f.is_one());
  EXPECT_TRUE(final_exponentiation<TypeParam>(f).is_one());
  EXPECT_TRUE(final_exponentiation_is_one<TypeParam>(f)) << "seed " << this->seed;
  // Off by the smallest change: the pairing with the generator's multiple a + 1.
  pairs[0].first = (G1::from_affine(P) * (a + Fr::one())).to_affine();
  f = miller_loop<TypeParam>(std::span<const Pair>(pairs));
  EXPECT_FALSE(final_exponentiation_is_one<TypeParam>(f)) << "seed " << this->seed;
  EXPECT_TRUE(final_exponentiation_is_one<TypeParam>(TypeParam::Fq12::one()));
}

TYPED_TEST(PreparedTest, VartimeInverseEqualsTheConstantTimeOne) {
  for (int i = 0; i < 4; ++i) {
    auto x = TypeParam::Fq12::random(this->rng);
    EXPECT_EQ(inverse_vartime(x), x.inverse()) << "seed " << this->seed;
    EXPECT_TRUE((inverse_vartime(x) * x).is_one());
  }
}

// Elements of the cyclotomic subgroup: the easy part of the final exponentiation of
// random elements.
TYPED_TEST(PreparedTest, CompressedSquaringsAgreeWithCyclotomicSquaring) {
  using Fq12 = typename TypeParam::Fq12;
  for (int i = 0; i < 3; ++i) {
    Fq12 x = final_exponentiation_easy<TypeParam>(Fq12::random(this->rng));
    std::vector<CompressedFq12<typename TypeParam::Cfg>> c{compress(x)};
    Fq12 want = x;
    for (int k = 0; k < 5; ++k) {
      c.push_back(compressed_square(c.back()));
      want = cyclotomic_square(want);
    }
    const auto full = decompress(c);
    EXPECT_EQ(full.front(), x) << "seed " << this->seed;
    EXPECT_EQ(full.back(), want) << "seed " << this->seed;
    EXPECT_EQ(full.back(), x.pow(ff::BigInt<1>{{32}})) << "seed " << this->seed;
  }
  EXPECT_EQ(decompress(std::vector{compress(Fq12::one())}).front(), Fq12::one());
}

TYPED_TEST(PreparedTest, CompressedPowerByXEqualsThePlainOne) {
  using Fq12 = typename TypeParam::Fq12;
  for (int i = 0; i < 2; ++i) {
    Fq12 x = final_exponentiation_easy<TypeParam>(Fq12::random(this->rng));
    EXPECT_EQ(cyclotomic_pow_x_compressed<TypeParam>(x), cyclotomic_pow_x<TypeParam>(x)) << "seed " << this->seed;
  }
}

// The G2 subgroup test made from pi_b's walk through the BLS12-381 loop against
// ec::is_in_subgroup: on G2 points, random twist points (off G2), pure cofactor torsion
// (which meets the incomplete formulas' special cases) and torsion plus a G2 point.
TEST(PreparedWalk, Bls12381SubgroupTestFromTheWalkMatchesIsInSubgroup) {
  using PC = Bls12381Pairing;
  using G2 = ec::Jacobian<bls12_381::G2Config>;
  uint64_t seed = std::random_device{}();
  std::mt19937_64 rng{seed};
  auto from_walk = [](const bls12_381::G2Affine& q) {
    const auto p = bls12_381::G1Config::generator();
    G2Projective<PC> walk;
    miller_loop_prepared<PC>(p, q, std::span<const PreparedPair<PC>>(), &walk);
    return g2_in_subgroup_from_walk<PC>(q, walk);
  };
  constexpr auto r = bls12_381::Fr::MODULUS;
  for (int i = 0; i < 4; ++i) {
    const auto in = (G2::generator() * bls12_381::Fr::random(rng)).to_affine();
    const auto off = ec::fixtures::random_curve_point<bls12_381::G2Config>(rng);
    const auto torsion = G2::from_affine(off).mul(r);
    ASSERT_FALSE(torsion.is_infinity());
    const auto mixed = (torsion + G2::from_affine(in)).to_affine();
    for (const auto& q : {in, off, torsion.to_affine(), mixed}) {
      EXPECT_EQ(from_walk(q), ec::is_in_subgroup(q)) << "seed " << seed;
    }
    EXPECT_TRUE(from_walk(in));
    EXPECT_FALSE(from_walk(off)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace cuzk::pairing
