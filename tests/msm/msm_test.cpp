#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "ec/batch_affine.hpp"
#include "ec/points.hpp"
#include "msm/pippenger.hpp"

namespace cuzk::msm {
namespace {

// Bases with known discrete logs: P_i = k_i·G, built by chained additions of a few random
// steps (one addition per point instead of a scalar multiplication), so that
// sum s_i·P_i = (sum s_i·k_i)·G gives an exact oracle for any size.
template <class C>
struct Bases {
  using Fr = typename C::Scalar;
  std::vector<ec::Affine<C>> points;
  std::vector<Fr> logs;
};

template <class C>
Bases<C> make_bases(size_t n, std::mt19937_64& rng) {
  using Fr = typename C::Scalar;
  using J = ec::Jacobian<C>;
  constexpr size_t kSteps = 8;
  Fr step[kSteps];
  J step_pt[kSteps];
  for (size_t j = 0; j < kSteps; ++j) {
    step[j] = Fr::random(rng);
    step_pt[j] = J::generator().mul(step[j]);
  }
  Bases<C> b;
  std::vector<J> proj(n);
  b.logs.resize(n);
  Fr k = Fr::zero();
  J p = J::infinity();
  for (size_t i = 0; i < n; ++i) {
    k += step[i % kSteps];
    p += step_pt[i % kSteps];
    b.logs[i] = k;
    proj[i] = p;
  }
  b.points = ec::batch_to_affine(proj);
  return b;
}

enum class Mix { kRandom, kMostlyZeroOne, kMax };

template <class Fr>
std::vector<ff::BigInt<4>> make_scalars(size_t n, Mix mix, std::mt19937_64& rng) {
  std::vector<ff::BigInt<4>> s(n);
  for (auto& x : s) {
    if (mix == Mix::kMax) {
      x = (-Fr::one()).to_canonical();
    } else if (mix == Mix::kMostlyZeroOne && rng() % 10 != 0) {
      x = ff::BigInt<4>::from_u64(rng() % 2);
    } else {
      x = Fr::random(rng).to_canonical();
    }
  }
  return s;
}

template <class C>
ec::Jacobian<C> oracle(const Bases<C>& b, const std::vector<ff::BigInt<4>>& s) {
  using Fr = typename C::Scalar;
  Fr acc = Fr::zero();
  for (size_t i = 0; i < s.size(); ++i) {
    if (b.points[i].is_infinity()) continue;
    acc += Fr::from_canonical(s[i]) * b.logs[i];
  }
  return ec::Jacobian<C>::generator().mul(acc);
}

template <class C>
ec::Jacobian<C> naive(const Bases<C>& b, const std::vector<ff::BigInt<4>>& s) {
  auto acc = ec::Jacobian<C>::infinity();
  for (size_t i = 0; i < s.size(); ++i) acc += ec::Jacobian<C>::from_affine(b.points[i]).mul(s[i]);
  return acc;
}

template <class C>
ec::Jacobian<C> run_msm(const Bases<C>& b, const std::vector<ff::BigInt<4>>& s, ThreadPool& pool) {
  return msm<C>(std::span<const ec::Affine<C>>(b.points), std::span<const ff::BigInt<4>>(s), pool);
}

template <class C>
class MsmTest : public ::testing::Test {};
using Groups = ::testing::Types<bn254::G1Config, bn254::G2Config, bls12_381::G1Config, bls12_381::G2Config>;
TYPED_TEST_SUITE(MsmTest, Groups);

TYPED_TEST(MsmTest, SmallInputsMatchNaiveScalarMultiplications) {
  using C = TypeParam;
  std::mt19937_64 rng(21);
  ThreadPool pool(2);
  for (size_t n : {0, 1, 2, 3, 17}) {
    auto b = make_bases<C>(n, rng);
    auto s = make_scalars<typename C::Scalar>(n, Mix::kRandom, rng);
    auto got = run_msm(b, s, pool);
    EXPECT_EQ(got, naive(b, s)) << "n=" << n;
    EXPECT_EQ(got, oracle(b, s)) << "n=" << n;
  }
}

TYPED_TEST(MsmTest, RandomInputsMatchDiscreteLogOracle) {
  using C = TypeParam;
  std::mt19937_64 rng(22);
  for (auto [threads, n] : {std::pair<size_t, size_t>{1, 1000}, {3, 5000}}) {
    ThreadPool pool(threads);
    {
      auto b = make_bases<C>(n, rng);
      auto s = make_scalars<typename C::Scalar>(n, Mix::kRandom, rng);
      EXPECT_EQ(run_msm(b, s, pool), oracle(b, s)) << "n=" << n << " threads=" << threads;
    }
  }
}

TYPED_TEST(MsmTest, ZeroOneHeavyInputsMatchOracle) {
  using C = TypeParam;
  std::mt19937_64 rng(23);
  ThreadPool pool(2);
  for (size_t n : {17, 1000, 5000}) {
    auto b = make_bases<C>(n, rng);
    auto s = make_scalars<typename C::Scalar>(n, Mix::kMostlyZeroOne, rng);
    EXPECT_EQ(run_msm(b, s, pool), oracle(b, s)) << "n=" << n;
  }
}

TYPED_TEST(MsmTest, AllOnesSumTheBases) {
  using C = TypeParam;
  std::mt19937_64 rng(24);
  ThreadPool pool(2);
  auto b = make_bases<C>(3000, rng);
  std::vector<ff::BigInt<4>> s(b.points.size(), ff::BigInt<4>::from_u64(1));
  auto want = ec::Jacobian<C>::infinity();
  for (const auto& p : b.points) want += p;
  EXPECT_EQ(run_msm(b, s, pool), want);
}

TYPED_TEST(MsmTest, InfinityBasesContributeNothing) {
  using C = TypeParam;
  std::mt19937_64 rng(25);
  ThreadPool pool(2);
  auto b = make_bases<C>(1000, rng);
  for (size_t i = 0; i < b.points.size(); i += 3) b.points[i] = ec::Affine<C>::infinity();
  auto s = make_scalars<typename C::Scalar>(b.points.size(), Mix::kMostlyZeroOne, rng);
  EXPECT_EQ(run_msm(b, s, pool), oracle(b, s));
  b.points.assign(b.points.size(), ec::Affine<C>::infinity());
  EXPECT_TRUE(run_msm(b, s, pool).is_infinity());
}

TYPED_TEST(MsmTest, MaxScalarIsMinusOne) {
  using C = TypeParam;
  std::mt19937_64 rng(26);
  ThreadPool pool(2);
  for (size_t n : {1, 17, 1000}) {
    auto b = make_bases<C>(n, rng);
    auto s = make_scalars<typename C::Scalar>(n, Mix::kMax, rng);
    auto want = ec::Jacobian<C>::infinity();
    for (const auto& p : b.points) want -= p;
    EXPECT_EQ(run_msm(b, s, pool), want) << "n=" << n;
  }
}

// Equal bases with opposite or equal digits exercise the doubling and cancellation
// paths of the bucket additions.
TYPED_TEST(MsmTest, RepeatedBasesAreHandled) {
  using C = TypeParam;
  std::mt19937_64 rng(27);
  ThreadPool pool(2);
  auto one = make_bases<C>(1, rng);
  Bases<C> b;
  b.points.assign(600, one.points[0]);
  b.logs.assign(600, one.logs[0]);
  auto s = make_scalars<typename C::Scalar>(600, Mix::kRandom, rng);
  for (size_t i = 0; i < 200; ++i) s[i + 200] = s[i];
  EXPECT_EQ(run_msm(b, s, pool), oracle(b, s));
}

// Few distinct points into the buckets: batches hit queued buckets, equal points
// (doubling) and opposite points (cancellation) all the time; a second round checks that
// weighted_sum leaves the buckets empty for the next window.
template <class C>
void expect_buckets_handle_collisions(size_t buckets_n, size_t batch, size_t distinct, uint64_t seed) {
  using P = ec::Xyzz<C>;
  std::mt19937_64 rng(seed);
  auto b = make_bases<C>(distinct, rng);
  detail::BatchAffineBuckets<C> buckets(buckets_n, batch);
  for (int round = 0; round < 2; ++round) {  // the second round reuses the emptied buckets
    std::vector<P> want(buckets_n, P::infinity());
    for (size_t i = 0; i < 20000; ++i) {
      uint32_t j = uint32_t(rng() % (i < 10000 ? buckets_n : 3));
      ec::Affine<C> p = b.points[rng() % b.points.size()];
      if (rng() & 1) p.y = -p.y;
      buckets.add(j, p);
      want[j] += p;
    }
    P expected = P::infinity(), running = P::infinity();
    for (size_t j = buckets_n; j-- > 0;) {
      running += want[j];
      expected += running;
    }
    EXPECT_EQ(buckets.weighted_sum().to_jacobian(), expected.to_jacobian()) << buckets_n << " buckets";
  }
}

TYPED_TEST(MsmTest, BatchAffineBucketsHandleCollisions) {
  expect_buckets_handle_collisions<TypeParam>(256, 64, 5, 28);
  expect_buckets_handle_collisions<TypeParam>(4096, 1024, 2, 29);
}

TEST(MsmWindow, LargeInputsUseBatchedBuckets) {
  EXPECT_GT(detail::batch_size(detail::choose_window(1 << 16, 254)), 0u);
  EXPECT_EQ(detail::batch_size(detail::choose_window(17, 254)), 0u);
}

TEST(MsmWindow, GrowsWithInputSize) {
  EXPECT_LE(detail::choose_window(10, 254), detail::choose_window(1000, 254));
  EXPECT_LT(detail::choose_window(1000, 254), detail::choose_window(1 << 18, 254));
}

// Recombining the signed digits of every window gives the scalar back, for random
// scalars and for bit patterns that put a set top bit in every window (long borrows).
TEST(MsmDigits, BoothDigitsRecombineToTheScalar) {
  using Fr = bn254::Fr;
  std::mt19937_64 rng(31);
  std::vector<ff::BigInt<4>> ks;
  for (int i = 0; i < 200; ++i) ks.push_back(Fr::random(rng).to_canonical());
  ks.push_back((Fr::zero() - Fr::one()).to_canonical());  // r - 1
  ks.push_back(Fr::one().to_canonical());
  ff::BigInt<4> alternating{};
  for (auto& l : alternating.limb) l = 0xaaaaaaaaaaaaaaaaull;
  alternating.limb[3] &= 0x0fffffffffffffffull;  // < r
  ks.push_back(alternating);
  for (unsigned c = 1; c <= 20; ++c) {
    const detail::WindowLayout layout(Fr::BITS, c);
    ASSERT_EQ(layout.offset(layout.windows - 1) + layout.width(layout.windows - 1), Fr::BITS + 1) << "c=" << c;
    ASSERT_LE(layout.width(0), c);
    ASSERT_GE(layout.width(layout.windows - 1) + 1, layout.width(0));
    for (const auto& k : ks) {
      Fr acc = Fr::zero();
      for (size_t w = 0; w < layout.windows; ++w) {
        const unsigned width = layout.width(w);
        const detail::Digit d = detail::booth_digit(k, layout.offset(w), width);
        ASSERT_LE(d >> 1, uint32_t(1) << (width - 1)) << "c=" << c << " w=" << w;
        const Fr mag = Fr::from_u64(d >> 1) * Fr::from_u64(2).pow(layout.offset(w));
        acc = (d & 1) ? acc - mag : acc + mag;
      }
      ASSERT_EQ(acc, Fr::from_canonical(k)) << "c=" << c;
    }
  }
}

// Runs a bucket method at each window width over 700 random terms (one of them r − 1)
// and compares with the oracle.
template <class C, class Method>
void expect_every_width_matches_oracle(uint64_t seed, std::initializer_list<unsigned> widths, Method method) {
  std::mt19937_64 rng(seed);
  ThreadPool pool(2);
  auto b = make_bases<C>(700, rng);
  auto s = make_scalars<typename C::Scalar>(700, Mix::kRandom, rng);
  s[3] = (C::Scalar::zero() - C::Scalar::one()).to_canonical();
  std::vector<uint32_t> idx(s.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = uint32_t(i);
  const auto want = oracle(b, s);
  for (unsigned c : widths) {
    auto got = method(std::span<const ec::Affine<C>>(b.points), std::span<const ff::BigInt<4>>(s),
                      std::span<const uint32_t>(idx), pool, c);
    EXPECT_EQ(got.to_jacobian(), want) << "window " << c;
  }
}

// Every window width, batched or not, agrees with the oracle.
TYPED_TEST(MsmTest, EveryWindowWidthMatchesOracle) {
  expect_every_width_matches_oracle<TypeParam>(32, {1u, 2u, 3u, 5u, 8u, 9u, 11u, 13u, 16u},
                                               detail::pippenger<TypeParam>);
}

// The GLV data: phi is multiplication by lambda on the generator, both basis vectors lie
// in the lattice {(a, b) : a + b·lambda = 0 mod r}, and the split is congruent and below
// 2^128 in magnitude for random and edge scalars.
template <class C>
class GlvTest : public ::testing::Test {};
using GlvGroups = ::testing::Types<bn254::G1Config, bls12_381::G1Config>;
TYPED_TEST_SUITE(GlvTest, GlvGroups);

template <class Fr>
Fr from_twos_complement(const ff::BigInt<4>& v) {
  if ((v.limb[3] >> 63) == 0) return Fr::from_canonical(v);
  ff::BigInt<4> mag{};
  mag.sub_in_place(v);
  return -Fr::from_canonical(mag);
}

TYPED_TEST(GlvTest, ConstantsMatchTheirDefinitions) {
  using C = TypeParam;
  using G = Glv<C>;
  using Fr = typename C::Scalar;
  const auto g = C::generator();
  const ec::Affine<C> phi_g{g.x * G::beta(), g.y};
  EXPECT_EQ(ec::Jacobian<C>::from_affine(phi_g), ec::Jacobian<C>::generator().mul(G::lambda().to_canonical()));
  EXPECT_EQ(G::lambda() * G::lambda() * G::lambda(), Fr::one());
  EXPECT_NE(G::lambda(), Fr::one());
  const GlvLattice& l = G::lattice();
  EXPECT_TRUE((from_twos_complement<Fr>(l.a1) + from_twos_complement<Fr>(l.b1) * G::lambda()).is_zero());
  EXPECT_TRUE((from_twos_complement<Fr>(l.a2) + from_twos_complement<Fr>(l.b2) * G::lambda()).is_zero());
}

TYPED_TEST(GlvTest, SplitIsCongruentAndShort) {
  using C = TypeParam;
  using G = Glv<C>;
  using Fr = typename C::Scalar;
  std::mt19937_64 rng(33);
  std::vector<Fr> ks = {Fr::zero(), Fr::one(), -Fr::one(), G::lambda(), -G::lambda(), Fr::from_u64(2).pow(253),
                        Fr::from_u64(2).pow(128) - Fr::one(), Fr::from_u64(2).pow(128)};
  for (int i = 0; i < 2000; ++i) ks.push_back(Fr::random(rng));
  for (const Fr& k : ks) {
    const GlvSplit s = glv_split(k.to_canonical(), G::lattice());
    Fr k1 = Fr::from_canonical(ff::BigInt<4>{{s.k1.limb[0], s.k1.limb[1], 0, 0}});
    Fr k2 = Fr::from_canonical(ff::BigInt<4>{{s.k2.limb[0], s.k2.limb[1], 0, 0}});
    if (s.neg1) k1 = -k1;
    if (s.neg2) k2 = -k2;
    ASSERT_EQ(k1 + k2 * G::lambda(), k);
    ASSERT_LE(s.k1.num_bits(), G::kBits);
    ASSERT_LE(s.k2.num_bits(), G::kBits);
  }
}

TYPED_TEST(GlvTest, GlvPippengerMatchesOracleAtEveryWidth) {
  expect_every_width_matches_oracle<TypeParam>(34, {1u, 4u, 9u, 12u, 13u}, detail::pippenger_glv<TypeParam>);
}

}  // namespace
}  // namespace cuzk::msm
