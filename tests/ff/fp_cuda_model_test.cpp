// The device field code (ff/fp_cuda.hpp: the GPU's Montgomery products, squares, REDC,
// Fp2 products and the lazy steps) run on the host through its host model, where each PTX
// carry-chain instruction is C++ with an explicit carry flag. Every function against the
// host field (ff/fp.hpp) on all four prime fields, on edge values and fresh random ones
// (CUZK_TEST_SEED replays a run), including the [0, 2p) and [0, 4p) inputs the lazy forms
// take. CI has no GPU: this is where it sees the device arithmetic's carries; the device
// itself runs the same functions in cuda_field_ops_test and cuda_lazy_ops_test.
#define CUZK_FP_CUDA_HOST_MODEL 1
#include "ff/fp_cuda.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "ff/fields.hpp"

namespace cuzk::ff {
namespace {

constexpr int kRandomCases = 4000;

uint64_t seed() {
  static const uint64_t s = [] {
    if (const char* env = std::getenv("CUZK_TEST_SEED")) return uint64_t(std::strtoull(env, nullptr, 0));
    return uint64_t(std::random_device{}()) << 32 | std::random_device{}();
  }();
  return s;
}

template <size_t N>
std::string hex(const BigInt<N>& x) {
  std::string s = "0x";
  char buf[17];
  for (size_t i = N; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x.limb[i]));
    s += buf;
  }
  return s;
}

// x + k·p as an integer (the caller keeps it within the words).
template <class F>
typename F::Int plus_p(typename F::Int x, unsigned k) {
  for (unsigned i = 0; i < k; ++i) x.add_in_place(F::MODULUS);
  return x;
}

// x mod p for x < 4p, as a field element; false if x >= 4p.
template <class F>
bool canonical(typename F::Int x, F& out) {
  for (int i = 0; i < 4 && !x.less_than(F::MODULUS); ++i) x.sub_in_place(F::MODULUS);
  if (!x.less_than(F::MODULUS)) return false;
  out = F::from_mont(x);
  return true;
}

// Montgomery limbs below p: edges (0, 1, p - 1, words of all ones, powers of two near the
// top), then uniform random ones.
template <class F>
std::vector<typename F::Int> operands(std::mt19937_64& rng) {
  using Int = typename F::Int;
  std::vector<Int> v;
  auto keep = [&](const Int& x) {
    if (x.less_than(F::MODULUS)) v.push_back(x);
  };
  keep(Int{});
  keep(Int::from_u64(1));
  keep(Int::from_u64(0xffffffffu));
  keep(detail::sub_small(F::MODULUS, 1));
  keep(detail::sub_small(F::MODULUS, 2));
  keep(F::R);
  for (size_t k = 0; k < 64 * F::N; k += 31) {
    Int x{};
    x.limb[k / 64] = uint64_t(1) << (k % 64);
    keep(x);
    keep(detail::sub_small(x, 1));
  }
  Int ones{};
  for (size_t i = 0; i < F::N; ++i) ones.limb[i] = ~uint64_t(0);
  keep(detail::shifted_right(ones, 3));  // 2^(64N - 3) - 1: below p but for BLS12-381's Fq
  auto random = [&] {
    Int x;
    for (size_t i = 0; i < F::N; ++i) x.limb[i] = rng();
    x.limb[F::N - 1] &= ~uint64_t(0) >> __builtin_clzll(F::MODULUS.limb[F::N - 1]);
    return x;
  };
  // Random values whose low word is zero: a product's first Montgomery step then meets a zero
  // low word (m = 0) with the rest of the accumulator nonzero.
  for (int i = 0; i < 64; ++i) {
    Int x = random();
    x.limb[0] &= ~uint64_t(0xffffffff);
    keep(x);
  }
  while (v.size() < size_t(kRandomCases)) keep(random());
  return v;
}

// The 32-bit words of x (2N, little-endian) and back.
template <size_t N>
std::vector<uint32_t> words_of(const BigInt<N>& x) {
  std::vector<uint32_t> w(2 * N);
  cuda_fp::to_words(x, w.data());
  return w;
}

// T += a·w·2^(32·at), carries propagated through T (which the caller sizes to hold the sum).
void add_scaled(std::vector<uint32_t>& T, const std::vector<uint32_t>& a, uint32_t w, size_t at) {
  uint64_t carry = 0;
  size_t j = 0;
  for (; j < a.size(); ++j) {
    const uint64_t s = uint64_t(a[j]) * w + T[at + j] + carry;
    T[at + j] = uint32_t(s);
    carry = s >> 32;
  }
  for (j += at; carry != 0; ++j) {
    const uint64_t s = uint64_t(T.at(j)) + carry;
    T[j] = uint32_t(s);
    carry = s >> 32;
  }
}

// x^-1 mod 2^32 for odd x.
uint32_t inv32(uint32_t x) {
  uint32_t inv = 1;
  for (int i = 0; i < 5; ++i) inv *= 2 - x * inv;
  return inv;
}

// Operands whose Montgomery steps meet a zero low word t (so m = 0) where the test says, with
// the accumulator nonzero otherwise: the words are chosen one step at a time against an exact
// model of the steps' integers (the device code keeps the same integers, only spread over two
// word arrays). Each function returns how many of its steps met t == 0.
template <class F>
struct ZeroSteps {
  using Int = typename F::Int;
  static constexpr size_t n = 2 * F::N;
  static constexpr uint32_t M0 = cuda_fp::Modulus<typename F::Params>::M0;

  // y for mont_mul(x, y) (x odd in its low word): row i adds x·y_i, then m_i·p, and drops the
  // low word; y_i cancels the low word where zero(i).
  template <class Zero, class Rng>
  static size_t multiplier(const Int& x, Rng& rng, Zero zero, Int& y) {
    const std::vector<uint32_t> a = words_of(x), p = words_of(F::MODULUS);
    std::vector<uint32_t> T(n + 3, 0), b(n);
    size_t hits = 0;
    for (size_t i = 0; i < n; ++i) {
      // A free top word below p's keeps y < p; a chosen one may not (the caller skips those).
      b[i] = zero(i) ? (0u - T[0]) * inv32(a[0]) : i + 1 < n ? uint32_t(rng()) : uint32_t(rng() % p[n - 1]);
      add_scaled(T, a, b[i], 0);
      const uint32_t t = T[0];
      hits += t == 0;
      add_scaled(T, p, t * M0, 0);
      if (T[0] != 0) return ~size_t(0);
      T.erase(T.begin());
      T.push_back(0);
    }
    y = cuda_fp::from_words<F::N>(b.data());
    return hits;
  }

  // W (2n words, W < p·2^(64N)) for redc_wide: step k adds m_k·p·2^(32k) after its low word,
  // word k, is final; W's word k cancels it where zero(k). The high half is `high` (< p).
  template <class Zero, class Rng>
  static size_t wide(const Int& high, Rng& rng, Zero zero, std::vector<uint32_t>& W) {
    const std::vector<uint32_t> p = words_of(F::MODULUS), hi = words_of(high);
    std::vector<uint32_t> T(2 * n + 2, 0);
    W.assign(2 * n, 0);
    size_t hits = 0;
    for (size_t k = 0; k < n; ++k) {
      W[k] = zero(k) ? 0u - T[k] : uint32_t(rng());
      add_scaled(T, {W[k]}, 1, k);
      const uint32_t t = T[k];
      hits += t == 0;
      add_scaled(T, p, t * M0, k);
      if (T[k] != 0) return ~size_t(0);
    }
    std::copy(hi.begin(), hi.end(), W.begin() + n);
    return hits;
  }
};

template <class F>
class FpCudaModel : public testing::Test {
 protected:
  using Int = typename F::Int;

  void SetUp() override {
    std::mt19937_64 rng(seed() ^ F::MODULUS.limb[0]);
    xs_ = operands<F>(rng);
    ys_ = xs_;
    std::shuffle(ys_.begin(), ys_.end(), rng);
    std::cout << "[ seed     ] CUZK_TEST_SEED=" << seed() << "\n";
  }

  // Checks got == want (canonical), or with `lazy` got < bound·p and got = want mod p.
  testing::AssertionResult same(const char* what, const Int& got, const F& want, unsigned bound, const Int& x,
                                const Int& y) const {
    F g;
    Int limit = plus_p<F>(Int{}, bound);
    const bool in_range = bound >= 4 ? canonical<F>(got, g) : (got.less_than(limit) && canonical<F>(got, g));
    if (in_range && g == want) return testing::AssertionSuccess();
    return testing::AssertionFailure() << what << "(" << hex(x) << ", " << hex(y) << ") = " << hex(got) << ", want "
                                       << hex(want.mont()) << " (mod p, below " << bound << "p)";
  }

  std::vector<Int> xs_, ys_;
};

using Fields = testing::Types<bn254::Fr, bn254::Fq, bls12_381::Fr, bls12_381::Fq>;
TYPED_TEST_SUITE(FpCudaModel, Fields);

TYPED_TEST(FpCudaModel, ProductsMatchTheHostField) {
  using F = TypeParam;
  using P = typename F::Params;
  for (size_t i = 0; i < this->xs_.size(); ++i) {
    const auto &x = this->xs_[i], &y = this->ys_[i];
    const F X = F::from_mont(x), Y = F::from_mont(y);
    ASSERT_TRUE(this->same("mont_mul", cuda_fp::mont_mul<P>(x, y), X * Y, 1, x, y));
    ASSERT_TRUE(this->same("mont_sqr", cuda_fp::mont_sqr<P>(x), X.square(), 1, x, x));
    const auto &u = this->xs_[(i + 1) % this->xs_.size()], &v = this->ys_[(i + 7) % this->ys_.size()];
    const F want = X * Y - F::from_mont(u) * F::from_mont(v);
    ASSERT_TRUE(this->same("mont_mul_sub", cuda_fp::mont_mul_sub<P>(x, y, u, v), want, 1, x, y));
    // The lazy product: x up to 4p where 5p fits the words, else x < p; the result below 2p.
    ASSERT_TRUE(this->same("mont_mul_lazy", cuda_fp::mont_mul_lazy<P>(x, y), X * Y, 2, x, y));
    if constexpr (cuda_fp::kLazyProducts<P>) {
      const auto x3 = plus_p<F>(x, 3);
      ASSERT_TRUE(this->same("mont_mul_lazy", cuda_fp::mont_mul_lazy<P>(x3, y), X * Y, 2, x3, y));
    }
    // ... and in every field x < p with y < 2p (the lazy operand second: the NTT's wide lazy
    // butterflies, the twiddle first).
    const auto y2 = plus_p<F>(y, 1);
    ASSERT_TRUE(this->same("mont_mul_lazy", cuda_fp::mont_mul_lazy<P>(x, y2), X * Y, 2, x, y2));
    // Squares and x y - u v with operands in [0, 2p), where 8p fits the words.
    if constexpr (cuda_fp::kLazyFp2<P>) {
      const auto x2 = plus_p<F>(x, 1);
      ASSERT_TRUE(this->same("mont_sqr<lazy>", cuda_fp::mont_sqr<P, true>(x2), X.square(), 2, x2, x2));
      ASSERT_TRUE(
          this->same("mont_mul_sub<lazy>", cuda_fp::mont_mul_sub<P, true>(x2, y, u, plus_p<F>(v, 1)), want, 2, x2, y));
    }
  }
}

// Steps whose low word t is zero (m = 0): rare in random operands (2^-32 a step), and where
// a step with p's low words as additions (CUZK_FP_CUDA_SPARSE_LOW, BLS12-381's Fr) takes its
// other branch: no carry out of word 0 and h = 0. Products and REDC on operands that meet
// such steps in chosen rows: every row, none, one, and random ones.
TYPED_TEST(FpCudaModel, StepsWithAZeroLowWordMatchTheHostField) {
  using F = TypeParam;
  using P = typename F::Params;
  using Int = typename F::Int;
  using Z = ZeroSteps<F>;
  std::mt19937_64 rng(seed() ^ F::MODULUS.limb[0] ^ 0x5a5a);
  size_t products = 0, reductions = 0, hits = 0;
  for (size_t i = 0; i < this->xs_.size(); ++i) {
    const uint64_t pattern = rng();
    auto zero = [&](size_t k) {
      switch (i % 4) {
        case 0:
          return true;
        case 1:
          return false;
        case 2:
          return k == (pattern % Z::n);
        default:
          return ((pattern >> k) & 1) != 0;
      }
    };
    Int x = this->xs_[i];
    x.limb[0] |= 1;  // odd low word: y's words can cancel any low word
    Int y;
    if (x.less_than(F::MODULUS)) {
      const size_t h = Z::multiplier(x, rng, zero, y);
      ASSERT_NE(h, ~size_t(0)) << "the model of the steps is wrong";
      if (y.less_than(F::MODULUS)) {  // else the top word went past p's: skip
        const F X = F::from_mont(x), Y = F::from_mont(y);
        ASSERT_TRUE(this->same("mont_mul", cuda_fp::mont_mul<P>(x, y), X * Y, 1, x, y));
        ASSERT_TRUE(this->same("mont_mul_lazy", cuda_fp::mont_mul_lazy<P>(x, y), X * Y, 2, x, y));
        ++products;
        hits += h;
      }
    }
    std::vector<uint32_t> W;
    const Int high = this->ys_[i];
    const size_t h = Z::wide(high, rng, zero, W);
    ASSERT_NE(h, ~size_t(0)) << "the model of the steps is wrong";
    Int low = cuda_fp::from_words<F::N>(W.data());
    while (!low.less_than(F::MODULUS)) low.sub_in_place(F::MODULUS);
    // REDC(W) = W·2^(-64N) = high + low·2^(-64N): in Montgomery form, high + low·1.
    const F want = F::from_mont(high) + F::from_mont(low) * F::from_mont(Int::from_u64(1));
    const Int w_lo = cuda_fp::from_words<F::N>(W.data());
    ASSERT_TRUE(this->same("redc_wide", cuda_fp::redc_wide<P>(W.data()), want, 1, w_lo, high));
    ASSERT_TRUE(this->same("redc_wide<lazy>", cuda_fp::redc_wide<P, true>(W.data()), want, 2, w_lo, high));
    ++reductions;
    hits += h;
  }
  // The products whose chosen top word left y >= p were skipped: most of those choosing the
  // last row, many of BLS12-381's Fq (p's top word is 0x1a0111ea).
  EXPECT_GT(products, this->xs_.size() / 2);
  EXPECT_EQ(reductions, this->xs_.size());
  EXPECT_GT(hits, this->xs_.size());
  std::cout << "[ zero t   ] " << products << " products, " << reductions << " reductions, " << hits
            << " steps with t == 0\n";
}

TYPED_TEST(FpCudaModel, Fp2ProductsMatchTheHostField) {
  using F = TypeParam;
  using P = typename F::Params;
  // (x0 + x1 u)(y0 + y1 u) with u^2 = -1 (the Fq2 of both curves; the model does not care
  // whether the prime is a base field).
  for (size_t i = 0; i + 1 < this->xs_.size(); i += 2) {
    const auto &x0 = this->xs_[i], &x1 = this->xs_[i + 1], &y0 = this->ys_[i], &y1 = this->ys_[i + 1];
    const F X0 = F::from_mont(x0), X1 = F::from_mont(x1), Y0 = F::from_mont(y0), Y1 = F::from_mont(y1);
    const F w0 = X0 * Y0 - X1 * Y1, w1 = X0 * Y1 + X1 * Y0;
    typename F::Int z0, z1;
    cuda_fp::fp2_mul<P>(x0, x1, y0, y1, z0, z1);
    ASSERT_TRUE(this->same("fp2_mul c0", z0, w0, 1, x0, y0));
    ASSERT_TRUE(this->same("fp2_mul c1", z1, w1, 1, x1, y1));
    if constexpr (cuda_fp::kLazyFp2<P>) {
      const auto a0 = plus_p<F>(x0, 1), b1 = plus_p<F>(y1, 1);
      cuda_fp::fp2_mul<P, true>(a0, x1, y0, b1, z0, z1);
      ASSERT_TRUE(this->same("fp2_mul<lazy> c0", z0, w0, 2, a0, y0));
      ASSERT_TRUE(this->same("fp2_mul<lazy> c1", z1, w1, 2, x1, b1));
    }
  }
}

TYPED_TEST(FpCudaModel, SumsAndDifferencesMatchTheHostField) {
  using F = TypeParam;
  using P = typename F::Params;
  for (size_t i = 0; i < this->xs_.size(); ++i) {
    const auto &x = this->xs_[i], &y = this->ys_[i];
    const F X = F::from_mont(x), Y = F::from_mont(y);
    ASSERT_TRUE(this->same("mod_add", cuda_fp::mod_add<P>(x, y), X + Y, 1, x, y));
    ASSERT_TRUE(this->same("mod_sub", cuda_fp::mod_sub<P>(x, y), X - Y, 1, x, y));
    const auto x2 = plus_p<F>(x, 1), y2 = plus_p<F>(y, 1);
    ASSERT_TRUE(this->same("reduce_once", cuda_fp::reduce_once<P>(x2), X, 1, x2, x2));
    ASSERT_TRUE(this->same("add_lazy", cuda_fp::add_lazy<P>(x2, y2), X + Y, 2, x2, y2));
    ASSERT_TRUE(this->same("add_lazy", cuda_fp::add_lazy<P>(x, y2), X + Y, 2, x, y2));
    ASSERT_TRUE(this->same("sub_lazy", cuda_fp::sub_lazy<P>(x2, y), X - Y, 2, x2, y));
    ASSERT_TRUE(this->same("sub_lazy", cuda_fp::sub_lazy<P>(x, y2), X - Y, 2, x, y2));
    if constexpr (cuda_fp::kTwoSpareBits<P>) {
      // Exactly x - y + 2p, in (0, 4p).
      auto want = plus_p<F>(x2, 2);
      want.sub_in_place(y2);
      EXPECT_EQ(hex(cuda_fp::sub_plus_2p<P>(x2, y2)), hex(want));
    }
  }
}

}  // namespace
}  // namespace cuzk::ff
