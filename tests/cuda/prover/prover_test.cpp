// Whole Groth16 proofs on the device against the CPU backend: with the same r and s the
// proofs are identical, resident and streamed, with any number of MSM lanes and with
// proofs running at once; every injected allocation, copy and launch fault (the witness
// staging's included) fails that proof only, leaves the device at its baseline, and the
// next proof succeeds; a paced proof (one that may give way to a CRITICAL one) is the same.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda/allocator.hpp"
#include "cuda/cuda_test_util.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "cuda/prover/host_staging.hpp"
#include "cuda/prover/same_proofs.hpp"  // tests/cuda
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/prover.hpp"
#include "groth16/scratch_dir.hpp"  // tests/groth16
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::cuda {
namespace {

using groth16::testing::ScratchDir;

// A dev-setup key of the demo circuit, with CPU and CUDA provers over it.
template <class C>
struct Keyed {
  using Fr = typename C::Fr;
  ScratchDir dir;
  ThreadPool pool{std::max<size_t>(2, ThreadPool::default_threads())};
  groth16::CpuBackend<C> cpu{pool};
  std::unique_ptr<CudaBackend<C>> gpu;
  groth16::DemoCircuit<Fr> circuit;
  groth16::VerifyingKey<C> vk;
  std::optional<formats::Zkey<C>> zkey;
  std::optional<groth16::Prover<C>> cpu_prover, gpu_prover;

  Status init(uint32_t constraints, const CudaBackendOptions& options, uint64_t seed) {
    CUZK_ASSIGN_OR_RETURN(circuit, groth16::make_demo_circuit<Fr>(constraints, seed));
    CUZK_ASSIGN_OR_RETURN(vk, groth16::dev_setup<C>(circuit.r1cs, dir.file("k.zkey"), pool));
    CUZK_ASSIGN_OR_RETURN(auto z, formats::Zkey<C>::open(dir.file("k.zkey")));
    zkey.emplace(std::move(z));
    CUZK_ASSIGN_OR_RETURN(auto cp, groth16::Prover<C>::create(*zkey, cpu, pool));
    cpu_prover.emplace(std::move(cp));
    CUZK_ASSIGN_OR_RETURN(gpu, CudaBackend<C>::create(options, pool));
    CUZK_ASSIGN_OR_RETURN(auto gp, groth16::Prover<C>::create(*zkey, *gpu, pool));
    gpu_prover.emplace(std::move(gp));
    return Status::ok();
  }
};

using testing_prover::proof_bytes;

template <class C>
class CudaProver : public ::testing::Test {
 protected:
  void SetUp() override { CUZK_SKIP_WITHOUT_DEVICE(); }
  void TearDown() override { disarm_faults(); }
};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(CudaProver, Curves);

template <class C>
void expect_same_proofs(Keyed<C>& k, uint64_t salt) {
  testing_prover::expect_same_proofs<C>(*k.cpu_prover, *k.gpu_prover, k.circuit.witness, k.vk,
                                        std::string("prover-") + C::NAME + std::to_string(salt));
}

TYPED_TEST(CudaProver, ResidentKeyProofEqualsCpuProof) {
  using C = TypeParam;
  for (uint32_t n : {100u, (1u << 12) - 5, (1u << 16) - 5}) {
    Keyed<C> k;
    ASSERT_TRUE(k.init(n, CudaBackendOptions{}, n).is_ok());
    EXPECT_EQ(k.gpu_prover->prepared().placement(), "device");
    expect_same_proofs(k, n);
    // And with fresh blinding it verifies.
    auto fresh = k.gpu_prover->prove(k.circuit.witness);
    ASSERT_TRUE(fresh.is_ok()) << fresh.status().to_string();
    EXPECT_TRUE(groth16::verify<C>(k.vk, fresh->proof, fresh->public_signals).is_ok());
  }
}

TYPED_TEST(CudaProver, StreamedKeyProofEqualsCpuProof) {
  using C = TypeParam;
  CudaBackendOptions o;
  o.force_streamed = true;
  o.stream_chunk_points = 1000;  // many chunks, a short last one
  Keyed<C> k;
  ASSERT_TRUE(k.init((1u << 13) - 5, o, 7).is_ok());
  EXPECT_EQ(k.gpu_prover->prepared().placement(), "streamed");
  expect_same_proofs(k, 7);
}

// A cap just below what the resident key and one proof take: the fewest bytes of sections
// stay in the key's host mapping and are streamed in every proof ("mixed"), the rest stay
// resident; the proofs are the same and the peak stays within the cap.
TYPED_TEST(CudaProver, KeyLargerThanTheCapStreamsSomeSections) {
  using C = TypeParam;
  auto alloc = DeviceAllocator::for_device(0);
  ASSERT_TRUE(alloc.is_ok());
  CudaBackendOptions o;
  o.stream_chunk_points = 1 << 13;
  o.precompute.clear();  // the plain key's bytes (tables: precompute_test.cpp)
  // What the key and one proof take when resident; a cap just below it forces streaming.
  size_t resident_need = 0;
  {
    Keyed<C> k;
    ASSERT_TRUE(k.init((1u << 15) - 5, o, 9).is_ok());
    const auto& key = k.gpu_prover->prepared();
    ASSERT_EQ(key.placement(), "device");
    k.gpu->set_msm_lanes(1);  // the least a resident key needs
    resident_need = key.resident_bytes() + k.gpu->upload_bytes(key) + k.gpu->compute_bytes(key);
  }
  BudgetOptions capped;
  capped.cap_bytes = resident_need - (size_t(1) << 20);
  ASSERT_TRUE((*alloc)->configure(capped).is_ok());
  {
    Keyed<C> k;
    Status st = k.init((1u << 15) - 5, o, 9);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    const std::string placement = k.gpu_prover->prepared().placement();
    EXPECT_EQ(placement.rfind("mixed (streamed: ", 0), 0u) << placement;
    EXPECT_NE(k.gpu_prover->prepared().notes().find("streamed from host memory in every proof"), std::string::npos)
        << k.gpu_prover->prepared().notes();
    expect_same_proofs(k, 9);
    EXPECT_LE((*alloc)->stats().peak_bytes, capped.cap_bytes);
  }
  EXPECT_TRUE((*alloc)->configure(BudgetOptions{}).is_ok());
}

// A budget that holds the key and one lane's working set, but not three lanes': the key
// stays resident and its proofs run in fewer lanes, within the budget.
TYPED_TEST(CudaProver, KeyThatFitsOneLaneRunsInFewerLanes) {
  using C = TypeParam;
  auto alloc = DeviceAllocator::for_device(0);
  ASSERT_TRUE(alloc.is_ok());
  CudaBackendOptions plain;
  plain.precompute.clear();  // the plain key's bytes (tables: precompute_test.cpp)
  size_t need[2] = {0, 0};   // one lane, three lanes
  {
    Keyed<C> k;
    ASSERT_TRUE(k.init((1u << 15) - 5, plain, 27).is_ok());
    const auto& key = k.gpu_prover->prepared();
    ASSERT_EQ(k.gpu->msm_lanes(key), 3u);
    for (unsigned i = 0; i < 2; ++i) {
      k.gpu->set_msm_lanes(i == 0 ? 1 : 3);
      need[i] = key.resident_bytes() + k.gpu->upload_bytes(key) + k.gpu->compute_bytes(key);
    }
  }
  ASSERT_GT(need[1], need[0] + (size_t(2) << 20));
  BudgetOptions capped;
  capped.cap_bytes = need[0] + (need[1] - need[0]) / 2;
  ASSERT_TRUE((*alloc)->configure(capped).is_ok());
  {
    Keyed<C> k;
    Status st = k.init((1u << 15) - 5, plain, 27);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    const auto& key = k.gpu_prover->prepared();
    EXPECT_EQ(key.placement(), "device");
    EXPECT_GE(k.gpu->msm_lanes(key), 1u);
    EXPECT_LT(k.gpu->msm_lanes(key), 3u);
    expect_same_proofs(k, 27);
    EXPECT_LE((*alloc)->stats().peak_bytes, capped.cap_bytes);
  }
  EXPECT_TRUE((*alloc)->configure(BudgetOptions{}).is_ok());
}

// Every allocation, copy and launch of one proof, failed in turn: the proof fails with a
// Status naming the injected fault, the device returns to what the prepared key holds,
// and the next proof is right.
TYPED_TEST(CudaProver, EveryInjectedFaultFailsOnlyThatProof) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  Keyed<C> k;
  ASSERT_TRUE(k.init((1u << 10) - 5, CudaBackendOptions{}, 11).is_ok());
  auto alloc = DeviceAllocator::for_device(0);
  ASSERT_TRUE(alloc.is_ok());
  const size_t resident = (*alloc)->stats().allocated_bytes;
  EXPECT_EQ(resident, k.gpu_prover->prepared().resident_bytes());
  const Fr r = Fr::from_u64(5), s = Fr::from_u64(6);
  auto want = k.cpu_prover->prove_with_blinding(k.circuit.witness, r, s);
  ASSERT_TRUE(want.is_ok());
  // A first proof pins the witness staging, which later proofs reuse (its faults: below).
  ASSERT_TRUE(k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s).is_ok());

  ASSERT_TRUE(arm_faults("").is_ok());  // counts from zero
  ASSERT_TRUE(k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s).is_ok());
  const uint64_t counts[3] = {fault_count(FaultKind::kAlloc), fault_count(FaultKind::kCopy),
                              fault_count(FaultKind::kKernel)};
  EXPECT_GT(counts[0], 3u);
  EXPECT_GT(counts[1], 0u);
  EXPECT_GT(counts[2], 5u);
  for (FaultKind kind : {FaultKind::kAlloc, FaultKind::kCopy, FaultKind::kKernel}) {
    for (uint64_t i = 1; i <= counts[size_t(kind)]; ++i) {
      const std::string rule = std::string(fault_kind_name(kind)) + ":" + std::to_string(i);
      ASSERT_TRUE(arm_faults(rule).is_ok());
      auto failed = k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s);
      ASSERT_FALSE(failed.is_ok()) << rule;
      EXPECT_NE(failed.status().message().find("injected " + std::string(fault_kind_name(kind)) + " fault"),
                std::string::npos)
          << rule << ": " << failed.status().message();
      disarm_faults();
      Status base = (*alloc)->check_baseline(resident);
      ASSERT_TRUE(base.is_ok()) << rule << ": " << base.to_string();
      EXPECT_EQ((*alloc)->stats().reserved_bytes, 0u) << rule;
    }
  }
  auto next = k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s);
  ASSERT_TRUE(next.is_ok()) << next.status().to_string();
  EXPECT_EQ(proof_bytes<C>(next->proof), proof_bytes<C>(want->proof));
}

// The stages say what they need, and a proof stays within it.
TYPED_TEST(CudaProver, StagesStayWithinTheirStatedBytes) {
  using C = TypeParam;
  Keyed<C> k;
  ASSERT_TRUE(k.init((1u << 14) - 5, CudaBackendOptions{}, 13).is_ok());
  auto alloc = DeviceAllocator::for_device(0);
  ASSERT_TRUE(alloc.is_ok());
  const auto& key = k.gpu_prover->prepared();
  const size_t up = k.gpu->upload_bytes(key), work = k.gpu->compute_bytes(key);
  EXPECT_EQ(up, k.zkey->header().n_vars * sizeof(typename C::Fr::Int));
  EXPECT_GT(work, 3 * size_t(k.zkey->header().domain_size) * sizeof(typename C::Fr));
  (*alloc)->reset_peak();
  auto out = k.gpu_prover->prove(k.circuit.witness);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_LE((*alloc)->stats().peak_bytes, key.resident_bytes() + up + work);
}

TYPED_TEST(CudaProver, ProofsAreTheSameWithEveryLaneCount) {
  using C = TypeParam;
  Keyed<C> k;
  const uint32_t n = (1u << 12) - 5;
  ASSERT_TRUE(k.init(n, CudaBackendOptions{}, 21).is_ok());
  for (unsigned lanes = 1; lanes <= 5; ++lanes) {
    SCOPED_TRACE("lanes " + std::to_string(lanes));
    k.gpu->set_msm_lanes(lanes);
    expect_same_proofs(k, 21 + lanes);
  }
}

// A proof that may give way to a CRITICAL one (the daemon's case) runs paced: through the
// staged calls with pauses that pause at two of its boundaries, the proof is the CPU's, byte
// for byte; it was asked at every boundary: after the synthesis, between the H pipeline's
// six transforms, before each of the five MSMs (whose slices msm_test covers).
TYPED_TEST(CudaProver, PacedProofEqualsCpuProof) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  class TwoPauses final : public PhasePauses {
   public:
    bool wanted() const override {
      const int k = ++asked;
      return k == 3 || k == 8;
    }
    void pause() override { ++paused; }
    mutable std::atomic<int> asked{0};
    std::atomic<int> paused{0};
  };
  Keyed<C> k;
  ASSERT_TRUE(k.init((1u << 14) - 5, CudaBackendOptions{}, 27).is_ok());
  const Fr r = Fr::from_u64(5), s = Fr::from_u64(6);
  auto want = k.cpu_prover->prove_with_blinding(k.circuit.witness, r, s);
  ASSERT_TRUE(want.is_ok()) << want.status().to_string();
  const auto& w = k.circuit.witness;
  groth16::ProveTimings t;
  auto job = k.gpu_prover->upload(w, t);
  ASSERT_TRUE(job.is_ok()) << job.status().to_string();
  TwoPauses pauses;
  (*job)->pauses = &pauses;
  Status st = k.gpu_prover->compute(**job, t);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  (*job)->pauses = nullptr;
  auto sums = k.gpu_prover->read_back(**job, t);
  ASSERT_TRUE(sums.is_ok()) << sums.status().to_string();
  const auto got = k.gpu_prover->finalize(*sums, w, r, s);
  EXPECT_EQ(proof_bytes<C>(got.proof), proof_bytes<C>(want->proof));
  EXPECT_GE(pauses.asked.load(), 1 + 5 + 5);
  EXPECT_EQ(pauses.paused.load(), 2);
}

// Two proofs at once on one backend (the daemon uploads one while another computes): each
// takes its own staging set and lanes, and both are right.
TYPED_TEST(CudaProver, ProofsAtOnceEqualTheCpuProof) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  Keyed<C> k;
  ASSERT_TRUE(k.init((1u << 13) - 5, CudaBackendOptions{}, 23).is_ok());
  const Fr r = Fr::from_u64(77), s = Fr::from_u64(88);
  auto want = k.cpu_prover->prove_with_blinding(k.circuit.witness, r, s);
  ASSERT_TRUE(want.is_ok());
  std::vector<std::string> got(4);
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] {
      auto out = k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s);
      if (out.is_ok()) {
        got[i] = proof_bytes<C>(out->proof);
      } else {
        errors[i] = out.status().to_string();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(errors[i], "");
    EXPECT_EQ(got[i], proof_bytes<C>(want->proof)) << i;
  }
  // At most one staging set (two chunks) per proof that was in flight.
  EXPECT_LE(k.gpu->pinned_bytes(), got.size() * 2 * CudaBackendOptions{}.staging_chunk_bytes);
  EXPECT_GT(k.gpu->pinned_bytes(), 0u);
}

// The witness goes up in many chunks: a fault in any chunk's copy, or in pinning the
// staging, fails that proof only; the next one is right.
TYPED_TEST(CudaProver, StagingFaultsFailOnlyThatProof) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  CudaBackendOptions o;
  o.staging_chunk_bytes = size_t(1) << 16;  // the smallest chunk: a 2^13 witness takes 4+
  Keyed<C> k;
  ASSERT_TRUE(k.init((1u << 13) - 5, o, 25).is_ok());
  auto alloc = DeviceAllocator::for_device(0);
  ASSERT_TRUE(alloc.is_ok());
  const size_t resident = k.gpu_prover->prepared().resident_bytes();
  const Fr r = Fr::from_u64(3), s = Fr::from_u64(4);
  auto want = k.cpu_prover->prove_with_blinding(k.circuit.witness, r, s);
  ASSERT_TRUE(want.is_ok());
  const size_t chunks =
      (k.circuit.witness.size() * sizeof(typename Fr::Int) + o.staging_chunk_bytes - 1) / o.staging_chunk_bytes;
  ASSERT_GE(chunks, 4u);

  // The first upload pins the staging: a failure there fails the proof and pins nothing.
  for (const char* rule : {"alloc:1@prover.staging.pinned", "alloc:2@prover.staging.pinned"}) {
    ASSERT_TRUE(arm_faults(rule).is_ok());
    auto failed = k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s);
    ASSERT_FALSE(failed.is_ok()) << rule;
    EXPECT_NE(failed.status().message().find("injected alloc fault"), std::string::npos) << failed.status().message();
    disarm_faults();
    EXPECT_EQ(k.gpu->pinned_bytes(), 0u) << rule;
    Status base = (*alloc)->check_baseline(resident);
    ASSERT_TRUE(base.is_ok()) << rule << ": " << base.to_string();
  }
  for (size_t i = 1; i <= chunks; ++i) {
    const std::string rule = "copy:" + std::to_string(i) + "@prover.upload.witness_chunk";
    ASSERT_TRUE(arm_faults(rule).is_ok());
    auto failed = k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s);
    ASSERT_FALSE(failed.is_ok()) << rule;
    EXPECT_NE(failed.status().message().find("injected copy fault"), std::string::npos) << failed.status().message();
    disarm_faults();
    Status base = (*alloc)->check_baseline(resident);
    ASSERT_TRUE(base.is_ok()) << rule << ": " << base.to_string();
    EXPECT_EQ((*alloc)->stats().reserved_bytes, 0u) << rule;
  }
  // One more chunk than there are: no fault, a right proof, and the staging was reused.
  ASSERT_TRUE(arm_faults("copy:" + std::to_string(chunks + 1) + "@prover.upload.witness_chunk").is_ok());
  auto next = k.gpu_prover->prove_with_blinding(k.circuit.witness, r, s);
  ASSERT_TRUE(next.is_ok()) << next.status().to_string();
  EXPECT_EQ(proof_bytes<C>(next->proof), proof_bytes<C>(want->proof));
  EXPECT_EQ(k.gpu->pinned_bytes(), 2 * o.staging_chunk_bytes);
}

// The staging copies any length right: empty, shorter than a chunk, chunk boundaries, many chunks.
TEST(HostStaging, CopiesEveryLengthExactly) {
  CUZK_SKIP_WITHOUT_DEVICE();
  ThreadPool pool(4);
  const size_t chunk = size_t(1) << 16;
  HostStaging staging(chunk, pool);
  auto s = Stream::create();
  ASSERT_TRUE(s.is_ok());
  auto rng = testing::seeded_rng("host-staging");
  for (size_t len :
       {size_t(0), size_t(1), size_t(7), chunk - 1, chunk, chunk + 1, 2 * chunk, 5 * chunk + 13, size_t(3) << 20}) {
    SCOPED_TRACE("bytes " + std::to_string(len));
    std::vector<uint8_t> src(len), back(len);
    for (auto& b : src) b = uint8_t(rng());
    auto dev = DeviceBuffer<uint8_t>::allocate(len + 1, "test.staging");
    ASSERT_TRUE(dev.is_ok());
    ASSERT_TRUE(dev->fill_bytes(0xA5, *s).is_ok());
    ASSERT_TRUE(staging.copy_to_device(dev->data(), src.data(), len, *s, "test.staging").is_ok());
    std::vector<uint8_t> all(len + 1);
    ASSERT_TRUE(dev->download(std::span<uint8_t>(all), *s).is_ok());
    ASSERT_TRUE(s->synchronize().is_ok());
    EXPECT_TRUE(std::equal(src.begin(), src.end(), all.begin()));
    EXPECT_EQ(all[len], 0xA5);  // nothing written past the end
  }
  EXPECT_EQ(staging.pinned_bytes(), 2 * chunk);
}

// snarkjs/circom keys given by the device check (CUZK_GPU_TEST_ZKEYS="a.zkey:a.wtns,..."):
// the GPU proof equals the CPU proof.
TYPED_TEST(CudaProver, GivenZkeysProveTheSameOnBothBackends) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  const char* env = std::getenv("CUZK_GPU_TEST_ZKEYS");
  if (env == nullptr || *env == '\0') GTEST_SKIP() << "CUZK_GPU_TEST_ZKEYS not set";
  std::stringstream list(env);
  std::string item;
  int proved = 0;
  ThreadPool pool{std::max<size_t>(2, ThreadPool::default_threads())};
  while (std::getline(list, item, ',')) {
    const size_t colon = item.find(':');
    ASSERT_NE(colon, std::string::npos) << item;
    const std::string zk = item.substr(0, colon), wt = item.substr(colon + 1);
    auto id = formats::detect_curve(zk);
    ASSERT_TRUE(id.is_ok()) << id.status().to_string();
    if (formats::snarkjs_curve_name(*id) != std::string(C::SNARKJS_NAME)) continue;
    auto z = formats::Zkey<C>::open(zk);
    ASSERT_TRUE(z.is_ok()) << z.status().to_string();
    auto w = formats::read_wtns<Fr>(wt);
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    groth16::CpuBackend<C> cpu(pool);
    auto gpu = CudaBackend<C>::create(CudaBackendOptions{}, pool);
    ASSERT_TRUE(gpu.is_ok()) << gpu.status().to_string();
    auto cp = groth16::Prover<C>::create(*z, cpu, pool);
    auto gp = groth16::Prover<C>::create(*z, **gpu, pool);
    ASSERT_TRUE(cp.is_ok() && gp.is_ok());
    const Fr r = Fr::from_u64(12345), s = Fr::from_u64(67890);
    auto want = cp->prove_with_blinding(w->values, r, s);
    auto got = gp->prove_with_blinding(w->values, r, s);
    ASSERT_TRUE(want.is_ok() && got.is_ok()) << zk;
    EXPECT_EQ(proof_bytes<C>(got->proof), proof_bytes<C>(want->proof)) << zk;
    EXPECT_TRUE(groth16::verify<C>(cp->verifying_key(), got->proof, got->public_signals).is_ok()) << zk;
    ++proved;
  }
  std::cout << "[ zkeys    ] " << proved << " " << C::NAME << " key(s) proved on both backends\n";
}

}  // namespace
}  // namespace cuzk::cuda
