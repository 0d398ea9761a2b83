// BLS12-381's lazy level-1 addition (cuda/msm/outlined_products.cuh: madd_lazy_in_place over
// LazyFp for G1 and LazyFp2 for G2, the accumulator's coordinates in [0, 2p) between steps) on
// the host, through ff/fp_cuda.hpp's host model: each PTX carry-chain step in C++. Chains of
// additions against the exact XYZZ addition (ec::madd_in_place, the same formula): after every
// step the lazy accumulator's coordinates are below 2p and, brought below p, equal the exact
// ones bit for bit. The chains take the rare branches too: a point added to itself (the
// doubling), its negation (infinity), infinity as the point, and restarts from infinity.
// G1 also through madd_lazy_parked (two temporaries parked in memory between products).
// CI has no GPU; the device runs the same code in cuda_lazy_ops_test and every MSM test.
#define CUZK_FP_CUDA_HOST_MODEL 1
#include "cuda/msm/outlined_products.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"
#include "ec/xyzz_madd.hpp"
#include "ff/fields.hpp"

namespace cuzk::cuda::msm_detail {
namespace {

std::mt19937_64 seeded_rng(const char* salt) {
  static const uint64_t seed = [] {
    if (const char* env = std::getenv("CUZK_TEST_SEED")) return uint64_t(std::strtoull(env, nullptr, 0));
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
  }();
  std::cout << "[ seed     ] CUZK_TEST_SEED=" << seed << " (" << salt << ")\n";
  uint64_t s = seed;
  for (const char* c = salt; *c; ++c) s = s * 1099511628211ull + uint8_t(*c);
  return std::mt19937_64(s);
}

// Every Fq component of a coordinate below 2p.
bool below_2p(const bls12_381::Fq& a) {
  auto two_p = bls12_381::Fq::MODULUS;
  two_p.add_in_place(bls12_381::Fq::MODULUS);
  return a.mont().less_than(two_p);
}
bool below_2p(const bls12_381::Fq2& a) { return below_2p(a.c0) && below_2p(a.c1); }

template <class C>
std::string describe(const ec::Xyzz<C>& lazy, const ec::Xyzz<C>& exact) {
  return "lazy " + std::string(lazy.is_infinity() ? "infinity" : "finite") + ", exact " +
         (exact.is_infinity() ? "infinity" : "finite");
}

// L's lazy addition as level 1 runs it: in registers, or (kParked) through
// madd_lazy_parked with two temporaries parked in memory (the CUZK_MSM_SHARED_ACC variant).
template <class C, class L, bool kParked>
void lazy_add(ec::Xyzz<C>& a, const ec::Affine<C>& o) {
  if constexpr (kParked) {
    typename C::Base park[2];
    madd_lazy_parked<L>(a, o, park);
  } else {
    madd_lazy_in_place<L>(a, o);
  }
}

// `chains` chains of `steps` additions of L's lazy addition against the exact one.
template <class C, class L, bool kParked = false>
void check_chains(const char* salt, size_t chains, size_t steps) {
  using Affine = ec::Affine<C>;
  using Xyzz = ec::Xyzz<C>;
  auto rng = seeded_rng(salt);
  std::vector<Affine> bases(16);
  for (auto& b : bases) b = ec::Jacobian<C>::generator().mul(bls12_381::Fr::random(rng)).to_affine();
  bases[0] = C::generator();

  size_t doublings = 0, cancellations = 0;
  for (size_t c = 0; c < chains; ++c) {
    Xyzz exact = Xyzz::infinity(), lazy = Xyzz::infinity();
    for (size_t s = 0; s < steps; ++s) {
      Affine o;
      const unsigned pick = unsigned(rng() % 16);
      if (pick == 0 && !exact.is_infinity()) {
        o = exact.to_affine();  // the accumulator itself: the doubling branch
        ++doublings;
      } else if (pick == 1 && !exact.is_infinity()) {
        o = -exact.to_affine();  // its negation: infinity, then a restart
        ++cancellations;
      } else if (pick == 2) {
        o = Affine::infinity();
      } else {
        o = bases[rng() % bases.size()];
      }
      ec::madd_in_place(exact, o);
      lazy_add<C, L, kParked>(lazy, o);
      SCOPED_TRACE("chain " + std::to_string(c) + " step " + std::to_string(s) + ": " + describe(lazy, exact));
      ASSERT_EQ(lazy.is_infinity(), exact.is_infinity());
      ASSERT_TRUE(below_2p(lazy.x) && below_2p(lazy.y) && below_2p(lazy.zz) && below_2p(lazy.zzz))
          << "a lazy coordinate at or above 2p";
      const Xyzz got = L::canonical(lazy);
      ASSERT_TRUE(got.x == exact.x && got.y == exact.y && got.zz == exact.zz && got.zzz == exact.zzz)
          << "the lazy sum differs from the exact one";
    }
  }
  // The rare branches were taken (each ~1/16 of the steps).
  EXPECT_GT(doublings, 0u);
  EXPECT_GT(cancellations, 0u);
}

TEST(LazyMaddModel, G1ChainsMatchTheExactAddition) {
  check_chains<bls12_381::G1Config, LazyFp<bls12_381::Fq>>("lazy madd G1", 128, 128);
}

TEST(LazyMaddModel, G1ParkedChainsMatchTheExactAddition) {
  check_chains<bls12_381::G1Config, LazyFp<bls12_381::Fq>, true>("lazy madd G1 parked", 128, 128);
}

TEST(LazyMaddModel, G2ChainsMatchTheExactAddition) {
  check_chains<bls12_381::G2Config, LazyFp2<bls12_381::Fq2>>("lazy madd G2", 64, 96);
}

}  // namespace
}  // namespace cuzk::cuda::msm_detail
