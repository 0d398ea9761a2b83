// Precomputed MSM bases in a resident key (CudaBackendOptions::precompute): with tables the
// GPU proof is byte-identical to the CPU proof for the same r and s, the tables are counted
// in the key's resident bytes and a proof stays within its stated bytes; a key whose tables
// do not fit (the budget or the byte cap) keeps the plain bases and still proves; a failed
// table allocation (injected) falls back to the plain bases, while an injected copy or
// launch fault in the build fails the preparation and leaves the device at its baseline.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cuda/allocator.hpp"
#include "cuda/cuda_test_util.hpp"
#include "cuda/fault.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "cuda/prover/same_proofs.hpp"  // tests/cuda
#include "formats/zkey.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/precompute_spec.hpp"
#include "groth16/prover.hpp"
#include "groth16/scratch_dir.hpp"  // tests/groth16
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::cuda {
namespace {

using groth16::MsmSection;
using groth16::testing::ScratchDir;

// A dev-setup key of the demo circuit and its CPU prover; GPU provers are made per test.
template <class C>
struct Circuit {
  using Fr = typename C::Fr;
  ScratchDir dir;
  ThreadPool pool{std::max<size_t>(2, ThreadPool::default_threads())};
  groth16::CpuBackend<C> cpu{pool};
  groth16::DemoCircuit<Fr> circuit;
  groth16::VerifyingKey<C> vk;
  std::optional<formats::Zkey<C>> zkey;
  std::optional<groth16::Prover<C>> cpu_prover;

  Status init(uint32_t constraints, uint64_t seed) {
    CUZK_ASSIGN_OR_RETURN(circuit, groth16::make_demo_circuit<Fr>(constraints, seed));
    CUZK_ASSIGN_OR_RETURN(vk, groth16::dev_setup<C>(circuit.r1cs, dir.file("k.zkey"), pool));
    CUZK_ASSIGN_OR_RETURN(auto z, formats::Zkey<C>::open(dir.file("k.zkey")));
    zkey.emplace(std::move(z));
    CUZK_ASSIGN_OR_RETURN(auto cp, groth16::Prover<C>::create(*zkey, cpu, pool));
    cpu_prover.emplace(std::move(cp));
    return Status::ok();
  }
};

// A CUDA backend and a prover of the circuit's key on it.
template <class C>
struct Gpu {
  std::unique_ptr<CudaBackend<C>> backend;
  std::optional<groth16::Prover<C>> prover;
  const groth16::PreparedKey<C>& key() const { return prover->prepared(); }
  std::vector<MsmSection> tables() const { return backend->precomputed(key()); }
};

template <class C>
Result<Gpu<C>> make_gpu(Circuit<C>& c, const CudaBackendOptions& o) {
  Gpu<C> g;
  CUZK_ASSIGN_OR_RETURN(g.backend, CudaBackend<C>::create(o, c.pool));
  CUZK_ASSIGN_OR_RETURN(auto p, groth16::Prover<C>::create(*c.zkey, *g.backend, c.pool));
  g.prover.emplace(std::move(p));
  return g;
}

// "auto" for keys of any size (by default sections under 2^22 points keep plain bases).
CudaBackendOptions small_keys() {
  CudaBackendOptions o;
  o.precompute_min_points = 0;
  return o;
}

CudaBackendOptions with_sections(std::vector<MsmSection> sections) {
  CudaBackendOptions o = small_keys();
  o.precompute = std::move(sections);
  return o;
}


// Same r and s on both backends: the same proof, and it verifies.
template <class C>
void expect_same_proofs(Circuit<C>& c, Gpu<C>& g, uint64_t salt) {
  testing_prover::expect_same_proofs<C>(*c.cpu_prover, *g.prover, c.circuit.witness, c.vk,
                                        std::string("precompute-") + C::NAME + std::to_string(salt));
}

DeviceAllocator& allocator() {
  auto a = DeviceAllocator::for_device(0);
  EXPECT_TRUE(a.is_ok());
  return **a;
}

template <class C>
class CudaPrecompute : public ::testing::Test {
 protected:
  void SetUp() override { CUZK_SKIP_WITHOUT_DEVICE(); }
  void TearDown() override {
    disarm_faults();
    if (testing::no_device_reason().empty()) (void)allocator().configure(BudgetOptions{});
  }
};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(CudaPrecompute, Curves);

// "auto" builds every section's table (small keys fit), in order of gain; the tables are
// the key's resident bytes exactly, and a proof stays within resident + upload + compute.
TYPED_TEST(CudaPrecompute, EverySectionPrecomputedProvesTheCpuProof) {
  using C = TypeParam;
  for (uint32_t n : {100u, (1u << 12) - 5, (1u << 16) - 5}) {
    SCOPED_TRACE("constraints " + std::to_string(n));
    Circuit<C> c;
    ASSERT_TRUE(c.init(n, n + 1).is_ok());
    size_t plain = 0;
    {
      auto off = make_gpu(c, with_sections({}));
      ASSERT_TRUE(off.is_ok()) << off.status().to_string();
      EXPECT_TRUE(off->tables().empty());
      EXPECT_EQ(off->key().notes(), "precomputed bases: off");
      plain = off->key().resident_bytes();
    }
    auto g = make_gpu(c, small_keys());
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    EXPECT_EQ(g->key().placement(), "device");
    EXPECT_EQ(g->tables(), groth16::precompute_auto_order()) << g->key().notes();
    for (MsmSection s : groth16::precompute_auto_order()) {
      EXPECT_NE(g->key().notes().find(std::string(groth16::msm_section_name(s)) + " c="), std::string::npos)
          << g->key().notes();
    }
    EXPECT_GT(g->key().resident_bytes(), plain);
    {
      // The default minimum (2^22 points) leaves sections this small with plain bases.
      auto dflt = make_gpu(c, CudaBackendOptions{});
      ASSERT_TRUE(dflt.is_ok()) << dflt.status().to_string();
      EXPECT_TRUE(dflt->tables().empty()) << dflt->key().notes();
      EXPECT_NE(dflt->key().notes().find("where tables pay"), std::string::npos) << dflt->key().notes();
      EXPECT_EQ(dflt->key().resident_bytes(), plain);
    }
    EXPECT_EQ(allocator().stats().allocated_bytes, g->key().resident_bytes());
    expect_same_proofs(c, *g, n);
    allocator().reset_peak();
    auto fresh = g->prover->prove(c.circuit.witness);
    ASSERT_TRUE(fresh.is_ok()) << fresh.status().to_string();
    EXPECT_TRUE(groth16::verify<C>(c.vk, fresh->proof, fresh->public_signals).is_ok());
    EXPECT_LE(allocator().stats().peak_bytes,
              g->key().resident_bytes() + g->backend->upload_bytes(g->key()) + g->backend->compute_bytes(g->key()));
  }
}

// A list builds only what it names, in its order; every lane count gives the same proof.
TYPED_TEST(CudaPrecompute, NamedSectionsOnlyInEveryLaneCount) {
  using C = TypeParam;
  Circuit<C> c;
  ASSERT_TRUE(c.init((1u << 13) - 5, 31).is_ok());
  for (const char* spec : {"b2,l", "a", "h,b1"}) {
    SCOPED_TRACE(spec);
    auto sections = groth16::parse_precompute_spec(spec, "test");
    ASSERT_TRUE(sections.is_ok());
    auto g = make_gpu(c, with_sections(*sections));
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    EXPECT_EQ(g->tables(), *sections) << g->key().notes();
    for (unsigned lanes : {1u, 3u, 5u}) {
      SCOPED_TRACE("lanes " + std::to_string(lanes));
      g->backend->set_msm_lanes(lanes);
      expect_same_proofs(c, *g, lanes);
    }
  }
}

// A budget that holds the plain key and a proof but no table: no table, a resident key
// whose proofs are right; a byte cap below every table's size: the same.
TYPED_TEST(CudaPrecompute, KeyWhoseTablesDoNotFitKeepsThePlainBases) {
  using C = TypeParam;
  Circuit<C> c;
  ASSERT_TRUE(c.init((1u << 15) - 5, 33).is_ok());
  size_t need = 0, smallest_table = SIZE_MAX;
  {
    auto off = make_gpu(c, with_sections({}));
    ASSERT_TRUE(off.is_ok());
    need =
        off->key().resident_bytes() + off->backend->upload_bytes(off->key()) + off->backend->compute_bytes(off->key());
    auto g = make_gpu(c, small_keys());
    ASSERT_TRUE(g.is_ok());
    ASSERT_EQ(g->tables().size(), 5u) << g->key().notes();
    smallest_table = g->key().resident_bytes() - off->key().resident_bytes();  // all five added
    for (MsmSection s : groth16::precompute_auto_order()) {
      auto one = make_gpu(c, with_sections({s}));
      ASSERT_TRUE(one.is_ok());
      ASSERT_EQ(one->tables().size(), 1u);
      smallest_table = std::min(smallest_table, one->key().resident_bytes() - off->key().resident_bytes());
    }
  }
  ASSERT_GT(smallest_table, size_t(4) << 20);
  BudgetOptions capped;
  capped.cap_bytes = need + (size_t(2) << 20);  // room for a proof, not for any table beside it
  ASSERT_TRUE(allocator().configure(capped).is_ok());
  {
    CudaBackendOptions o = small_keys();
    o.precompute_max_bytes = size_t(1) << 50;  // the budget, not the cap, is what stops them
    auto g = make_gpu(c, o);
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    EXPECT_EQ(g->key().placement(), "device");
    EXPECT_TRUE(g->tables().empty()) << g->key().notes();
    EXPECT_NE(g->key().notes().find("does not fit the budget beside a proof"), std::string::npos) << g->key().notes();
    EXPECT_EQ(g->backend->msm_lanes(g->key()), 3u);
    expect_same_proofs(c, *g, 1);
    EXPECT_LE(allocator().stats().peak_bytes, capped.cap_bytes);
  }
  ASSERT_TRUE(allocator().configure(BudgetOptions{}).is_ok());
  {
    CudaBackendOptions o = small_keys();
    o.precompute_max_bytes = smallest_table - 1;
    auto g = make_gpu(c, o);
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    EXPECT_TRUE(g->tables().empty()) << g->key().notes();
    EXPECT_NE(g->key().notes().find("over the cap"), std::string::npos) << g->key().notes();
    expect_same_proofs(c, *g, 2);
  }
}

// The default cap, half of what is left after the key: a budget that leaves room for H's
// table and a proof beside the key, and whose half holds H's table but not B2's with it.
TYPED_TEST(CudaPrecompute, DefaultCapIsHalfOfTheBudgetLeft) {
  using C = TypeParam;
  Circuit<C> c;
  ASSERT_TRUE(c.init((1u << 17) - 5, 35).is_ok());
  auto one_lane = [](std::vector<MsmSection> sections) {
    CudaBackendOptions o = with_sections(std::move(sections));
    o.msm_lanes = 1;  // a proof's working set small beside the tables
    return o;
  };
  size_t key_bytes = 0, work = 0, h_add = 0, b2_add = 0;
  {
    auto off = make_gpu(c, one_lane({}));
    ASSERT_TRUE(off.is_ok());
    key_bytes = off->key().resident_bytes();
    work = off->backend->upload_bytes(off->key()) + off->backend->compute_bytes(off->key());
    auto h = make_gpu(c, one_lane({MsmSection::kH}));
    auto b2 = make_gpu(c, one_lane({MsmSection::kB2}));
    ASSERT_TRUE(h.is_ok() && b2.is_ok());
    ASSERT_EQ(h->tables().size(), 1u);
    ASSERT_EQ(b2->tables().size(), 1u);
    h_add = h->key().resident_bytes() - key_bytes;
    b2_add = b2->key().resident_bytes() - key_bytes;
  }
  // What is left after the key: H's table (beside its plain copy while it is built) and a
  // proof, and at least twice H's extra bytes; its half then stays below H's and B2's.
  const size_t h_table = h_add + c.zkey->h().size_bytes();
  const size_t left = std::max(2 * h_add, h_table + work + (size_t(16) << 20));
  ASSERT_LT(left / 2, h_add + b2_add) << "work " << work << ", h " << h_add << ", b2 " << b2_add;
  BudgetOptions capped;
  capped.cap_bytes = key_bytes + left;
  ASSERT_TRUE(allocator().configure(capped).is_ok());
  auto g = make_gpu(c, one_lane({MsmSection::kH, MsmSection::kB2}));
  ASSERT_TRUE(g.is_ok()) << g.status().to_string();
  EXPECT_EQ(g->tables(), std::vector<MsmSection>{MsmSection::kH}) << g->key().notes();
  EXPECT_NE(g->key().notes().find("half of the"), std::string::npos) << g->key().notes();
  EXPECT_NE(g->key().notes().find("b2 skipped (would add"), std::string::npos) << g->key().notes();
  expect_same_proofs(c, *g, 3);
  EXPECT_LE(allocator().stats().peak_bytes, capped.cap_bytes);
}

// A table whose allocation fails (injected) is skipped with those after it: the key
// prepares with the tables built before, holds exactly its resident bytes, and proves.
TYPED_TEST(CudaPrecompute, FailedTableAllocationFallsBack) {
  using C = TypeParam;
  Circuit<C> c;
  ASSERT_TRUE(c.init((1u << 12) - 5, 37).is_ok());
  for (uint64_t nth : {1u, 2u, 5u}) {
    SCOPED_TRACE("table allocation " + std::to_string(nth));
    ASSERT_TRUE(arm_faults("alloc:" + std::to_string(nth) + "@msm precomputed bases").is_ok());
    auto g = make_gpu(c, small_keys());
    disarm_faults();
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    const auto order = groth16::precompute_auto_order();
    EXPECT_EQ(g->tables(), std::vector<MsmSection>(order.begin(), order.begin() + (nth - 1))) << g->key().notes();
    EXPECT_NE(g->key().notes().find("injected alloc fault"), std::string::npos) << g->key().notes();
    EXPECT_EQ(allocator().stats().allocated_bytes, g->key().resident_bytes());
    expect_same_proofs(c, *g, nth);
  }
}

// A copy or launch fault while a table is built fails the preparation with that fault;
// nothing stays allocated, and the next preparation builds every table.
TYPED_TEST(CudaPrecompute, FaultWhileBuildingFailsThePreparationCleanly) {
  using C = TypeParam;
  Circuit<C> c;
  ASSERT_TRUE(c.init((1u << 12) - 5, 39).is_ok());
  for (const char* rule : {"copy:1@msm.precomputed_copy0", "copy:3@msm.precomputed_copy0",
                           "kernel:1@msm.shift_bases_kernel", "kernel:20@msm.shift_bases_kernel"}) {
    SCOPED_TRACE(rule);
    ASSERT_TRUE(arm_faults(rule).is_ok());
    auto g = make_gpu(c, small_keys());
    disarm_faults();
    ASSERT_FALSE(g.is_ok());
    EXPECT_NE(g.status().message().find("injected"), std::string::npos) << g.status().message();
    EXPECT_NE(g.status().message().find("precomputed bases of section"), std::string::npos) << g.status().message();
    Status base = allocator().check_baseline(0);
    ASSERT_TRUE(base.is_ok()) << base.to_string();
    EXPECT_EQ(allocator().stats().reserved_bytes, 0u);
  }
  auto g = make_gpu(c, small_keys());
  ASSERT_TRUE(g.is_ok()) << g.status().to_string();
  EXPECT_EQ(g->tables().size(), 5u);
  expect_same_proofs(c, *g, 40);
}

}  // namespace
}  // namespace cuzk::cuda
