// The lazy-reduction steps of ff/fp_cuda.hpp (the NTT's butterflies, cuda/ntt/ntt_pass.hpp)
// on the device against exact host arithmetic: every result congruent mod p to the exact
// one and inside its bound, for operands anywhere in their ranges ([0, 2p), or [0, 4p)
// where a step takes it), edges included, on both curves' Fr; and the lazy Fq and Fq2
// arithmetic of BLS12-381's MSM accumulation (cuda/msm/outlined_products.cuh, LazyFp and
// LazyFp2) likewise.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/msm/outlined_products.cuh"
#include "cuda/stream.hpp"
#include "cuda_test_util.hpp"
#include "ff/fields.hpp"

namespace cuzk::cuda {
namespace {

enum class Step { kMulLazy, kAddLazy, kSubLazy, kSubPlus2p, kReduceOnce };

template <class F, Step S>
__global__ void step_kernel(const typename F::Int* x, const typename F::Int* y, typename F::Int* out, size_t n) {
#if defined(__CUDA_ARCH__)  // ff/fp_cuda.hpp exists for the device only
  using P = typename F::Params;
  namespace cf = ff::cuda_fp;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (S == Step::kMulLazy) out[i] = cf::mont_mul_lazy<P>(x[i], y[i]);
  if constexpr (S == Step::kAddLazy) out[i] = cf::add_lazy<P>(x[i], y[i]);
  if constexpr (S == Step::kSubLazy) out[i] = cf::sub_lazy<P>(x[i], y[i]);
  if constexpr (S == Step::kSubPlus2p) {
    if constexpr (cf::kTwoSpareBits<P>) out[i] = cf::sub_plus_2p<P>(x[i], y[i]);
  }
  if constexpr (S == Step::kReduceOnce) out[i] = cf::reduce_once<P>(x[i]);
#endif
}

template <class F>
constexpr bool kTwoSpareBits = F::Params::MODULUS.limb[F::N - 1] < (uint64_t(1) << 62);
template <class F>
constexpr bool kLazyProducts = F::Params::MODULUS.limb[F::N - 1] < 0x3333333333333333ull;  // 5p fits

template <class F>
struct Lazy {
  using Int = typename F::Int;
  static constexpr Int p = F::Params::MODULUS;

  static Int times_p(unsigned k) {
    Int r{};
    for (unsigned i = 0; i < k; ++i) r.add_in_place(p);
    return r;
  }
  // x mod p for x < 4p.
  static Int reduce(Int x) {
    while (!x.less_than(p)) x.sub_in_place(p);
    return x;
  }
  // A value of [0, k p): random, or one of the edges 0, p - 1, p, k p - 1.
  static Int value(unsigned k, std::mt19937_64& rng, size_t i) {
    Int r;
    switch (i % 16) {
      case 0:
        return Int{};
      case 1:
        r = p;
        r.sub_in_place(Int::from_u64(1));
        return r;
      case 2:
        return k > 1 ? p : Int{};
      case 3:
        r = times_p(k);
        r.sub_in_place(Int::from_u64(1));
        return r;
      default:
        r = F::random(rng).mont();
        r.add_in_place(times_p(unsigned(rng() % k)));
        return r;
    }
  }
};

// out[i] = kernel's step on x[i], y[i], on the device.
template <class E>
std::vector<E> run_kernel(void (*kernel)(const E*, const E*, E*, size_t), const std::vector<E>& x,
                          const std::vector<E>& y) {
  auto stream = Stream::create();
  EXPECT_TRUE(stream.is_ok());
  auto dx = DeviceBuffer<E>::allocate(x.size()), dy = DeviceBuffer<E>::allocate(y.size()),
       dout = DeviceBuffer<E>::allocate(x.size());
  EXPECT_TRUE(dx.is_ok() && dy.is_ok() && dout.is_ok());
  std::vector<E> out(x.size());
  EXPECT_TRUE(dx->upload(std::span<const E>(x), *stream).is_ok());
  EXPECT_TRUE(dy->upload(std::span<const E>(y), *stream).is_ok());
  kernel<<<unsigned((x.size() + 255) / 256), 256, 0, stream->get()>>>(dx->data(), dy->data(), dout->data(), x.size());
  EXPECT_TRUE(check_launch("lazy_ops_test kernel").is_ok());
  EXPECT_TRUE(dout->download(std::span<E>(out), *stream).is_ok());
  EXPECT_TRUE(stream->synchronize().is_ok());
  return out;
}

template <class F, Step S>
std::vector<typename F::Int> run_step(const std::vector<typename F::Int>& x, const std::vector<typename F::Int>& y) {
  return run_kernel<typename F::Int>(step_kernel<F, S>, x, y);
}

template <class F>
class LazyOps : public ::testing::Test {
 protected:
  void SetUp() override { CUZK_SKIP_WITHOUT_DEVICE(); }
};

using Fields = ::testing::Types<bn254::Fr, bls12_381::Fr>;
TYPED_TEST_SUITE(LazyOps, Fields);

TYPED_TEST(LazyOps, StepsAreCongruentAndInsideTheirBounds) {
  using F = TypeParam;
  using L = Lazy<F>;
  using Int = typename F::Int;
  auto rng = testing::seeded_rng("lazy ops");
  constexpr size_t kN = size_t(1) << 18;
  const Int two_p = L::times_p(2), four_p = L::times_p(4);
  // Operands below 2p; the product's first operand below 4p where 5p fits the words, below p
  // elsewhere (mont_mul_lazy needs x + p < 2^(64N)), its second below p, or below 2p with the
  // first below p.
  std::vector<Int> x2(kN), y2(kN), x_mul(kN), y_mul(kN);
  for (size_t i = 0; i < kN; ++i) {
    x2[i] = L::value(2, rng, i);
    y2[i] = L::value(2, rng, i / 16 + i * 7);
    x_mul[i] = L::value(kLazyProducts<F> ? 4 : 1, rng, i);
    y_mul[i] = L::value(1, rng, i / 16 + i * 5);
  }
  auto congruent = [](const Int& got, const F& want) { return L::reduce(got) == want.mont(); };
  auto fx = [](const Int& v) { return F::from_mont(L::reduce(v)); };

  const auto mul = run_step<F, Step::kMulLazy>(x_mul, y_mul);
  // The lazy operand second (the NTT's wide lazy butterflies: a twiddle below p, then data
  // below 2p), in every field.
  const auto mul_second = run_step<F, Step::kMulLazy>(y_mul, x2);
  const auto add = run_step<F, Step::kAddLazy>(x2, y2);
  const auto sub = run_step<F, Step::kSubLazy>(x2, y2);
  const auto red = run_step<F, Step::kReduceOnce>(x2, y2);
  for (size_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(mul[i].less_than(two_p)) << "mont_mul_lazy above 2p at " << i;
    ASSERT_TRUE(congruent(mul[i], fx(x_mul[i]) * fx(y_mul[i]))) << "mont_mul_lazy at " << i;
    ASSERT_TRUE(mul_second[i].less_than(two_p)) << "mont_mul_lazy (y < 2p) above 2p at " << i;
    ASSERT_TRUE(congruent(mul_second[i], fx(y_mul[i]) * fx(x2[i]))) << "mont_mul_lazy (y < 2p) at " << i;
    ASSERT_TRUE(add[i].less_than(two_p)) << "add_lazy above 2p at " << i;
    ASSERT_TRUE(congruent(add[i], fx(x2[i]) + fx(y2[i]))) << "add_lazy at " << i;
    ASSERT_TRUE(sub[i].less_than(two_p)) << "sub_lazy above 2p at " << i;
    ASSERT_TRUE(congruent(sub[i], fx(x2[i]) - fx(y2[i]))) << "sub_lazy at " << i;
    ASSERT_EQ(red[i], L::reduce(x2[i])) << "reduce_once at " << i;
  }
  if constexpr (kTwoSpareBits<F>) {
    const auto d = run_step<F, Step::kSubPlus2p>(x2, y2);
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_TRUE(d[i].less_than(four_p) && !d[i].is_zero()) << "sub_plus_2p outside (0, 4p) at " << i;
      ASSERT_TRUE(congruent(d[i], fx(x2[i]) - fx(y2[i]))) << "sub_plus_2p at " << i;
    }
  }
}

enum class Fp2Step { kMul, kSqr, kAdd, kSub, kCanonical, kIsZero };

template <Fp2Step S>
__global__ void fp2_step_kernel(const bls12_381::Fq2* x, const bls12_381::Fq2* y, bls12_381::Fq2* out, size_t n) {
#if defined(__CUDA_ARCH__)
  using L = msm_detail::LazyFp2<bls12_381::Fq2>;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (S == Fp2Step::kMul) out[i] = L::mul(x[i], y[i]);
  if constexpr (S == Fp2Step::kSqr) out[i] = L::sqr(x[i]);
  if constexpr (S == Fp2Step::kAdd) out[i] = L::add(x[i], y[i]);
  if constexpr (S == Fp2Step::kSub) out[i] = L::sub(x[i], y[i]);
  if constexpr (S == Fp2Step::kCanonical) out[i] = L::canonical(x[i]);
  if constexpr (S == Fp2Step::kIsZero) out[i] = L::is_zero(x[i]) ? bls12_381::Fq2::one() : bls12_381::Fq2::zero();
#endif
}

template <Fp2Step S>
std::vector<bls12_381::Fq2> run_fp2_step(const std::vector<bls12_381::Fq2>& x, const std::vector<bls12_381::Fq2>& y) {
  return run_kernel<bls12_381::Fq2>(fp2_step_kernel<S>, x, y);
}

class LazyFp2Ops : public ::testing::Test {
 protected:
  void SetUp() override { CUZK_SKIP_WITHOUT_DEVICE(); }
};

TEST_F(LazyFp2Ops, StepsAreCongruentAndBelow2p) {
  using Fq = bls12_381::Fq;
  using E = bls12_381::Fq2;
  using L = Lazy<Fq>;
  auto rng = testing::seeded_rng("lazy fp2 ops");
  constexpr size_t kN = size_t(1) << 16;
  const typename Fq::Int two_p = L::times_p(2);
  // Both coordinates of both operands anywhere in [0, 2p), edges included (Fq::from_mont
  // only wraps the words: these are the lazy representations the MSM carries).
  std::vector<E> x(kN), y(kN);
  for (size_t i = 0; i < kN; ++i) {
    x[i] = {Fq::from_mont(L::value(2, rng, i)), Fq::from_mont(L::value(2, rng, i / 16 + i * 3))};
    y[i] = {Fq::from_mont(L::value(2, rng, i / 16 + i * 7)), Fq::from_mont(L::value(2, rng, i / 256 + i * 5))};
  }
  // Values 0 mod p in every lazy form, for is_zero.
  const Fq p_word = Fq::from_mont(L::times_p(1));
  x[0] = E(p_word, p_word);
  x[16] = E(p_word, Fq::zero());
  auto exact = [](const E& v) {
    return E{Fq::from_mont(L::reduce(v.c0.mont())), Fq::from_mont(L::reduce(v.c1.mont()))};
  };
  auto lazy_ok = [&](const E& got, const E& want) {
    return got.c0.mont().less_than(two_p) && got.c1.mont().less_than(two_p) && exact(got) == want;
  };
  const auto mul = run_fp2_step<Fp2Step::kMul>(x, y);
  const auto sqr = run_fp2_step<Fp2Step::kSqr>(x, y);
  const auto add = run_fp2_step<Fp2Step::kAdd>(x, y);
  const auto sub = run_fp2_step<Fp2Step::kSub>(x, y);
  const auto can = run_fp2_step<Fp2Step::kCanonical>(x, y);
  const auto zero = run_fp2_step<Fp2Step::kIsZero>(x, y);
  for (size_t i = 0; i < kN; ++i) {
    const E a = exact(x[i]), b = exact(y[i]);
    ASSERT_TRUE(lazy_ok(mul[i], a * b)) << "mul at " << i;
    ASSERT_TRUE(lazy_ok(sqr[i], a.square())) << "sqr at " << i;
    ASSERT_TRUE(lazy_ok(add[i], a + b)) << "add at " << i;
    ASSERT_TRUE(lazy_ok(sub[i], a - b)) << "sub at " << i;
    ASSERT_EQ(can[i], a) << "canonical at " << i;
    ASSERT_EQ(zero[i].is_one(), a.is_zero()) << "is_zero at " << i;
  }
}

enum class FpStep { kMul, kSqr, kMulSub, kAdd, kSub, kCanonical, kIsZero };

template <FpStep S, bool kKaratsuba = false>
__global__ void fp_step_kernel(const bls12_381::Fq* x, const bls12_381::Fq* y, bls12_381::Fq* out, size_t n) {
#if defined(__CUDA_ARCH__)
  using L = msm_detail::LazyFp<bls12_381::Fq, kKaratsuba>;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (S == FpStep::kMul) out[i] = L::mul(x[i], y[i]);
  if constexpr (S == FpStep::kSqr) out[i] = L::sqr(x[i]);
  if constexpr (S == FpStep::kMulSub) out[i] = L::mul_sub(x[i], y[i], y[n - 1 - i], x[n - 1 - i]);
  if constexpr (S == FpStep::kAdd) out[i] = L::add(x[i], y[i]);
  if constexpr (S == FpStep::kSub) out[i] = L::sub(x[i], y[i]);
  if constexpr (S == FpStep::kCanonical) out[i] = L::canonical(x[i]);
  if constexpr (S == FpStep::kIsZero) out[i] = L::is_zero(x[i]) ? bls12_381::Fq::one() : bls12_381::Fq::zero();
#endif
}

template <FpStep S, bool kKaratsuba = false>
std::vector<bls12_381::Fq> run_fp_step(const std::vector<bls12_381::Fq>& x, const std::vector<bls12_381::Fq>& y) {
  return run_kernel<bls12_381::Fq>(fp_step_kernel<S, kKaratsuba>, x, y);
}

// BLS12-381 G1's lazy level 1 (LazyFp over Fq) the same way, Y3's a·b - c·d included, and its
// Karatsuba products (LazyFp's kKaratsuba: CUZK_MSM_KARATSUBA's precomputed level 1).
TEST_F(LazyFp2Ops, FqStepsAreCongruentAndBelow2p) {
  using Fq = bls12_381::Fq;
  using L = Lazy<Fq>;
  auto rng = testing::seeded_rng("lazy fq ops");
  constexpr size_t kN = size_t(1) << 16;
  const typename Fq::Int two_p = L::times_p(2);
  std::vector<Fq> x(kN), y(kN);
  for (size_t i = 0; i < kN; ++i) {
    x[i] = Fq::from_mont(L::value(2, rng, i));
    y[i] = Fq::from_mont(L::value(2, rng, i / 16 + i * 7));
  }
  x[0] = Fq::from_mont(L::times_p(1));
  auto exact = [](const Fq& v) { return Fq::from_mont(L::reduce(v.mont())); };
  auto lazy_ok = [&](const Fq& got, const Fq& want) { return got.mont().less_than(two_p) && exact(got) == want; };
  const auto mul = run_fp_step<FpStep::kMul>(x, y);
  const auto sqr = run_fp_step<FpStep::kSqr>(x, y);
  const auto mul_sub = run_fp_step<FpStep::kMulSub>(x, y);
  const auto add = run_fp_step<FpStep::kAdd>(x, y);
  const auto sub = run_fp_step<FpStep::kSub>(x, y);
  const auto can = run_fp_step<FpStep::kCanonical>(x, y);
  const auto zero = run_fp_step<FpStep::kIsZero>(x, y);
  const auto mul_k = run_fp_step<FpStep::kMul, true>(x, y);
  const auto mul_sub_k = run_fp_step<FpStep::kMulSub, true>(x, y);
  for (size_t i = 0; i < kN; ++i) {
    const Fq a = exact(x[i]), b = exact(y[i]), c = exact(y[kN - 1 - i]), d = exact(x[kN - 1 - i]);
    ASSERT_TRUE(lazy_ok(mul[i], a * b)) << "mul at " << i;
    ASSERT_TRUE(lazy_ok(mul_k[i], a * b)) << "Karatsuba mul at " << i;
    ASSERT_TRUE(lazy_ok(mul_sub_k[i], a * b - c * d)) << "Karatsuba mul_sub at " << i;
    ASSERT_TRUE(lazy_ok(sqr[i], a.square())) << "sqr at " << i;
    ASSERT_TRUE(lazy_ok(mul_sub[i], a * b - c * d)) << "mul_sub at " << i;
    ASSERT_TRUE(lazy_ok(add[i], a + b)) << "add at " << i;
    ASSERT_TRUE(lazy_ok(sub[i], a - b)) << "sub at " << i;
    ASSERT_EQ(can[i], a) << "canonical at " << i;
    ASSERT_EQ(zero[i].is_one(), a.is_zero()) << "is_zero at " << i;
  }
}

}  // namespace
}  // namespace cuzk::cuda
