// inverse_vartime against Fermat inversion (Fp::inverse) on all four prime fields: edge
// values chosen both as field values and as raw Montgomery limbs (what safegcd works on),
// and random elements.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ff/fields.hpp"
#include "ff/inverse.hpp"

namespace cuzk::ff {
namespace {

constexpr int kRandomCases = 20000;

template <class F>
std::string hex(const F& x) {
  std::string s = "0x";
  char buf[17];
  for (size_t i = F::N; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x.mont().limb[i]));
    s += buf;
  }
  return s + " (Montgomery limbs)";
}

template <class F>
testing::AssertionResult inverts_like_fermat(const F& x) {
  F got = inverse_vartime(x);
  if (got != x.inverse()) return testing::AssertionFailure() << "inverse_vartime differs from Fermat at " << hex(x);
  if (!x.is_zero() && !(x * got).is_one()) return testing::AssertionFailure() << "x * x^-1 != 1 at " << hex(x);
  return testing::AssertionSuccess();
}

// Raw Montgomery limbs, kept only when below p (from_mont's precondition).
template <class F>
void push_raw(std::vector<F>& out, const typename F::Int& m) {
  F x;
  if (F::from_mont_checked(m, x)) out.push_back(x);
}

template <class F>
typename F::Int pow2(size_t k) {
  typename F::Int x{};
  x.limb[k / 64] = uint64_t(1) << (k % 64);
  return x;
}

template <class F>
std::vector<F> edge_values() {
  using Int = typename F::Int;
  std::vector<F> v = {F::zero(), F::one(), -F::one(), F::from_u64(2), -F::from_u64(2)};
  for (uint64_t s = 3; s < 64; ++s) v.push_back(F::from_u64(s));
  v.push_back(F::from_u64(~uint64_t(0)));

  // 2^k and 2^k - 1 around the 62- and 64-bit limb boundaries and the top of the field,
  // as values and as raw limbs.
  std::vector<size_t> ks;
  for (size_t b = 62; b < 64 * F::N; b += 62) ks.insert(ks.end(), {b - 1, b, b + 1});
  for (size_t b = 64; b < 64 * F::N; b += 64) ks.insert(ks.end(), {b - 1, b, b + 1});
  ks.insert(ks.end(), {F::BITS - 2, F::BITS - 1});
  for (size_t k : ks) {
    if (k >= 64 * F::N) continue;
    Int p2 = pow2<F>(k);
    Int p2m1 = detail::sub_small(p2, 1);
    F x;
    if (F::from_canonical_checked(p2, x)) v.push_back(x);
    if (F::from_canonical_checked(p2m1, x)) v.push_back(x);
    push_raw(v, p2);
    push_raw(v, p2m1);
  }

  // p - 1 and p - 2, as values (the field's -1 and -2 are above) and as raw limbs.
  push_raw(v, detail::sub_small(F::MODULUS, 1));
  push_raw(v, detail::sub_small(F::MODULUS, 2));
  push_raw(v, Int::from_u64(1));
  push_raw(v, Int::from_u64(2));

  // Limbs of all ones: the low j limbs, and every bit below the modulus's top bit.
  for (size_t j = 1; j < F::N; ++j) {
    Int ones{};
    for (size_t i = 0; i < j; ++i) ones.limb[i] = ~uint64_t(0);
    push_raw(v, ones);
  }
  push_raw(v, detail::sub_small(pow2<F>(F::BITS - 1), 1));
  return v;
}

// The plain inverse underneath (no Montgomery factors) must come back fully reduced:
// from_mont's precondition, which the final Montgomery product would otherwise hide.
template <class F>
testing::AssertionResult plain_inverse_is_reduced(const typename F::Int& a) {
  typename F::Int r = detail::modinv_vartime(a, F::MODULUS, 0 - F::INV);
  if (!r.less_than(F::MODULUS)) return testing::AssertionFailure() << "not below p for a = " << hex(F::from_mont(a));
  if (!(F::from_canonical(a) * F::from_canonical(r)).is_one()) {
    return testing::AssertionFailure() << "a * a^-1 != 1 mod p for a = " << hex(F::from_mont(a));
  }
  return testing::AssertionSuccess();
}

template <class F>
class InverseVartime : public testing::Test {};

using Fields = testing::Types<bn254::Fq, bn254::Fr, bls12_381::Fq, bls12_381::Fr>;
TYPED_TEST_SUITE(InverseVartime, Fields);

TYPED_TEST(InverseVartime, MatchesFermatOnEdgeValues) {
  using F = TypeParam;
  std::vector<F> values = edge_values<F>();
  EXPECT_GT(values.size(), 100u);
  for (const F& x : values) EXPECT_TRUE(inverts_like_fermat(x));
}

TYPED_TEST(InverseVartime, ZeroMapsToZero) {
  using F = TypeParam;
  EXPECT_TRUE(inverse_vartime(F::zero()).is_zero());
}

TYPED_TEST(InverseVartime, MatchesFermatOnRandomElements) {
  using F = TypeParam;
  std::mt19937_64 rng(0x1e4e75e);
  int failures = 0;
  for (int i = 0; i < kRandomCases && failures < 10; ++i) {
    testing::AssertionResult r = inverts_like_fermat(F::random(rng));
    if (!r) ++failures;
    EXPECT_TRUE(r);
  }
}

TYPED_TEST(InverseVartime, PlainInverseIsReducedOnEdgeAndRandomValues) {
  using F = TypeParam;
  for (const F& x : edge_values<F>()) {
    if (x.is_zero()) continue;
    EXPECT_TRUE(plain_inverse_is_reduced<F>(x.mont()));
  }
  std::mt19937_64 rng(0x9e3779b9);
  int failures = 0;
  for (int i = 0; i < kRandomCases && failures < 10; ++i) {
    F x = F::random(rng);
    if (x.is_zero()) continue;
    testing::AssertionResult r = plain_inverse_is_reduced<F>(x.mont());
    if (!r) ++failures;
    EXPECT_TRUE(r);
  }
}

// Fp2 goes through the norm: equal to the Fermat-based Fp2::inverse on random elements,
// on elements of the base field and of the imaginary axis, and 0 for 0.
template <class E>
void expect_fp2_inverse_matches(uint64_t seed) {
  using Fq = typename E::Fq;
  std::mt19937_64 rng(seed);
  std::vector<E> xs = {E::zero(), E::one(), E(Fq::zero(), Fq::one()), E(-Fq::one(), Fq::one())};
  for (int i = 0; i < 500; ++i) {
    xs.push_back(E(Fq::random(rng), Fq::random(rng)));
    xs.push_back(E(Fq::random(rng), Fq::zero()));
    xs.push_back(E(Fq::zero(), Fq::random(rng)));
  }
  for (const E& x : xs) {
    ASSERT_EQ(inverse_vartime(x), x.inverse());
    if (!x.is_zero()) {
      ASSERT_TRUE((x * inverse_vartime(x)).is_one());
    }
  }
}

TEST(InverseVartimeFp2, MatchesFermatOnBothCurves) {
  expect_fp2_inverse_matches<bn254::Fq2>(0xf2);
  expect_fp2_inverse_matches<bls12_381::Fq2>(0xf3);
}

}  // namespace
}  // namespace cuzk::ff
