// The AVX-512 IFMA batch additions (msm/lanes.hpp) against the scalar field, and the MSM
// with lanes on against the MSM with lanes off. Skipped where the CPU lacks IFMA (the
// scalar path is then the only one, and msm_test covers it).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "ec/batch_affine.hpp"
#include "msm/lanes.hpp"
#include "msm/pippenger.hpp"

namespace cuzk::msm {
namespace {

template <class F>
class LanesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!lanes::cpu_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  }
};
using Fields = ::testing::Types<bn254::Fq, bls12_381::Fq, bn254::Fq2, bls12_381::Fq2>;
TYPED_TEST_SUITE(LanesTest, Fields);

// Values that stress carries and the reductions: 0, 1, −1, −2, limbs of all ones, powers
// of two around the 52-bit limb boundaries, and R − p style values.
template <class F>
std::vector<F> edge_values();

// Fp2: pairs of the base field's edge values.
template <class E>
requires requires(E e) { e.c1; }
std::vector<E> edge_values() {
  const auto base = edge_values<typename E::Fq>();
  std::vector<E> v;
  for (size_t i = 0; i < base.size(); ++i)
    for (size_t j = 0; j < base.size(); j += 3) v.push_back(E(base[i], base[j]));
  return v;
}

template <class F>
std::vector<F> edge_values() {
  std::vector<F> v = {F::zero(), F::one(), -F::one(), -F::one() - F::one(), F::from_u64(2)};
  for (unsigned k : {51u, 52u, 53u, 103u, 104u, 156u, 208u, 250u, 253u}) {
    if (k < F::BITS) v.push_back(F::from_u64(2).pow(k));
    if (k < F::BITS) v.push_back(-F::from_u64(2).pow(k));
  }
  ff::BigInt<F::N> ones{};
  for (size_t i = 0; i + 1 < F::N; ++i) ones.limb[i] = ~uint64_t(0);
  v.push_back(F::from_mont(ones));  // Montgomery limbs all ones below the top one
  ff::BigInt<F::N> almost = F::MODULUS;
  almost.limb[0] -= 1;
  v.push_back(F::from_mont(almost));  // raw p − 1
  return v;
}

template <class F>
bool canonical(const F& x) {
  if constexpr (requires { x.c1; }) {
    return canonical(x.c0) && canonical(x.c1);
  } else {
    return x.mont().less_than(F::MODULUS);
  }
}

// Runs n additions of arbitrary field elements (the formula does not need curve points)
// through the lanes and through the scalar formula, and compares every coordinate.
template <class F>
void expect_batch_matches_scalar(size_t n, std::mt19937_64& rng, bool edges) {
  const std::vector<F> edge = edge_values<F>();
  auto pick = [&]() { return edges && rng() % 2 ? edge[rng() % edge.size()] : F::random(rng); };
  const size_t buckets = 3 * n + 5;
  std::vector<F> bucket(2 * buckets);
  for (auto& f : bucket) f = F::random(rng);
  std::vector<uint32_t> index(n);
  std::vector<F> point(2 * n), den(n);
  std::vector<uint32_t> order(buckets);
  for (uint32_t j = 0; j < buckets; ++j) order[j] = j;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t e = 0; e < n; ++e) {
    index[e] = order[e];  // distinct buckets
    F& bx = bucket[2 * index[e]];
    bucket[2 * index[e] + 1] = pick();
    bx = pick();
    point[2 * e + 1] = pick();
    do point[2 * e] = pick();
    while (point[2 * e] == bx);
    den[e] = point[2 * e] - bx;
  }
  std::vector<F> want = bucket;
  for (size_t e = 0; e < n; ++e) {
    F& bx = want[2 * index[e]];
    F& by = want[2 * index[e] + 1];
    const F& qx = point[2 * e];
    const F& qy = point[2 * e + 1];
    const F lambda = (qy - by) * (qx - bx).inverse();
    const F x3 = lambda.square() - bx - qx;
    by = lambda * (bx - x3) - by;
    bx = x3;
  }
  std::vector<uint64_t> scratch;
  lanes::batch_affine_add(bucket.data(), index.data(), point.data(), den.data(), n, scratch);
  for (size_t j = 0; j < 2 * buckets; ++j) {
    ASSERT_EQ(bucket[j], want[j]) << "n=" << n << " bucket " << j / 2 << (j % 2 ? " y" : " x");
    ASSERT_TRUE(canonical(bucket[j])) << "not canonical: n=" << n << " bucket " << j / 2;
  }
}

TYPED_TEST(LanesTest, BatchesOfEverySizeMatchTheScalarFormula) {
  std::mt19937_64 rng(41);
  for (size_t n : {1, 2, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 127, 255, 1000, 1024})
    expect_batch_matches_scalar<TypeParam>(n, rng, false);
}

TYPED_TEST(LanesTest, EdgeValuesMatchTheScalarFormula) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20; ++round) expect_batch_matches_scalar<TypeParam>(64 + 37 * round, rng, true);
}

// The whole MSM with lanes on and off, through the plain and (G1) the GLV bucket methods, at
// widths that batch; both must equal the discrete-log oracle.
template <class C>
void expect_msm_same_with_and_without_lanes(size_t n, uint64_t seed) {
  using Fr = typename C::Scalar;
  using J = ec::Jacobian<C>;
  std::mt19937_64 rng(seed);
  std::vector<J> proj(n);
  std::vector<ff::BigInt<4>> scalars(n);
  Fr want_log = Fr::zero();
  const J g = J::generator();
  for (size_t i = 0; i < n; ++i) {
    const Fr log = Fr::random(rng), s = Fr::random(rng);
    proj[i] = g.mul(log);
    scalars[i] = s.to_canonical();
    want_log += log * s;
  }
  const auto bases = ec::batch_to_affine(proj);
  const J want = g.mul(want_log);
  std::vector<uint32_t> idx(n);
  for (uint32_t i = 0; i < n; ++i) idx[i] = i;
  ThreadPool pool(2);
  for (bool on : {true, false}) {
    lanes::set_enabled(on);
    EXPECT_EQ(detail::pippenger<C>(bases, scalars, idx, pool, 10).to_jacobian(), want) << "lanes " << on;
    if constexpr (Glv<C>::kEnabled) {
      EXPECT_EQ(detail::pippenger_glv<C>(bases, scalars, idx, pool, 10).to_jacobian(), want) << "glv, lanes " << on;
    }
    EXPECT_EQ(msm<C>(bases, scalars, pool), want) << "msm, lanes " << on;
  }
  lanes::set_enabled(true);
}

TEST(LanesMsm, Bn254G1SameWithAndWithoutLanes) {
  if (!lanes::cpu_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  expect_msm_same_with_and_without_lanes<bn254::G1Config>(3000, 43);
}

TEST(LanesMsm, Bls12381G1SameWithAndWithoutLanes) {
  if (!lanes::cpu_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  expect_msm_same_with_and_without_lanes<bls12_381::G1Config>(2000, 44);
}

TEST(LanesMsm, Bn254G2SameWithAndWithoutLanes) {
  if (!lanes::cpu_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  expect_msm_same_with_and_without_lanes<bn254::G2Config>(1500, 45);
}

TEST(LanesMsm, Bls12381G2SameWithAndWithoutLanes) {
  if (!lanes::cpu_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  expect_msm_same_with_and_without_lanes<bls12_381::G2Config>(1000, 46);
}

TEST(LanesMsm, SwitchFollowsTheCpu) {
  lanes::set_enabled(true);
  EXPECT_EQ(lanes::enabled(), lanes::cpu_supported());
  lanes::set_enabled(false);
  EXPECT_FALSE(lanes::enabled());
  lanes::set_enabled(true);
}

}  // namespace
}  // namespace cuzk::msm
