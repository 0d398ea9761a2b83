#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ff/fields.hpp"
#include "poly/h_poly.hpp"
#include "poly_test_util.hpp"

namespace cuzk::poly {
namespace {

using testing::horner;
using testing::random_vec;

template <class F>
std::vector<F> naive_product(const std::vector<F>& a, const std::vector<F>& b) {
  std::vector<F> p(a.size() + b.size() - 1, F::zero());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j)
      if (!b[j].is_zero()) p[i + j] += a[i] * b[j];
  return p;
}

// Random A, B of degree < n; their evaluations a, b on the domain and c = a·b, which are
// the evaluations of C = A·B mod (X^n − 1), as a circuit's witness would give. A sparse B
// (three terms, one of degree n − 1) keeps the quadratic product cheap for large n.
template <class F>
struct Instance {
  std::vector<F> A, B, AB, C;
  std::vector<F> a, b, c;
};

template <class F>
Instance<F> make_instance(const EvaluationDomain<F>& d, std::mt19937_64& rng, ThreadPool& pool, bool sparse_b = false) {
  Instance<F> t;
  size_t n = d.size();
  t.A = random_vec<F>(n, rng);
  if (sparse_b) {
    t.B.assign(n, F::zero());
    t.B[0] = F::random(rng);
    t.B[n / 2] = F::random(rng);
    t.B[n - 1] = F::random(rng);
  } else {
    t.B = random_vec<F>(n, rng);
  }
  t.AB = naive_product(t.A, t.B);
  t.C.assign(n, F::zero());
  for (size_t k = 0; k < t.AB.size(); ++k) t.C[k % n] += t.AB[k];
  t.a = t.A;
  t.b = t.B;
  d.ntt(t.a, pool);
  d.ntt(t.b, pool);
  t.c.resize(n);
  for (size_t i = 0; i < n; ++i) t.c[i] = t.a[i] * t.b[i];
  return t;
}

template <class F>
class HPolyTest : public ::testing::Test {};
using Fields = ::testing::Types<bn254::Fr, bls12_381::Fr>;
TYPED_TEST_SUITE(HPolyTest, Fields);

TYPED_TEST(HPolyTest, SnarkjsHEqualsABMinusCAtOddPointsOfDoubleDomain) {
  using F = TypeParam;
  std::mt19937_64 rng(11);
  for (auto conv : {ff::RootConvention::kSnarkjs, ff::RootConvention::kSeven}) {
    for (size_t k : {0, 1, 4, 7}) {
      ThreadPool pool(2);
      auto d = EvaluationDomain<F>::create(k, conv).value();
      auto t = make_instance(d, rng, pool);
      std::vector<typename F::Int> p(d.size());
      ASSERT_TRUE(snarkjs_h(d, std::span<F>(t.a), std::span<F>(t.b), std::span<F>(t.c), std::span(p), pool).is_ok());
      F w2 = ff::two_adic_root<F>(k + 1, conv);
      ASSERT_EQ(w2.square(), d.omega());
      for (size_t i = 0; i < d.size(); ++i) {
        F x = w2.pow(uint64_t(2 * i + 1));
        F want = horner(t.A, x) * horner(t.B, x) - horner(t.C, x);
        ASSERT_EQ(p[i], want.to_canonical()) << "k=" << k << " i=" << i;
      }
    }
  }
}

TYPED_TEST(HPolyTest, SnarkjsHIsNotDividedByZ) {
  using F = TypeParam;
  std::mt19937_64 rng(12);
  ThreadPool pool(2);
  auto d = EvaluationDomain<F>::create(3).value();
  auto t = make_instance(d, rng, pool);
  std::vector<typename F::Int> p(d.size());
  ASSERT_TRUE(snarkjs_h(d, std::span<F>(t.a), std::span<F>(t.b), std::span<F>(t.c), std::span(p), pool).is_ok());
  // P = A·B − C = h·Z and Z = −2 at every odd point of the 2n-domain.
  std::vector<F> h(t.AB.begin() + d.size(), t.AB.end());
  F w2 = snarkjs_odd_shift(d);
  for (size_t i = 0; i < d.size(); ++i) {
    F x = w2 * d.element(i);
    EXPECT_EQ(p[i], (horner(h, x) * -F::from_u64(2)).to_canonical());
  }
}

TYPED_TEST(HPolyTest, SnarkjsHRejectsMismatchedLengths) {
  using F = TypeParam;
  ThreadPool pool(1);
  auto d = EvaluationDomain<F>::create(3).value();
  std::vector<F> a(8), b(8), c(7);
  std::vector<typename F::Int> p(8);
  Status s = snarkjs_h(d, std::span<F>(a), std::span<F>(b), std::span<F>(c), std::span(p), pool);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("expected the domain size 8"), std::string::npos) << s.message();
}

TYPED_TEST(HPolyTest, BellpersonHGivesQuotientCoefficients) {
  using F = TypeParam;
  std::mt19937_64 rng(13);
  for (size_t k : {1, 2, 6, 13}) {
    ThreadPool pool(3);
    auto d = EvaluationDomain<F>::create(k, ff::RootConvention::kSeven).value();
    size_t n = d.size();
    auto t = make_instance(d, rng, pool, /*sparse_b=*/k > 6);
    F g = F::from_u64(7);
    if constexpr (std::is_same_v<F, bn254::Fr>) g = F::from_u64(5);
    ASSERT_TRUE(bellperson_h(d, std::span<F>(t.a), std::span<F>(t.b), std::span<F>(t.c), g, pool).is_ok());
    // A·B − C = (X^n − 1)·h, h_j = coefficient j + n of A·B.
    for (size_t j = 0; j + 1 < n; ++j) ASSERT_EQ(t.a[j], t.AB[j + n]) << "k=" << k << " j=" << j;
    EXPECT_TRUE(t.a[n - 1].is_zero());
  }
}

TYPED_TEST(HPolyTest, BellpersonHRejectsShiftInsideTheDomain) {
  using F = TypeParam;
  ThreadPool pool(1);
  auto d = EvaluationDomain<F>::create(2).value();
  std::vector<F> a(4), b(4), c(4);
  EXPECT_FALSE(bellperson_h(d, std::span<F>(a), std::span<F>(b), std::span<F>(c), d.omega(), pool).is_ok());
}

}  // namespace
}  // namespace cuzk::poly
