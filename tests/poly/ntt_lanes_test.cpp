// The IFMA lane transforms (poly/ntt_lanes.hpp) against the scalar ones: the same field
// elements, canonical, for every size from 2^0 to 2^14 and a few larger ones, on random
// inputs and on inputs at the edges of the lanes' bounds.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

#include "ff/cpu_lanes.hpp"
#include "ff/fields.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"
#include "poly/ntt_lanes.hpp"
#include "poly_test_util.hpp"

namespace cuzk::poly {
namespace {

using testing::random_vec;

// Restores the lane switch on scope exit.
class LanesSwitch {
 public:
  LanesSwitch() : was_(ff::lanes::enabled()) {}
  ~LanesSwitch() { ff::lanes::set_enabled(was_); }
  void set(bool on) const { ff::lanes::set_enabled(on); }

 private:
  bool was_;
};

template <class F>
EvaluationDomain<F> make_domain(size_t log_n) {
  auto d = EvaluationDomain<F>::create(log_n);
  EXPECT_TRUE(d.is_ok()) << d.status().to_string();
  return std::move(d).value();
}

template <class F>
F from_mont_limbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  return F::from_mont(typename F::Int{{l0, l1, l2, l3}});
}

// 0, 1, p − 1, and Montgomery limbs of all ones (as far as they stay below p): the largest
// 52- and 64-bit limb patterns the lane conversions and carries meet.
template <class F>
std::vector<F> edge_values() {
  constexpr uint64_t kOnes = ~uint64_t(0), kOnes52 = (uint64_t(1) << 52) - 1;
  const uint64_t top = F::MODULUS.limb[3];
  typename F::Int p_minus_1 = F::MODULUS;
  p_minus_1.limb[0] -= 1;
  return {F::zero(),
          F::one(),
          -F::one(),
          F::from_mont(p_minus_1),
          from_mont_limbs<F>(kOnes, kOnes, kOnes, top - 1),
          from_mont_limbs<F>(kOnes, kOnes, kOnes, (uint64_t(1) << 61) - 1),
          from_mont_limbs<F>(kOnes52, 0, 0, 0),
          from_mont_limbs<F>(kOnes, kOnes, kOnes, 0),
          from_mont_limbs<F>(0, 0, 0, top),
          F::from_mont(typename F::Int{{1, 0, 0, 0}})};
}

// Inputs of size n: random, every edge value in turn, and each edge value repeated.
template <class F>
std::vector<std::vector<F>> inputs(size_t n, std::mt19937_64& rng) {
  std::vector<std::vector<F>> out{random_vec<F>(n, rng)};
  const auto edges = edge_values<F>();
  std::vector<F> cycle(n);
  for (size_t i = 0; i < n; ++i) cycle[i] = edges[(i * 7 + i / 3) % edges.size()];
  out.push_back(cycle);
  for (const F& e : edges) out.emplace_back(n, e);
  return out;
}

template <class F>
bool all_canonical(const std::vector<F>& v) {
  for (const F& x : v) {
    if (!x.mont().less_than(F::MODULUS)) return false;
  }
  return true;
}

template <class F>
using Transform = std::function<void(const EvaluationDomain<F>&, std::vector<F>&, ThreadPool&)>;

template <class F>
std::vector<std::pair<const char*, Transform<F>>> transforms() {
  const F g = F::from_u64(7), h = F::from_u64(0x1234567890abcdefull).inverse();
  return {
      {"ntt", [](const auto& d, auto& a, auto& pool) { d.ntt(a, pool); }},
      {"intt", [](const auto& d, auto& a, auto& pool) { d.intt(a, pool); }},
      {"coset_ntt", [g](const auto& d, auto& a, auto& pool) { d.coset_ntt(a, g, pool); }},
      {"coset_intt", [h](const auto& d, auto& a, auto& pool) { d.coset_intt(a, h, pool); }},
      {"shift_evaluations", [h](const auto& d, auto& a, auto& pool) { d.shift_evaluations(a, h, pool); }},
  };
}

// Runs every transform on every input with the lanes off and on; the results must agree.
template <class F>
void expect_lanes_match_scalar(size_t log_n, size_t threads, uint64_t seed) {
  LanesSwitch lanes;
  ThreadPool pool(threads);
  std::mt19937_64 rng(seed);
  const auto d = make_domain<F>(log_n);
  const auto ins = inputs<F>(d.size(), rng);
  for (const auto& [name, transform] : transforms<F>()) {
    for (size_t k = 0; k < ins.size(); ++k) {
      auto scalar = ins[k], lane = ins[k];
      lanes.set(false);
      transform(d, scalar, pool);
      lanes.set(true);
      transform(d, lane, pool);
      ASSERT_TRUE(all_canonical(lane)) << name << " 2^" << log_n << " input " << k;
      ASSERT_EQ(lane, scalar) << name << " 2^" << log_n << " input " << k;
    }
  }
}

template <class F>
class NttLanesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ff::lanes::cpu_supported()) GTEST_SKIP() << "this CPU lacks AVX-512 IFMA";
  }
};
using Fields = ::testing::Types<bn254::Fr, bls12_381::Fr>;
TYPED_TEST_SUITE(NttLanesTest, Fields);

TYPED_TEST(NttLanesTest, TransformsMatchScalarUpTo2To14) {
  for (size_t log_n = 0; log_n <= 14; ++log_n) expect_lanes_match_scalar<TypeParam>(log_n, log_n % 2 ? 3 : 1, log_n);
}

// 2^16: four stages after the in-block ones; 2^19: seven, in two column passes.
TYPED_TEST(NttLanesTest, TransformsMatchScalarAt2To16) { expect_lanes_match_scalar<TypeParam>(16, 2, 16); }

TYPED_TEST(NttLanesTest, ForwardMatchesScalarAt2To19) {
  using F = TypeParam;
  LanesSwitch lanes;
  ThreadPool pool(2);
  std::mt19937_64 rng(19);
  const auto d = make_domain<F>(19);
  auto scalar = random_vec<F>(d.size(), rng), lane = scalar;
  lanes.set(false);
  d.ntt(scalar, pool);
  lanes.set(true);
  d.ntt(lane, pool);
  EXPECT_TRUE(all_canonical(lane));
  EXPECT_EQ(lane, scalar);
}

// The H steps, both conventions, sizes around the lane width; c random, or a·b as a
// witness gives (with b constant, a·b − c is 0 on the coset too: the lanes' products of
// multiples of p must still come out canonical).
TYPED_TEST(NttLanesTest, HStepsMatchScalar) {
  using F = TypeParam;
  LanesSwitch lanes;
  ThreadPool pool(2);
  std::mt19937_64 rng(7);
  for (size_t log_n : {0, 3, 4, 5, 13}) {
    const auto d = make_domain<F>(log_n);
    const size_t n = d.size();
    for (const auto& in : inputs<F>(n, rng)) {
      for (int kind = 0; kind < 3; ++kind) {
        const auto b0 = kind < 2 ? random_vec<F>(n, rng) : std::vector<F>(n, F::random(rng));
        auto c0 = random_vec<F>(n, rng);
        if (kind > 0) {
          for (size_t i = 0; i < n; ++i) c0[i] = in[i] * b0[i];
        }
        std::vector<typename F::Int> p_scalar(n), p_lane(n);
        std::vector<F> h_scalar, h_lane;
        for (bool on : {false, true}) {
          lanes.set(on);
          auto a = in, b = b0, c = c0;
          ASSERT_TRUE(snarkjs_h<F>(d, a, b, c, on ? p_lane : p_scalar, pool).is_ok());
          a = in;
          b = b0;
          c = c0;
          ASSERT_TRUE(bellperson_h<F>(d, a, b, c, F::from_u64(5), pool).is_ok());
          (on ? h_lane : h_scalar) = a;
        }
        for (size_t i = 0; i < n; ++i) {
          ASSERT_TRUE(p_lane[i].less_than(F::MODULUS)) << "2^" << log_n << " i=" << i;
          ASSERT_TRUE(p_lane[i] == p_scalar[i]) << "2^" << log_n << " i=" << i;
        }
        EXPECT_EQ(h_lane, h_scalar) << "2^" << log_n;
        EXPECT_TRUE(all_canonical(h_lane));
      }
    }
  }
}

// a·b − c directly (the H steps transform the Montgomery-form result again, which would
// hide a value left between p and 2p), with c = a·b among the cases.
TYPED_TEST(NttLanesTest, PointwiseProductsAreCanonical) {
  using F = TypeParam;
  std::mt19937_64 rng(8);
  const auto edges = edge_values<F>();
  const size_t n = edges.size() * edges.size() + 5;  // every pair, and a scalar tail
  std::vector<F> a(n), b(n), c(n), out(n);
  std::vector<typename F::Int> ints(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = i < n - 5 ? edges[i / edges.size()] : F::random(rng);
    b[i] = i < n - 5 ? edges[i % edges.size()] : F::random(rng);
    c[i] = i % 3 == 0 ? F::random(rng) : a[i] * b[i] + edges[i % 4];
  }
  lanes::mul_sub_run(a.data(), b.data(), c.data(), n, out.data());
  lanes::mul_sub_canonical_run(a.data(), b.data(), c.data(), n, ints.data());
  for (size_t i = 0; i < n; ++i) {
    const F want = a[i] * b[i] - c[i];
    ASSERT_TRUE(out[i] == want && out[i].mont().less_than(F::MODULUS)) << i;
    ASSERT_TRUE(ints[i] == want.to_canonical()) << i;
  }
}

}  // namespace
}  // namespace cuzk::poly
