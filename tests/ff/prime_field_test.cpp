// The four prime fields against GMP: every operation on random and edge-case inputs,
// through both the host fast path (operators) and the portable path the device runs.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ff/decimal.hpp"
#include "ff/fields.hpp"
#include "gmp_oracle.hpp"

namespace cuzk::ff {
namespace {

using testing::from_mpz;
using testing::to_mpz;

constexpr int kRandomCases = 10000;

struct FastPath {
  template <class F>
  static F add(const F& a, const F& b) { return a + b; }
  template <class F>
  static F sub(const F& a, const F& b) { return a - b; }
  template <class F>
  static F mul(const F& a, const F& b) { return a * b; }
  template <class F>
  static F sqr(const F& a) { return a.square(); }
  template <class F>
  static F neg(const F& a) { return -a; }
  template <class F>
  static F dbl(const F& a) { return a.dbl(); }
};

struct PortablePath {
  template <class F>
  static F add(const F& a, const F& b) { return a.add_portable(b); }
  template <class F>
  static F sub(const F& a, const F& b) { return a.sub_portable(b); }
  template <class F>
  static F mul(const F& a, const F& b) { return a.mul_portable(b); }
  template <class F>
  static F sqr(const F& a) { return a.square_portable(); }
  template <class F>
  static F neg(const F& a) { return F::zero().sub_portable(a); }
  template <class F>
  static F dbl(const F& a) { return a.add_portable(a); }
};

template <class F_, class Path_>
struct Case {
  using F = F_;
  using Path = Path_;
};

// The oracle reads and writes Montgomery limbs itself, so no field code (in particular
// no multiplication) sits between a result and its check.
template <class F>
struct Oracle {
  mpz_class p = to_mpz(F::MODULUS);
  mpz_class r = mpz_class(1) << (64 * F::N);
  mpz_class r_mod = r % p;
  mpz_class r_inv;
  Oracle() { mpz_invert(r_inv.get_mpz_t(), r_mod.get_mpz_t(), p.get_mpz_t()); }

  mpz_class value(const F& x) const { return mpz_class(to_mpz(x.mont()) * r_inv % p); }
  F element(const mpz_class& v) const {
    mpz_class m = v * r_mod % p;
    if (m < 0) m += p;
    return F::from_mont(from_mpz<F::N>(m));
  }
  mpz_class reduce(const mpz_class& v) const {
    mpz_class m = v % p;
    if (m < 0) m += p;
    return m;
  }
};

template <class F>
std::vector<mpz_class> edge_values(const Oracle<F>& o) {
  std::vector<mpz_class> v = {0, 1, o.p - 1, o.p - 2, (o.p - 1) / 2};
  for (size_t k = 0; k < F::BITS; ++k) {
    mpz_class two_k = mpz_class(1) << k;
    for (const mpz_class& e : {mpz_class(two_k - 1), two_k, mpz_class(two_k + 1)}) v.push_back(o.reduce(e));
  }
  return v;
}

// Random elements, the edge values, and the edge values read as raw Montgomery limbs
// (the arithmetic sees those limbs, so limb-level extremes matter too).
template <class F>
std::vector<F> samples(const Oracle<F>& o, std::mt19937_64& rng) {
  std::vector<F> xs;
  for (int i = 0; i < kRandomCases; ++i) xs.push_back(F::random(rng));
  for (const mpz_class& e : edge_values(o)) {
    xs.push_back(o.element(e));
    xs.push_back(F::from_mont(from_mpz<F::N>(e)));
  }
  return xs;
}

template <class C>
class PrimeField : public ::testing::Test {
 protected:
  using F = typename C::F;
  Oracle<F> o;
  std::mt19937_64 rng{0xC0FFEE ^ F::MODULUS.limb[0]};
  std::vector<F> xs = samples(o, rng);

  // Pairs: each sample with a shuffled partner, and the first edge values with every sample.
  template <class Fn>
  void for_pairs(Fn&& fn) {
    std::vector<F> ys = xs;
    std::shuffle(ys.begin(), ys.end(), rng);
    for (size_t i = 0; i < xs.size(); ++i) fn(xs[i], ys[i]);
    for (size_t e = kRandomCases; e < kRandomCases + 10; ++e) {
      for (const F& x : xs) {
        fn(xs[e], x);
        fn(x, xs[e]);
      }
    }
  }
};

using Cases = ::testing::Types<Case<bn254::Fq, FastPath>, Case<bn254::Fr, FastPath>, Case<bls12_381::Fq, FastPath>,
                               Case<bls12_381::Fr, FastPath>, Case<bn254::Fq, PortablePath>,
                               Case<bn254::Fr, PortablePath>, Case<bls12_381::Fq, PortablePath>,
                               Case<bls12_381::Fr, PortablePath>>;

struct CaseNames {
  template <class C>
  static std::string GetName(int) {
    return std::string(C::F::Params::NAME) + (std::is_same_v<typename C::Path, FastPath> ? "_fast" : "_portable");
  }
};
TYPED_TEST_SUITE(PrimeField, Cases, CaseNames);

#define EXPECT_FIELD_EQ(got, want_mpz, what)                                          \
  do {                                                                                \
    auto want_ = this->o.element(want_mpz);                                           \
    ASSERT_TRUE((got) == want_) << what << ": got " << to_decimal((got).mont()) << " want " \
                                << to_decimal(want_.mont()) << " (Montgomery limbs)"; \
  } while (0)

TYPED_TEST(PrimeField, AddMatchesGmp) {
  using P = typename TypeParam::Path;
  this->for_pairs([&](auto x, auto y) {
    EXPECT_FIELD_EQ(P::add(x, y), this->o.reduce(this->o.value(x) + this->o.value(y)), "add");
  });
}

TYPED_TEST(PrimeField, SubMatchesGmp) {
  using P = typename TypeParam::Path;
  this->for_pairs([&](auto x, auto y) {
    EXPECT_FIELD_EQ(P::sub(x, y), this->o.reduce(this->o.value(x) - this->o.value(y)), "sub");
  });
}

TYPED_TEST(PrimeField, MulMatchesGmp) {
  using P = typename TypeParam::Path;
  this->for_pairs([&](auto x, auto y) {
    EXPECT_FIELD_EQ(P::mul(x, y), this->o.reduce(this->o.value(x) * this->o.value(y)), "mul");
  });
}

TYPED_TEST(PrimeField, NegDblSquareMatchGmp) {
  using P = typename TypeParam::Path;
  for (const auto& x : this->xs) {
    mpz_class v = this->o.value(x);
    EXPECT_FIELD_EQ(P::neg(x), this->o.reduce(-v), "neg");
    EXPECT_FIELD_EQ(P::dbl(x), this->o.reduce(2 * v), "dbl");
    EXPECT_FIELD_EQ(P::sqr(x), this->o.reduce(v * v), "square");
  }
}

TYPED_TEST(PrimeField, OutputMayAliasInput) {
  using P = typename TypeParam::Path;
  for (size_t i = 0; i + 1 < this->xs.size(); i += 97) {
    auto x = this->xs[i], y = this->xs[i + 1];
    auto want = P::mul(x, y);
    x = P::mul(x, y);
    EXPECT_EQ(x, want);
    want = P::sqr(y);
    y = P::sqr(y);
    EXPECT_EQ(y, want);
  }
}

TYPED_TEST(PrimeField, InverseMatchesGmp) {
  if (!std::is_same_v<typename TypeParam::Path, FastPath>) GTEST_SKIP() << "runs on the default path only";
  for (const auto& x : this->xs) {
    mpz_class v = this->o.value(x), inv = 0;
    if (v != 0) mpz_invert(inv.get_mpz_t(), v.get_mpz_t(), this->o.p.get_mpz_t());
    EXPECT_FIELD_EQ(x.inverse(), inv, "inverse");
  }
}

TYPED_TEST(PrimeField, PowMatchesGmp) {
  if (!std::is_same_v<typename TypeParam::Path, FastPath>) GTEST_SKIP() << "runs on the default path only";
  using F = typename TypeParam::F;
  for (size_t i = 0; i < this->xs.size(); ++i) {
    const F& x = this->xs[i];
    typename F::Int e{};
    for (auto& l : e.limb) l = this->rng();
    e.limb[F::N - 1] >>= (i % 64);  // exponents of every length, some above p
    mpz_class want;
    mpz_class base = this->o.value(x), ez = to_mpz(e);
    mpz_powm(want.get_mpz_t(), base.get_mpz_t(), ez.get_mpz_t(), this->o.p.get_mpz_t());
    EXPECT_FIELD_EQ(x.pow(e), want, "pow");
    uint64_t small = i;
    mpz_powm_ui(want.get_mpz_t(), base.get_mpz_t(), small, this->o.p.get_mpz_t());
    EXPECT_FIELD_EQ(x.pow(small), want, "pow(u64)");
  }
}

TYPED_TEST(PrimeField, LegendreAndSqrtAgreeWithGmp) {
  if (!std::is_same_v<typename TypeParam::Path, FastPath>) GTEST_SKIP() << "runs on the default path only";
  using F = typename TypeParam::F;
  for (const F& x : this->xs) {
    mpz_class v = this->o.value(x);
    int want = mpz_legendre(v.get_mpz_t(), this->o.p.get_mpz_t());
    ASSERT_EQ(x.legendre(), want) << to_decimal(x.to_canonical());
    F root;
    bool ok = x.sqrt(root);
    ASSERT_EQ(ok, want >= 0) << "sqrt existence for " << to_decimal(x.to_canonical());
    if (ok) {
      ASSERT_EQ(root.square(), x);
    }
  }
}

TYPED_TEST(PrimeField, CanonicalBytesRoundTripAndRejectNonCanonical) {
  if (!std::is_same_v<typename TypeParam::Path, FastPath>) GTEST_SKIP() << "runs on the default path only";
  using F = typename TypeParam::F;
  std::vector<uint8_t> be(F::BYTES), le(F::BYTES), want(F::BYTES);
  for (const F& x : this->xs) {
    mpz_class v = this->o.value(x);
    x.to_bytes_be(be.data());
    x.to_bytes_le(le.data());
    std::fill(want.begin(), want.end(), 0);
    size_t count = 0;
    mpz_export(want.data(), &count, -1, 1, 0, 0, v.get_mpz_t());
    ASSERT_EQ(le, want);
    std::reverse(want.begin(), want.end());
    ASSERT_EQ(be, want);
    F back;
    ASSERT_TRUE(F::from_bytes_be(be.data(), back));
    ASSERT_EQ(back, x);
    ASSERT_TRUE(F::from_bytes_le(le.data(), back));
    ASSERT_EQ(back, x);
  }
  // p, p + k for random k, and the largest encodable integer are all rejected.
  std::vector<mpz_class> bad = {this->o.p, this->o.p + 1, (mpz_class(1) << (8 * F::BYTES)) - 1};
  for (int i = 0; i < 1000; ++i) {
    F k = F::random(this->rng);
    mpz_class b = this->o.p + to_mpz(k.mont());
    if (b < (mpz_class(1) << (8 * F::BYTES))) bad.push_back(b);
  }
  for (const mpz_class& b : bad) {
    std::fill(le.begin(), le.end(), 0);
    size_t count = 0;
    mpz_export(le.data(), &count, -1, 1, 0, 0, b.get_mpz_t());
    be.assign(le.rbegin(), le.rend());
    F out;
    EXPECT_FALSE(F::from_bytes_le(le.data(), out)) << b.get_str();
    EXPECT_FALSE(F::from_bytes_be(be.data(), out)) << b.get_str();
    EXPECT_FALSE(F::from_mont_bytes_le(le.data(), out)) << b.get_str();
  }
}

TYPED_TEST(PrimeField, MontgomeryBytesHoldValueTimesR) {
  if (!std::is_same_v<typename TypeParam::Path, FastPath>) GTEST_SKIP() << "runs on the default path only";
  using F = typename TypeParam::F;
  std::vector<uint8_t> got(F::BYTES), want(F::BYTES);
  for (const F& x : this->xs) {
    mpz_class m = this->o.value(x) * this->o.r_mod % this->o.p;
    std::fill(want.begin(), want.end(), 0);
    size_t count = 0;
    mpz_export(want.data(), &count, -1, 1, 0, 0, m.get_mpz_t());
    x.to_mont_bytes_le(got.data());
    ASSERT_EQ(got, want);
    F back;
    ASSERT_TRUE(F::from_mont_bytes_le(got.data(), back));
    ASSERT_EQ(back, x);
  }
}

TYPED_TEST(PrimeField, DecimalTextMatchesGmp) {
  if (!std::is_same_v<typename TypeParam::Path, FastPath>) GTEST_SKIP() << "runs on the default path only";
  using F = typename TypeParam::F;
  for (const F& x : this->xs) {
    std::string want = this->o.value(x).get_str(10);
    ASSERT_EQ(field_to_decimal(x), want);
    F back;
    ASSERT_TRUE(field_from_decimal(want, back)) << want;
    ASSERT_EQ(back, x);
  }
  F out;
  for (const std::string& bad : {this->o.p.get_str(10), mpz_class(this->o.p + 1).get_str(10), std::string(),
                                 std::string("12a"), std::string("-1"), std::string(200, '9')}) {
    EXPECT_FALSE(field_from_decimal(bad, out)) << "accepted \"" << bad << "\"";
  }
}

TYPED_TEST(PrimeField, BatchInverseKeepsZerosAndInvertsTheRest) {
  if (!std::is_same_v<typename TypeParam::Path, FastPath>) GTEST_SKIP() << "runs on the default path only";
  using F = typename TypeParam::F;
  std::vector<F> v(this->xs.begin(), this->xs.begin() + 257);
  for (size_t i = 0; i < v.size(); i += 5) v[i] = F::zero();
  v.back() = F::zero();
  std::vector<F> inv = v, scratch(v.size());
  F::batch_inverse(inv.data(), inv.size(), scratch.data());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(inv[i], v[i].inverse()) << i;
  F::batch_inverse(inv.data(), 0, scratch.data());  // empty input is a no-op
  std::vector<F> zeros(4, F::zero());
  F::batch_inverse(zeros.data(), zeros.size(), scratch.data());
  for (const F& z : zeros) EXPECT_TRUE(z.is_zero());
}

}  // namespace
}  // namespace cuzk::ff
