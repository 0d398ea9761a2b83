// The tower-level pieces of the pairing: Frobenius maps, cyclotomic arithmetic, sparse
// line products and the fast final exponentiation, each against a slow definition.
#include <gtest/gtest.h>

#include <random>

#include "pairing/curve_params.hpp"
#include "pairing/final_exponentiation.hpp"
#include "pairing/frobenius.hpp"
#include "pairing/miller_loop.hpp"
#include "reference.hpp"

namespace cuzk::pairing {
namespace {

template <class PC>
class TowerTest : public ::testing::Test {
 protected:
  using Fq = typename PC::Fq;
  using Fq2 = typename PC::Fq2;
  using Fq6 = typename PC::Fq6;
  using Fq12 = typename PC::Fq12;
  using Fr = typename PC::G1Affine::Curve::Scalar;

  std::mt19937_64 rng{0x9a1c0001};
  Fq2 fq2() { return Fq2::random(rng); }
  Fq12 fq12() { return Fq12::random(rng); }
  // A random element of the cyclotomic subgroup.
  Fq12 cyclotomic() { return final_exponentiation_easy<PC>(fq12()); }
};

using Curves = ::testing::Types<Bn254Pairing, Bls12381Pairing>;
TYPED_TEST_SUITE(TowerTest, Curves);

TYPED_TEST(TowerTest, Fq12FrobeniusIsPowerOfQ) {
  using Fq = typename TestFixture::Fq;
  auto f = this->fq12();
  for (unsigned k = 1; k <= 3; ++k) {
    EXPECT_EQ(frobenius_map(f, k), f.pow(testing::q_power<Fq>(k))) << "k = " << k;
  }
}

TYPED_TEST(TowerTest, Fq6FrobeniusIsPowerOfQ) {
  using Fq = typename TestFixture::Fq;
  using Fq6 = typename TestFixture::Fq6;
  using Fq12 = typename TestFixture::Fq12;
  auto a = Fq6::random(this->rng);
  Fq12 embedded{a, Fq6::zero()};  // Fq6 has no pow of its own
  for (unsigned k = 1; k <= 3; ++k) {
    EXPECT_EQ(Fq12(frobenius_map(a, k), Fq6::zero()), embedded.pow(testing::q_power<Fq>(k))) << "k = " << k;
  }
}

TYPED_TEST(TowerTest, FrobeniusIsAdditiveAndMultiplicative) {
  auto f = this->fq12();
  auto g = this->fq12();
  EXPECT_EQ(frobenius_map(f * g, 1), frobenius_map(f, 1) * frobenius_map(g, 1));
  EXPECT_EQ(frobenius_map(f + g, 2), frobenius_map(f, 2) + frobenius_map(g, 2));
  EXPECT_EQ(frobenius_map(frobenius_map(f, 1), 2), frobenius_map(f, 3));
}

TYPED_TEST(TowerTest, EasyPartLandsInCyclotomicSubgroup) {
  using Fq12 = typename TestFixture::Fq12;
  auto g = this->cyclotomic();
  // Order dividing q^6 + 1 and Phi_12(q) = q^4 - q^2 + 1, i.e. g^(q^4) g = g^(q^2).
  EXPECT_EQ(g.conjugate() * g, Fq12::one());
  EXPECT_EQ(frobenius_map(frobenius_map(g, 2), 2) * g, frobenius_map(g, 2));
}

TYPED_TEST(TowerTest, CyclotomicSquareMatchesSquare) {
  for (int i = 0; i < 4; ++i) {
    auto g = this->cyclotomic();
    EXPECT_EQ(cyclotomic_square(g), g.square());
  }
}

TYPED_TEST(TowerTest, CyclotomicSquareDiffersOutsideTheSubgroup) {
  // Guards the test above: on a generic element the shortcut is not a squaring.
  auto f = this->fq12();
  EXPECT_NE(cyclotomic_square(f), f.square());
}

TYPED_TEST(TowerTest, SignedDigitsEncodeTheExponent) {
  for (int i = 0; i < 16; ++i) {
    unsigned __int128 e = (unsigned __int128)(this->rng() >> 2) << 62 | (this->rng() >> 2);
    for (const auto& d : {binary_digits(e), naf_digits(e), signed_digits(e)}) {
      __int128 v = 0;
      for (size_t j = d.len; j-- > 0;) v = 2 * v + d.digit[j];
      EXPECT_TRUE(v == (__int128)e);
    }
    auto n = naf_digits(e);
    for (size_t j = 0; j + 1 < n.len; ++j) EXPECT_FALSE(n.digit[j] != 0 && n.digit[j + 1] != 0);
  }
}

TYPED_TEST(TowerTest, CyclotomicPowMatchesPow) {
  auto g = this->cyclotomic();
  for (int i = 0; i < 4; ++i) {
    uint64_t hi = this->rng(), lo = this->rng();
    unsigned __int128 e = (unsigned __int128)hi << 64 | lo;
    ff::BigInt<2> eb{{lo, hi}};
    EXPECT_EQ(cyclotomic_pow(g, signed_digits(e)), g.pow(eb));
  }
  EXPECT_TRUE(cyclotomic_pow(g, signed_digits(0)).is_one());
}

TYPED_TEST(TowerTest, SparseLineProductsMatchFullMultiplication) {
  using Fq2 = typename TestFixture::Fq2;
  using Fq12 = typename TestFixture::Fq12;
  auto f = this->fq12();
  auto d0 = this->fq2(), d1 = this->fq2(), d2 = this->fq2();
  Fq12 l034{{d0, Fq2::zero(), Fq2::zero()}, {d1, d2, Fq2::zero()}};
  Fq12 l014{{d0, d1, Fq2::zero()}, {Fq2::zero(), d2, Fq2::zero()}};
  EXPECT_EQ(mul_by_034(f, d0, d1, d2), f * l034);
  EXPECT_EQ(mul_by_014(f, d0, d1, d2), f * l014);
}

TYPED_TEST(TowerTest, FastFinalExponentiationMatchesDefinition) {
  using Fq = typename TestFixture::Fq;
  using Fq12 = typename TestFixture::Fq12;
  using Fr = typename TestFixture::Fr;
  for (int i = 0; i < 2; ++i) {
    auto f = this->fq12();
    auto fast = final_exponentiation<TypeParam>(f);
    EXPECT_EQ(fast, (testing::final_exponentiation_reference<Fq12, Fq, Fr>(f)));
    EXPECT_FALSE(fast.is_one());
  }
}

TYPED_TEST(TowerTest, CompatFinalExponentiationIsItsFixedPowerOfTheStandardOne) {
  // 3 on BLS12, 2x(6x^2 + 3x + 1) on BN.
  testing::Mpz k;
  if constexpr (TypeParam::FAMILY == Family::BN) {
    testing::Mpz x(ff::BigInt<1>{{TypeParam::X_ABS}});
    mpz_mul(k.get(), x.get(), x.get());
    mpz_mul_ui(k.get(), k.get(), 6);
    mpz_addmul_ui(k.get(), x.get(), 3);
    mpz_add_ui(k.get(), k.get(), 1);
    mpz_mul(k.get(), k.get(), x.get());
    mpz_mul_ui(k.get(), k.get(), 2);
  } else {
    mpz_set_ui(k.get(), 3);
  }
  auto f = this->fq12();
  EXPECT_EQ(final_exponentiation_compat<TypeParam>(f), final_exponentiation<TypeParam>(f).pow(k.to_wide()));
}

TYPED_TEST(TowerTest, FinalExponentiationLandsInOrderRSubgroup) {
  using Fr = typename TestFixture::Fr;
  auto g = final_exponentiation<TypeParam>(this->fq12());
  EXPECT_TRUE(g.pow(Fr::MODULUS).is_one());
}

TYPED_TEST(TowerTest, FinalExponentiationKillsSubfieldFactors) {
  // The Miller loop drops Fq6 factors of its lines; the final exponentiation must not see them.
  using Fq6 = typename TestFixture::Fq6;
  using Fq12 = typename TestFixture::Fq12;
  auto f = this->fq12();
  Fq12 s{Fq6::random(this->rng), Fq6::zero()};
  EXPECT_EQ(final_exponentiation<TypeParam>(f * s), final_exponentiation<TypeParam>(f));
}

}  // namespace
}  // namespace cuzk::pairing
