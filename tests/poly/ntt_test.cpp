#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ff/decimal.hpp"
#include "ff/fields.hpp"
#include "poly/domain.hpp"
#include "poly_test_util.hpp"

namespace cuzk::poly {
namespace {

using testing::horner;
using testing::random_vec;

template <class F>
EvaluationDomain<F> make_domain(size_t log_n, ff::RootConvention conv) {
  auto d = EvaluationDomain<F>::create(log_n, conv);
  EXPECT_TRUE(d.is_ok()) << d.status().to_string();
  return std::move(d).value();
}

template <class F>
class NttTest : public ::testing::Test {};
using Fields = ::testing::Types<bn254::Fr, bls12_381::Fr>;
TYPED_TEST_SUITE(NttTest, Fields);

constexpr ff::RootConvention kConventions[] = {ff::RootConvention::kSnarkjs, ff::RootConvention::kSeven};

TYPED_TEST(NttTest, OmegaHasExactOrderN) {
  using F = TypeParam;
  for (auto conv : kConventions) {
    for (size_t k : {1, 5, 12}) {
      auto d = make_domain<F>(k, conv);
      EXPECT_TRUE(d.omega().pow(uint64_t(1) << k).is_one());
      EXPECT_FALSE(d.omega().pow(uint64_t(1) << (k - 1)).is_one());
      EXPECT_TRUE((d.omega() * d.omega_inv()).is_one());
      EXPECT_TRUE((d.size_inv() * F::from_u64(d.size())).is_one());
    }
  }
}

TYPED_TEST(NttTest, ForwardMatchesNaiveDft) {
  using F = TypeParam;
  std::mt19937_64 rng(1);
  for (auto conv : kConventions) {
    for (size_t k = 0; k <= 7; ++k) {
      auto d = make_domain<F>(k, conv);
      for (size_t threads : {1, 3}) {
        ThreadPool pool(threads);
        auto coeffs = random_vec<F>(d.size(), rng);
        auto evals = coeffs;
        d.ntt(evals, pool);
        for (size_t i = 0; i < d.size(); ++i) ASSERT_EQ(evals[i], horner(coeffs, d.element(i))) << "k=" << k << " i=" << i;
      }
    }
  }
}

// Above the in-cache block size the global stages run too; check a sample of points.
TYPED_TEST(NttTest, LargeForwardMatchesPointEvaluation) {
  using F = TypeParam;
  std::mt19937_64 rng(2);
  ThreadPool pool(3);
  auto d = make_domain<F>(EvaluationDomain<F>::kLocalLog + 3, ff::RootConvention::kSnarkjs);
  auto coeffs = random_vec<F>(d.size(), rng);
  auto evals = coeffs;
  d.ntt(evals, pool);
  for (size_t i : {size_t(0), size_t(1), size_t(2), size_t(777), d.size() / 2, d.size() - 1}) {
    EXPECT_EQ(evals[i], horner(coeffs, d.element(i))) << i;
  }
}

TYPED_TEST(NttTest, InverseUndoesForward) {
  using F = TypeParam;
  std::mt19937_64 rng(3);
  ThreadPool pool(2);
  for (auto conv : kConventions) {
    for (size_t k : {0, 1, 2, 9, 13, 14}) {
      auto d = make_domain<F>(k, conv);
      auto x = random_vec<F>(d.size(), rng);
      auto y = x;
      d.ntt(y, pool);
      d.intt(y, pool);
      ASSERT_EQ(x, y) << "k=" << k;
      d.intt(y, pool);
      d.ntt(y, pool);
      ASSERT_EQ(x, y) << "k=" << k;
    }
  }
}

TYPED_TEST(NttTest, CosetNttMatchesDirectEvaluation) {
  using F = TypeParam;
  std::mt19937_64 rng(4);
  ThreadPool pool(2);
  for (auto conv : kConventions) {
    for (size_t k : {0, 3, 6}) {
      auto d = make_domain<F>(k, conv);
      F g = F::from_u64(7);
      auto coeffs = random_vec<F>(d.size(), rng);
      auto evals = coeffs;
      d.coset_ntt(evals, g, pool);
      for (size_t i = 0; i < d.size(); ++i) ASSERT_EQ(evals[i], horner(coeffs, g * d.element(i)));
      d.coset_intt(evals, g, pool);
      EXPECT_EQ(evals, coeffs);
    }
  }
}

TYPED_TEST(NttTest, ShiftEvaluationsMovesToTheCoset) {
  using F = TypeParam;
  std::mt19937_64 rng(5);
  ThreadPool pool(2);
  for (size_t k : {0, 1, 5, 13}) {
    auto d = make_domain<F>(k, ff::RootConvention::kSnarkjs);
    F g = F::random(rng);
    auto coeffs = random_vec<F>(d.size(), rng);
    auto on_domain = coeffs;
    d.ntt(on_domain, pool);
    auto on_coset = coeffs;
    d.coset_ntt(on_coset, g, pool);
    d.shift_evaluations(on_domain, g, pool);
    EXPECT_EQ(on_domain, on_coset) << "k=" << k;
  }
}

TEST(EvaluationDomain, RejectsSizesBeyondTwoAdicity) {
  EXPECT_FALSE(EvaluationDomain<bn254::Fr>::create(29).is_ok());
  EXPECT_FALSE(EvaluationDomain<bls12_381::Fr>::create(33).is_ok());
}

// Values from ffjavascript's Fr.w[] (reference/snarkjs-formats.md §4.1).
TEST(EvaluationDomain, SnarkjsRootsMatchFfjavascript) {
  auto check = [](auto d, const char* dec) {
    using F = std::decay_t<decltype(d.omega())>;
    F want;
    ASSERT_TRUE(ff::field_from_decimal(dec, want));
    EXPECT_EQ(d.omega(), want) << "log n = " << d.log_size();
  };
  check(make_domain<bn254::Fr>(10, ff::RootConvention::kSnarkjs),
        "3161067157621608152362653341354432744960400845131437947728257924963983317266");
  check(make_domain<bn254::Fr>(11, ff::RootConvention::kSnarkjs),
        "1120550406532664055539694724667294622065367841900378087843176726913374367458");
  check(make_domain<bls12_381::Fr>(10, ff::RootConvention::kSnarkjs),
        "21328829733576761151404230261968752855781179864716879432436835449516750606329");
  check(make_domain<bls12_381::Fr>(11, ff::RootConvention::kSnarkjs),
        "30450688096165933124094588052280452792793350252342406284806180166247113753719");
}

}  // namespace
}  // namespace cuzk::poly
