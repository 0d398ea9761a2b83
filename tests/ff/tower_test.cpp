// Field axioms and the special maps of the extension towers Fq2, Fq6, Fq12 of both curves.
#include <gtest/gtest.h>

#include <random>

#include "ff/fields.hpp"

namespace cuzk::ff {
namespace {

template <class T>
class Tower : public ::testing::Test {
 protected:
  std::mt19937_64 rng{42};
  T rand() { return T::random(rng); }
};

using Towers = ::testing::Types<bn254::Fq2, bn254::Fq6, bn254::Fq12, bls12_381::Fq2, bls12_381::Fq6, bls12_381::Fq12>;
TYPED_TEST_SUITE(Tower, Towers);

constexpr int kCases = 200;

TYPED_TEST(Tower, MulIsCommutativeAndAssociative) {
  for (int i = 0; i < kCases; ++i) {
    TypeParam a = this->rand(), b = this->rand(), c = this->rand();
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ((a * b) * c, a * (b * c));
  }
}

TYPED_TEST(Tower, AddIsCommutativeAndAssociative) {
  for (int i = 0; i < kCases; ++i) {
    TypeParam a = this->rand(), b = this->rand(), c = this->rand();
    ASSERT_EQ(a + b, b + a);
    ASSERT_EQ((a + b) + c, a + (b + c));
    ASSERT_EQ(a - a, TypeParam::zero());
    ASSERT_EQ(a + (-a), TypeParam::zero());
    ASSERT_EQ((a - b) + b, a);
  }
}

TYPED_TEST(Tower, MulDistributesOverAdd) {
  for (int i = 0; i < kCases; ++i) {
    TypeParam a = this->rand(), b = this->rand(), c = this->rand();
    ASSERT_EQ(a * (b + c), a * b + a * c);
    ASSERT_EQ((a - b) * c, a * c - b * c);
  }
}

TYPED_TEST(Tower, SquareEqualsSelfProduct) {
  for (int i = 0; i < kCases; ++i) {
    TypeParam a = this->rand();
    ASSERT_EQ(a.square(), a * a);
  }
  ASSERT_EQ(TypeParam::zero().square(), TypeParam::zero());
  ASSERT_EQ(TypeParam::one().square(), TypeParam::one());
}

TYPED_TEST(Tower, InverseTimesSelfIsOne) {
  for (int i = 0; i < kCases; ++i) {
    TypeParam a = this->rand();
    ASSERT_TRUE((a * a.inverse()).is_one());
  }
  ASSERT_TRUE(TypeParam::one().inverse().is_one());
  ASSERT_TRUE(TypeParam::zero().inverse().is_zero());
}

template <class F2>
void check_fq2_frobenius_and_sqrt() {
  std::mt19937_64 rng(7);
  int squares = 0;
  for (int i = 0; i < kCases; ++i) {
    F2 a = F2::random(rng);
    ASSERT_EQ(a.frobenius_map(1), a.pow(F2::Fq::MODULUS)) << "x^q is the conjugate";
    ASSERT_EQ(a.frobenius_map(2), a);
    F2 s = a.square();
    ASSERT_EQ(s.legendre(), 1);
    F2 r;
    ASSERT_TRUE(s.sqrt(r));
    ASSERT_TRUE(r == a || r == -a);
    int l = a.legendre();
    bool ok = a.sqrt(r);
    ASSERT_EQ(ok, l == 1);
    if (ok) {
      ASSERT_EQ(r.square(), a);
      ++squares;
    }
  }
  // About half of all elements are squares; a sqrt that always failed would show here.
  EXPECT_GT(squares, kCases / 4);
  EXPECT_LT(squares, 3 * kCases / 4);
  F2 r;
  ASSERT_TRUE(F2::zero().sqrt(r));
  ASSERT_TRUE(r.is_zero());
  ASSERT_EQ(F2::zero().legendre(), 0);
  // -1 = u^2 is a square in Fq2 although not in Fq.
  F2 minus_one = -F2::one();
  ASSERT_TRUE(minus_one.sqrt(r));
  ASSERT_EQ(r.square(), minus_one);
}

// The three-reduced-products form (used where registers are short) is the same product.
template <class F>
void check_fq2_mul_reduced3() {
  std::mt19937_64 rng(0xf2f2);
  for (int i = 0; i < kCases; ++i) {
    const F a = F::random(rng), b = F::random(rng);
    ASSERT_EQ(a.mul_reduced3(b), a * b);
  }
  const F a = F::random(rng);
  ASSERT_EQ(a.mul_reduced3(F::zero()), F::zero());
  ASSERT_EQ(a.mul_reduced3(F::one()), a);
  ASSERT_EQ((-a).mul_reduced3(-a), a * a);
}
TEST(Fq2, MulReduced3MatchesMulBn254) { check_fq2_mul_reduced3<bn254::Fq2>(); }
TEST(Fq2, MulReduced3MatchesMulBls12381) { check_fq2_mul_reduced3<bls12_381::Fq2>(); }

TEST(Fq2, FrobeniusIsPowQAndSqrtMatchesLegendreBn254) { check_fq2_frobenius_and_sqrt<bn254::Fq2>(); }
TEST(Fq2, FrobeniusIsPowQAndSqrtMatchesLegendreBls12381) { check_fq2_frobenius_and_sqrt<bls12_381::Fq2>(); }

// x -> x^q is a ring homomorphism of Fq12 that fixes Fq and has order 12.
template <class F12>
void check_fq12_pow_q_is_frobenius() {
  std::mt19937_64 rng(9);
  auto q = F12::F2::Fq::MODULUS;
  for (int i = 0; i < 3; ++i) {
    F12 a = F12::random(rng), b = F12::random(rng);
    F12 aq = a.pow(q), bq = b.pow(q);
    ASSERT_EQ((a * b).pow(q), aq * bq);
    ASSERT_EQ((a + b).pow(q), aq + bq);
    ASSERT_NE(aq, a);
  }
  typename F12::F2::Fq k = F12::F2::Fq::random(rng);
  F12 base{typename F12::F6(typename F12::F2(k, F12::F2::Fq::zero()), F12::F2::zero(), F12::F2::zero()),
           F12::F6::zero()};
  ASSERT_EQ(base.pow(q), base);
}

TEST(Fq12, PowQIsARingHomomorphismBn254) { check_fq12_pow_q_is_frobenius<bn254::Fq12>(); }
TEST(Fq12, PowQIsARingHomomorphismBls12381) { check_fq12_pow_q_is_frobenius<bls12_381::Fq12>(); }

}  // namespace
}  // namespace cuzk::ff
