// Group laws of the Jacobian and XYZZ point types on all four groups.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/batch_affine.hpp"
#include "ec/points.hpp"
#include "ec/xyzz_madd.hpp"

namespace cuzk::ec {
namespace {

template <class C>
class PointTest : public ::testing::Test {
 protected:
  using J = Jacobian<C>;
  using X = Xyzz<C>;
  using A = Affine<C>;
  using Fr = typename C::Scalar;

  std::mt19937_64 rng{0xec0001};
  Fr scalar() { return Fr::random(rng); }
  J point() { return J::generator() * scalar(); }
};

using Groups = ::testing::Types<bn254::G1Config, bn254::G2Config, bls12_381::G1Config, bls12_381::G2Config>;
TYPED_TEST_SUITE(PointTest, Groups);

constexpr int kTrials = 8;

TYPED_TEST(PointTest, GeneratorIsOnCurve) {
  EXPECT_TRUE(TypeParam::generator().is_on_curve());
  EXPECT_TRUE(Jacobian<TypeParam>::generator().is_on_curve());
  EXPECT_TRUE(Xyzz<TypeParam>::generator().is_on_curve());
}

TYPED_TEST(PointTest, ResultsStayOnCurve) {
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point();
    auto q = this->point();
    EXPECT_TRUE(p.is_on_curve());
    EXPECT_TRUE((p + q).is_on_curve());
    EXPECT_TRUE(p.dbl().is_on_curve());
    EXPECT_TRUE((p + q).to_affine().is_on_curve());
    EXPECT_TRUE(Xyzz<TypeParam>::from_jacobian(p + q).is_on_curve());
  }
}

TYPED_TEST(PointTest, OffCurvePointIsRejected) {
  auto p = this->point();
  p.x = p.x + TypeParam::Base::one();
  EXPECT_FALSE(p.is_on_curve());
  auto a = TypeParam::generator();
  a.y = a.y + TypeParam::Base::one();
  EXPECT_FALSE(a.is_on_curve());
}

TYPED_TEST(PointTest, AdditionIsAssociative) {
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point(), q = this->point(), r = this->point();
    EXPECT_EQ((p + q) + r, p + (q + r));
  }
}

TYPED_TEST(PointTest, AdditionIsCommutative) {
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point(), q = this->point();
    EXPECT_EQ(p + q, q + p);
  }
}

TYPED_TEST(PointTest, InfinityIsIdentity) {
  using J = Jacobian<TypeParam>;
  using A = Affine<TypeParam>;
  auto p = this->point();
  EXPECT_EQ(p + J::infinity(), p);
  EXPECT_EQ(J::infinity() + p, p);
  EXPECT_EQ(p + A::infinity(), p);
  EXPECT_EQ(J::infinity() + p.to_affine(), p);
  EXPECT_TRUE(J::infinity().dbl().is_infinity());
  EXPECT_TRUE(J::from_affine(A::infinity()).is_infinity());
  EXPECT_TRUE(J::infinity().to_affine().is_infinity());
  EXPECT_NE(p, J::infinity());
}

TYPED_TEST(PointTest, NegationIsInverse) {
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point();
    EXPECT_TRUE((p + (-p)).is_infinity());
    EXPECT_TRUE((p - p).is_infinity());
    EXPECT_TRUE((p + (-p.to_affine())).is_infinity());
    EXPECT_EQ(-(-p), p);
  }
}

TYPED_TEST(PointTest, DoublingEqualsSelfAddition) {
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point();
    EXPECT_EQ(p.dbl(), p + p);
    EXPECT_EQ(p.dbl(), p + p.to_affine());
    // The same point with a different Z must still be recognised as equal.
    auto q = p + this->point();
    auto q2 = (q + p) - p;
    EXPECT_EQ(q.dbl(), q + q2);
  }
}

TYPED_TEST(PointTest, MixedAdditionMatchesFullAddition) {
  using J = Jacobian<TypeParam>;
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point(), q = this->point();
    EXPECT_EQ(p + q.to_affine(), p + q);
    EXPECT_EQ(p - q.to_affine(), p - q);
    EXPECT_EQ(J::from_affine(p.to_affine()), p);
  }
}

TYPED_TEST(PointTest, XyzzMatchesJacobian) {
  using X = Xyzz<TypeParam>;
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point(), q = this->point();
    X xp = X::from_jacobian(p), xq = X::from_jacobian(q);
    EXPECT_EQ((xp + xq).to_jacobian(), p + q);
    EXPECT_EQ((xp + q.to_affine()).to_affine(), (p + q).to_affine());
    EXPECT_EQ(xp.dbl().to_jacobian(), p.dbl());
    EXPECT_EQ(xp + xp, xp.dbl());
    EXPECT_EQ(xp + p.to_affine(), xp.dbl());
    EXPECT_TRUE((xp - xp).is_infinity());
    EXPECT_TRUE((xp - p.to_affine()).is_infinity());
    EXPECT_EQ(xp + X::infinity(), xp);
    EXPECT_EQ(X::infinity() + xp, xp);
    EXPECT_EQ(X::from_affine(p.to_affine()), xp);
    auto k = this->scalar();
    EXPECT_EQ((xp * k).to_jacobian(), p * k);
  }
}

// The device MSM's in-place mixed addition: the same coordinates, bit for bit, as the
// operator (both fully reduce every value), including its special cases.
TYPED_TEST(PointTest, InPlaceMixedAdditionMatchesOperator) {
  using X = Xyzz<TypeParam>;
  using A = Affine<TypeParam>;
  struct Reduced3 {
    static typename TypeParam::Base mul(const typename TypeParam::Base& a, const typename TypeParam::Base& b) {
      if constexpr (requires { a.mul_reduced3(b); }) {
        return a.mul_reduced3(b);
      } else {
        return a * b;
      }
    }
    static typename TypeParam::Base sqr(const typename TypeParam::Base& a) { return a.square(); }
  };
  auto same = [](const X& a, const X& b) { return a.x == b.x && a.y == b.y && a.zz == b.zz && a.zzz == b.zzz; };
  auto check = [&](const X& acc, const A& o) {
    X plain = acc, reduced3 = acc;
    madd_in_place(plain, o);
    madd_in_place<Reduced3>(reduced3, o);
    EXPECT_TRUE(same(plain, acc + o));
    EXPECT_TRUE(same(reduced3, acc + o));
  };
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point(), q = this->point();
    // Z != 1 on the accumulator, as in a bucket after a few additions.
    X xp = X::from_jacobian(p + this->point());
    const A qa = q.to_affine(), pa = xp.to_affine();
    check(xp, qa);
    check(xp, -qa);
    check(xp, pa);   // doubling
    check(xp, -pa);  // infinity
    check(xp, A::infinity());
    check(X::infinity(), qa);
    check(X::infinity(), A::infinity());
    X chain = X::infinity(), ref = X::infinity();
    for (int k = 0; k < 4; ++k) {
      const A r = this->point().to_affine();
      madd_in_place(chain, r);
      ref += r;
    }
    EXPECT_TRUE(same(chain, ref));
  }
}

TYPED_TEST(PointTest, OrderTimesPointIsInfinity) {
  auto p = this->point();
  constexpr auto r = TypeParam::Scalar::MODULUS;
  EXPECT_TRUE(p.mul(r).is_infinity());
  EXPECT_TRUE(Xyzz<TypeParam>::from_jacobian(p).mul(r).is_infinity());
  auto r_minus_1 = r;
  r_minus_1.limb[0] -= 1;
  EXPECT_EQ(p.mul(r_minus_1), -p);
}

TYPED_TEST(PointTest, ScalarMultiplicationComposes) {
  for (int i = 0; i < kTrials; ++i) {
    auto p = this->point();
    auto a = this->scalar(), b = this->scalar();
    EXPECT_EQ((p * b) * a, p * (a * b));
    EXPECT_EQ(p * a + p * b, p * (a + b));
  }
}

TYPED_TEST(PointTest, SmallScalarsMatchRepeatedAddition) {
  using J = Jacobian<TypeParam>;
  using Fr = typename TypeParam::Scalar;
  auto p = this->point();
  J acc = J::infinity();
  for (uint64_t k = 0; k < 40; ++k) {
    EXPECT_EQ(p * Fr::from_u64(k), acc) << "k = " << k;
    EXPECT_EQ(p.mul(ff::BigInt<1>{{k}}), acc) << "k = " << k;
    acc += p;
  }
}

TYPED_TEST(PointTest, BatchToAffineMatchesToAffine) {
  using J = Jacobian<TypeParam>;
  using X = Xyzz<TypeParam>;
  std::vector<J> js;
  for (int i = 0; i < 2 * kTrials; ++i) js.push_back(i % 5 == 2 ? J::infinity() : this->point());
  auto got = batch_to_affine(js);
  std::vector<X> xs;
  for (const auto& j : js) xs.push_back(X::from_jacobian(j.dbl()));
  auto got_x = batch_to_affine(xs);
  ASSERT_EQ(got.size(), js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    EXPECT_EQ(got[i], js[i].to_affine()) << i;
    EXPECT_EQ(got_x[i], js[i].dbl().to_affine()) << i;
  }
  EXPECT_TRUE(batch_to_affine(std::vector<J>{}).empty());
}

}  // namespace
}  // namespace cuzk::ec
