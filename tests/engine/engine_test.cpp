// The engine end to end in one process, on the CPU device: every proof verifies, priorities
// overtake at every stage, cancellation frees memory, bad inputs fail before any work, and
// the reference daemon's pre-staging failure replayed on a tight budget succeeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "engine/cpu_device.hpp"
#include "engine/demo_keys.hpp"
#include "engine/engine.hpp"
#include "engine/engine_fixture.hpp"
#include "engine/kernel_lock.hpp"
#include "engine/key_cache.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/zkey.hpp"
#include "groth16/backend.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using testing::DemoKey;

// The CPU backend, failing the n-th call of one device stage the way a GPU fails a copy,
// a launch or a read-back: what the engine must contain.
// kCorruptSums: the read-back succeeds but pi_a's sum is off by the generator, so the
// proof is well formed and wrong (what only the self-verification catches).
enum class FaultSite { kUpload, kCompute, kReadBack, kCorruptSums };

template <class C>
class FaultInjectingBackend final : public groth16::Backend<C> {
 public:
  using typename groth16::Backend<C>::Scalar;
  using typename groth16::Backend<C>::Fr;
  using typename groth16::Backend<C>::G1;
  using typename groth16::Backend<C>::G2;
  FaultInjectingBackend(ThreadPool& pool, FaultSite site, int fail_call)
      : inner_(pool), site_(site), fail_call_(fail_call) {}

  const char* name() const override { return "cpu with injected faults"; }
  Result<std::unique_ptr<groth16::PreparedKey<C>>> prepare(const groth16::KeyView<C>& key) override {
    return inner_.prepare(key);
  }
  size_t upload_bytes(const groth16::PreparedKey<C>& k) const override { return inner_.upload_bytes(k); }
  size_t compute_bytes(const groth16::PreparedKey<C>& k) const override { return inner_.compute_bytes(k); }
  Result<std::unique_ptr<groth16::ProofJob<C>>> upload(const groth16::PreparedKey<C>& k, std::span<const Scalar> w,
                                                       groth16::ProveTimings& t) override {
    if (hit(FaultSite::kUpload)) return internal_error("injected copy failure");
    return inner_.upload(k, w, t);
  }
  Status compute(const groth16::PreparedKey<C>& k, groth16::ProofJob<C>& job, groth16::ProveTimings& t) override {
    if (hit(FaultSite::kCompute)) return internal_error("injected launch failure");
    return inner_.compute(k, job, t);
  }
  Result<groth16::MsmSums<C>> read_back(groth16::ProofJob<C>& job, groth16::ProveTimings& t) override {
    if (hit(FaultSite::kReadBack)) return internal_error("injected read-back failure");
    if (hit(FaultSite::kCorruptSums)) {
      auto sums = inner_.read_back(job, t);
      if (sums.is_ok()) sums->a += ec::Jacobian<typename C::G1>::generator();
      return sums;
    }
    return inner_.read_back(job, t);
  }
  Result<ec::Jacobian<typename C::G1>> msm_g1(std::span<const G1> b, std::span<const Scalar> s) override {
    return inner_.msm_g1(b, s);
  }
  Result<ec::Jacobian<typename C::G2>> msm_g2(std::span<const G2> b, std::span<const Scalar> s) override {
    return inner_.msm_g2(b, s);
  }
  Status h_poly(const poly::EvaluationDomain<Fr>& d, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                std::span<Scalar> p) override {
    return inner_.h_poly(d, a, b, c, p);
  }

 private:
  bool hit(FaultSite s) { return s == site_ && ++calls_ == fail_call_; }
  groth16::CpuBackend<C> inner_;
  FaultSite site_;
  int fail_call_;
  std::atomic<int> calls_{0};
};

// Its byte model is the CPU device's, or with `cuda_bytes` the CUDA device's shape of it:
// the fallback path needs all of the pre-staged path's bytes (so a proof pre-staging passed
// over is staged late by its worker).
class FaultInjectingDevice final : public Device {
 public:
  FaultInjectingDevice(uint64_t bytes, FaultSite site, int fail_call, bool cuda_bytes = false)
      : Device(0, "fault:0", std::make_unique<MemoryBudget>("fault:0", bytes)),
        pool_(2),
        bn254_(pool_, site, fail_call),
        bls12_381_(pool_, site, fail_call),
        model_(0, 1, 1),
        cuda_bytes_(cuda_bytes) {}

  std::string name() const override { return "CPU device with injected faults"; }
  std::string backend_name() const override { return bn254_.name(); }
  uint64_t measured_in_use() const override { return memory().in_use(); }
  DeviceStageBytes stage_bytes(const KeyShape& key, uint64_t up, uint64_t compute) const override {
    DeviceStageBytes b = model_.stage_bytes(key, up, compute);
    if (cuda_bytes_) b.fallback_kernel = b.upload + b.kernel;
    return b;
  }
  groth16::Backend<bn254::Curve>& bn254_backend() override { return bn254_; }
  groth16::Backend<bls12_381::Curve>& bls12_381_backend() override { return bls12_381_; }
  ThreadPool& host_pool() override { return pool_; }
  Status health() override { return Status::ok(); }  // its faults are never sticky
  Status reset() override { return Status::ok(); }

 private:
  ThreadPool pool_;
  FaultInjectingBackend<bn254::Curve> bn254_;
  FaultInjectingBackend<bls12_381::Curve> bls12_381_;
  CpuDevice model_;  // for its byte model only
  bool cuda_bytes_;
};

class EngineTest : public testing::EngineFixture {
 protected:
  static void SetUpTestSuite() {
    EngineFixture::SetUpTestSuite();
    bls_ = new DemoKey(testing::make_demo_key<bls12_381::Curve>(*dir_, "bls", (1 << 8) - 5));
  }
  static void TearDownTestSuite() {
    delete bls_;
    EngineFixture::TearDownTestSuite();
  }

  // An engine on one CPU device of `device_bytes`, `workers` workers.
  std::unique_ptr<Engine> make_engine(uint64_t device_bytes = uint64_t(1) << 32, unsigned workers = 2,
                                      EngineConfig cfg = {}) {
    cfg.gpu_workers_per_device = workers;
    if (cfg.host_memory_bytes == 0) cfg.host_memory_bytes = uint64_t(1) << 32;
    if (cfg.key_cache_bytes == 0) cfg.key_cache_bytes = uint64_t(1) << 32;
    std::vector<std::unique_ptr<Device>> devices;
    devices.push_back(std::make_unique<CpuDevice>(0, device_bytes, 2));
    auto e = std::make_unique<Engine>(cfg, std::move(devices), log_sink());
    auto reg = e->register_circuit("small", small_->zkey, true);
    EXPECT_TRUE(reg.is_ok()) << reg.status().to_string();
    return e;
  }

  static SubmitRequest request(const std::string& circuit, const std::vector<uint8_t>& wtns,
                               Priority p = Priority::kNormal, std::string request_id = {}) {
    SubmitRequest r;
    r.circuit_id = circuit;
    r.wtns = wtns;
    r.priority = p;
    r.request_id = std::move(request_id);
    return r;
  }

  static void wait_for_zero(const MemoryBudget& b) {
    for (int i = 0; i < 500 && b.in_use() != 0; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(b.in_use(), 0u) << b.name();
  }

  static DemoKey* bls_;
};

DemoKey* EngineTest::bls_ = nullptr;

TEST_F(EngineTest, ReturnedProofVerifiesAndCarriesStageTimings) {
  auto e = make_engine();
  auto s = e->submit(request("small", small_->wtns));
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  JobRecord rec = finished(*e, s->job_id);
  expect_verifies(rec);
  EXPECT_GT(rec.timings.gpu_compute_ms, 0);
  EXPECT_GT(rec.timings.verify_ms, 0);
  EXPECT_GE(rec.timings.total_ms, rec.timings.gpu_compute_ms);
  EXPECT_EQ(rec.timings.device, "cpu:0");
  EXPECT_EQ(rec.result.proof_bytes.size(), 64u + 128u + 64u);
  EXPECT_EQ(rec.result.curve, "bn128");
  wait_for_zero(e->host_memory());
  std::lock_guard lock(log_mu_);
  ASSERT_FALSE(log_.empty());
  EXPECT_NE(log_.back().find("outcome=completed"), std::string::npos);
}

TEST_F(EngineTest, ManyConcurrentSubmittersAllGetVerifiedProofs) {
  auto e = make_engine();
  std::vector<std::thread> clients;
  std::vector<JobRecord> results(8);
  for (int i = 0; i < 8; ++i) {
    clients.emplace_back([&, i] {
      auto s = e->submit(request("small", small_->wtns));
      ASSERT_TRUE(s.is_ok());
      results[i] = finished(*e, s->job_id);
    });
  }
  for (auto& t : clients) t.join();
  for (const auto& r : results) expect_verifies(r);
  wait_for_zero(e->host_memory());
  wait_for_zero(e->devices()[0]->memory());
}

TEST_F(EngineTest, CriticalSubmittedBehindTwentyNormalFinishesBeforeTheQueuedOnes) {
  auto e = make_engine(uint64_t(1) << 32, 1);
  std::vector<std::string> normal;
  for (int i = 0; i < 20; ++i) normal.push_back(e->submit(request("small", small_->wtns))->job_id);
  std::string critical = e->submit(request("small", small_->wtns, Priority::kCritical))->job_id;
  JobRecord c = finished(*e, critical);
  expect_verifies(c);
  int after = 0;
  for (const auto& id : normal) {
    JobRecord n = finished(*e, id);
    EXPECT_EQ(n.state, JobState::kCompleted);
    if (n.finished > c.finished) ++after;
  }
  // At most the proofs already past the queues when it arrived finish before it.
  EXPECT_GE(after, 15);
}

TEST_F(EngineTest, CancellingQueuedAndRunningJobsFreesTheirMemory) {
  auto e = make_engine(uint64_t(1) << 32, 1);
  // The first job proves a circuit 32 times the size of the others, so that it is still
  // running when its cancel comes (with the small circuit it could finish first).
  auto slow = testing::make_demo_key<bn254::Curve>(*dir_, "slow", (1 << 15) - 5);
  ASSERT_TRUE(e->register_circuit("slow", slow.zkey, true).is_ok());
  std::vector<std::string> ids;
  ids.push_back(e->submit(request("slow", slow.wtns))->job_id);
  for (int i = 1; i < 6; ++i) ids.push_back(e->submit(request("small", small_->wtns))->job_id);
  // The first is in the kernel region or about to be; the last is certainly queued.
  auto last = e->cancel(ids.back());
  ASSERT_TRUE(last.is_ok());
  EXPECT_EQ(*last, JobState::kCancelled);
  auto first = e->cancel(ids.front());
  ASSERT_TRUE(first.is_ok());
  for (const auto& id : ids) finished(*e, id);
  EXPECT_EQ(finished(*e, ids.back()).state, JobState::kCancelled);
  EXPECT_EQ(finished(*e, ids.front()).state, JobState::kCancelled);
  EXPECT_EQ(finished(*e, ids[2]).state, JobState::kCompleted);
  wait_for_zero(e->host_memory());
  wait_for_zero(e->devices()[0]->memory());
  auto again = e->cancel(ids[2]);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(*again, JobState::kCompleted);
  EXPECT_EQ(e->cancel("job-unknown").status().code(), StatusCode::kNotFound);
}

TEST_F(EngineTest, ResubmissionUnderTheSameRequestIdReturnsTheSameJob) {
  auto e = make_engine();
  auto a = e->submit(request("small", small_->wtns, Priority::kNormal, "req-1"));
  auto b = e->submit(request("small", small_->wtns, Priority::kNormal, "req-1"));
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(a->job_id, b->job_id);
  EXPECT_TRUE(b->deduplicated);
  std::vector<uint8_t> other = small_->wtns;
  other.back() ^= 1;
  auto c = e->submit(request("small", other, Priority::kNormal, "req-1"));
  ASSERT_FALSE(c.is_ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  expect_verifies(finished(*e, a->job_id));
}

TEST_F(EngineTest, BadWitnessesAreRejectedBeforeAnyWork) {
  auto e = make_engine();
  auto code = [&](const std::string& circuit, const std::vector<uint8_t>& w) {
    return e->submit(request(circuit, w)).status().code();
  };
  EXPECT_EQ(code("nope", small_->wtns), StatusCode::kNotFound);
  EXPECT_EQ(code("../etc", small_->wtns), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("small", bls_->wtns), StatusCode::kInvalidArgument);  // wrong curve
  std::vector<uint8_t> garbage(1000, 0x5a);
  EXPECT_EQ(code("small", garbage), StatusCode::kInvalidArgument);
  std::vector<uint8_t> truncated(small_->wtns.begin(), small_->wtns.end() - 40);
  EXPECT_EQ(code("small", truncated), StatusCode::kInvalidArgument);
  auto other = testing::make_demo_key<bn254::Curve>(*dir_, "other", (1 << 9) - 5);
  EXPECT_EQ(code("small", other.wtns), StatusCode::kInvalidArgument);  // wrong length
  EXPECT_TRUE(e->jobs(std::nullopt, 0).empty());
  // And it keeps serving.
  expect_verifies(finished(*e, e->submit(request("small", small_->wtns))->job_id));
}

TEST_F(EngineTest, TruncatedOrForeignKeyFilesAreRefusedAtRegistration) {
  auto e = make_engine();
  auto bytes = testing::read_bytes(small_->zkey);
  std::string truncated = dir_->file("truncated.zkey");
  testing::write_bytes(truncated, std::vector<uint8_t>(bytes.begin(), bytes.begin() + bytes.size() / 2));
  auto t = e->register_circuit("truncated", truncated, false);
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  auto w = e->register_circuit("wtns-not-zkey", small_->wtns_path, false);
  ASSERT_FALSE(w.is_ok());
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(e->register_circuit("missing", dir_->file("missing.zkey"), false).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(e->circuits().size(), 1u);
}

TEST_F(EngineTest, KeyCacheEvictsTheLeastRecentlyUsedIdleKeyOnly) {
  auto a = testing::make_demo_key<bn254::Curve>(*dir_, "lru-a", (1 << 9) - 5);
  auto b = testing::make_demo_key<bn254::Curve>(*dir_, "lru-b", (1 << 9) - 5);
  auto c = testing::make_demo_key<bn254::Curve>(*dir_, "lru-c", (1 << 9) - 5);
  CpuDevice dev(0, 1 << 30, 1);
  std::vector<Device*> devices = {&dev};
  KeyCache probe(uint64_t(1) << 40, devices);
  auto info = probe.register_circuit("a", a.zkey, false);
  ASSERT_TRUE(info.is_ok());
  KeyCache cache(2 * info->shape.key_bytes + 10, devices);
  for (auto [id, path] : {std::pair{"a", a.zkey}, {"b", b.zkey}, {"c", c.zkey}}) {
    ASSERT_TRUE(cache.register_circuit(id, path, false).is_ok());
  }
  auto la = cache.acquire("a", {});
  ASSERT_TRUE(la.is_ok());
  EXPECT_GT(la->load_ms(), 0);
  { ASSERT_TRUE(cache.acquire("b", {}).is_ok()); }
  // a is held and b idle: loading c must evict b, never a.
  auto lc = cache.acquire("c", {});
  ASSERT_TRUE(lc.is_ok());
  EXPECT_EQ(cache.info("a")->tier, KeyTier::kMapped);
  EXPECT_EQ(cache.info("b")->tier, KeyTier::kDisk);
  EXPECT_EQ(cache.evict("a", false).status().code(), StatusCode::kFailedPrecondition);
  la->release();
  EXPECT_TRUE(*cache.evict("a", true));
  EXPECT_EQ(cache.info("a").status().code(), StatusCode::kNotFound);
}

TEST_F(EngineTest, ReferenceFailureReplayedTightBudgetFallsBackAndAllSucceed) {
  // Two workers, three proofs in flight, five proofs: the device budget holds one proof's
  // pre-staged path plus one fallback path, so the second and third cannot pre-stage.
  CpuDevice probe(0, 1, 1);
  KeyShape shape;
  shape.domain_size = 1 << 10;
  DeviceStageBytes need = probe.stage_bytes(shape, 0, 0);
  auto e = make_engine(need.prestaged_path() + need.fallback_path(), 2);
  std::vector<std::string> ids;
  std::vector<std::thread> clients;
  std::mutex mu;
  for (int c = 0; c < 3; ++c) {
    clients.emplace_back([&, c] {
      for (int i = c; i < 5; i += 3) {
        auto s = e->submit(request("small", small_->wtns));
        ASSERT_TRUE(s.is_ok());
        JobRecord r = finished(*e, s->job_id);
        std::lock_guard lock(mu);
        ids.push_back(s->job_id);
      }
    });
  }
  for (auto& t : clients) t.join();
  int fallbacks = 0;
  for (const auto& id : ids) {
    JobRecord r = finished(*e, id);
    expect_verifies(r);
    fallbacks += r.timings.prestage_fallback;
  }
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_GE(fallbacks, 1);
  wait_for_zero(e->devices()[0]->memory());
  wait_for_zero(e->host_memory());
  EXPECT_EQ(e->status().devices[0].baseline_mismatches, 0u);
}

// A wrong proof from the device is caught by the finalize stage's check against the key's
// prepared verifying key and never returned; the other proofs of the batch are.
TEST_F(EngineTest, ProofThatFailsSelfVerificationIsNotReturned) {
  for (const char* circuit : {"small", "bls"}) {
    EngineConfig cfg;
    cfg.gpu_workers_per_device = 1;
    cfg.host_memory_bytes = cfg.key_cache_bytes = uint64_t(1) << 32;
    std::vector<std::unique_ptr<Device>> devices;
    devices.push_back(std::make_unique<FaultInjectingDevice>(uint64_t(1) << 32, FaultSite::kCorruptSums, 2));
    Engine e(cfg, std::move(devices), nullptr);
    const bool bn = std::string(circuit) == "small";
    ASSERT_TRUE(e.register_circuit(circuit, bn ? small_->zkey : bls_->zkey, true).is_ok());
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) ids.push_back(e.submit(request(circuit, bn ? small_->wtns : bls_->wtns))->job_id);
    int failed = 0;
    for (const auto& id : ids) {
      JobRecord r = finished(e, id);
      if (r.state != JobState::kFailed) {
        EXPECT_EQ(r.state, JobState::kCompleted) << r.error.to_string();
        if (bn) expect_verifies(r);
        continue;
      }
      ++failed;
      EXPECT_EQ(r.error.code(), StatusCode::kInternal);
      EXPECT_NE(r.error.message().find("produced a proof that does not verify (not returned): verify: the pairing "
                                       "check failed"),
                std::string::npos)
          << r.error.message();
      EXPECT_TRUE(r.result.proof_json.empty());
    }
    EXPECT_EQ(failed, 1) << circuit;
  }
}

TEST_F(EngineTest, FaultAtEachDeviceStageFailsOnlyThatJobAndMemoryReturnsToBaseline) {
  for (FaultSite site : {FaultSite::kUpload, FaultSite::kCompute, FaultSite::kReadBack}) {
    EngineConfig cfg;
    cfg.gpu_workers_per_device = 2;
    cfg.host_memory_bytes = cfg.key_cache_bytes = uint64_t(1) << 32;
    std::vector<std::unique_ptr<Device>> devices;
    devices.push_back(std::make_unique<FaultInjectingDevice>(uint64_t(1) << 32, site, 2));
    Engine e(cfg, std::move(devices), nullptr);
    ASSERT_TRUE(e.register_circuit("small", small_->zkey, true).is_ok());
    for (int batch = 0; batch < 2; ++batch) {
      std::vector<std::string> ids;
      for (int i = 0; i < 5; ++i) ids.push_back(e.submit(request("small", small_->wtns))->job_id);
      int failed = 0;
      for (const auto& id : ids) {
        JobRecord r = finished(e, id);
        if (r.state == JobState::kFailed) {
          ++failed;
          EXPECT_EQ(r.error.code(), StatusCode::kInternal);
          EXPECT_NE(r.error.message().find("injected"), std::string::npos) << r.error.message();
        } else {
          expect_verifies(r);
        }
      }
      EXPECT_EQ(failed, batch == 0 ? 1 : 0) << "site " << int(site) << " batch " << batch;
      wait_for_zero(e.devices()[0]->memory());
      wait_for_zero(e.host_memory());
    }
    EXPECT_EQ(e.status().devices[0].baseline_mismatches, 0u);
    EXPECT_EQ(e.status().devices[0].failed, 1u);
  }
}

// The budget holds one proof's pre-staged path, not two; the kernel lock held by the test;
// two proofs: one pre-stages, the other is passed over. With batching on (and a batch wait
// long enough for the second to arrive), the passed-over proof does not join the first one's
// batch to upload inside its region: it heads a batch of its own and its worker uploads it
// outside the lock once the first one's memory is back ("late"). With that upload faulted,
// only its job fails. Memory returns to zero either way.
TEST_F(EngineTest, PassedOverProofIsStagedLateByItsWorkerAndNotBatched) {
  KeyShape shape;
  shape.domain_size = 1 << 10;
  const DeviceStageBytes need = FaultInjectingDevice(1, FaultSite::kUpload, 0, true).stage_bytes(shape, 0, 0);
  ASSERT_EQ(need.fallback_path(), need.prestaged_path());
  for (bool fault : {false, true}) {
    EngineConfig cfg;
    cfg.gpu_workers_per_device = 2;
    cfg.batch_wait = 300ms;
    cfg.host_memory_bytes = cfg.key_cache_bytes = uint64_t(1) << 32;
    std::vector<std::unique_ptr<Device>> devices;
    // The second upload is the late one (the first pre-stages).
    devices.push_back(
        std::make_unique<FaultInjectingDevice>(need.prestaged_path() * 3 / 2, FaultSite::kUpload, fault ? 2 : 0, true));
    Engine e(cfg, std::move(devices), nullptr);
    ASSERT_TRUE(e.register_circuit("small", small_->zkey, true).is_ok());
    Device& d = *e.devices()[0];
    std::vector<std::string> ids;
    {
      KernelLock::Guard hold(d.kernel_lock(), Priority::kHigh);
      for (int i = 0; i < 2; ++i) ids.push_back(e.submit(request("small", small_->wtns))->job_id);
      // One proof pre-staged and its worker at the lock, the other passed over and its worker
      // waiting for memory.
      for (int i = 0; i < 3000; ++i) {
        EngineStatus s = e.status();
        if (s.devices[0].busy_workers == 1 && s.devices[0].prestage_fallbacks == 1) break;
        std::this_thread::sleep_for(1ms);
      }
      ASSERT_EQ(e.status().devices[0].prestage_fallbacks, 1u);
      std::this_thread::sleep_for(400ms);  // past the batch wait: a join would have happened
    }
    std::vector<std::string> how;
    std::vector<uint64_t> batches;
    for (const auto& id : ids) {
      JobRecord r = finished(e, id);
      how.push_back(r.timings.prestage_name());
      batches.push_back(r.timings.batch);
      if (r.timings.prestage_fallback && fault) {
        EXPECT_EQ(r.state, JobState::kFailed);
        EXPECT_NE(r.error.message().find("injected copy failure"), std::string::npos) << r.error.message();
        EXPECT_NE(r.error.message().find("upload"), std::string::npos) << r.error.message();
      } else {
        expect_verifies(r);
      }
    }
    std::sort(how.begin(), how.end());
    EXPECT_EQ(how[0], fault ? "fallback" : "late") << "fault " << fault;  // "late" once its upload succeeded
    EXPECT_EQ(how[1], "ok");
    if (!fault) {
      EXPECT_NE(batches[0], batches[1]);
    }
    wait_for_zero(d.memory());
    wait_for_zero(e.host_memory());
    EXPECT_EQ(e.status().devices[0].baseline_mismatches, 0u);
    // And the device proves on.
    expect_verifies(finished(e, e.submit(request("small", small_->wtns))->job_id));
  }
}

TEST_F(EngineTest, ProofThatCanNeverFitIsRefusedWithResourceExhausted) {
  auto e = make_engine(1024, 1);
  auto s = e->submit(request("small", small_->wtns));
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().code(), StatusCode::kResourceExhausted);
}

TEST_F(EngineTest, ShutdownRefusesNewWorkAndFinishesInFlightJobs) {
  auto e = make_engine();
  std::string id = e->submit(request("small", small_->wtns))->job_id;
  e->shutdown(30s);
  EXPECT_EQ(finished(*e, id).state, JobState::kCompleted);
  EXPECT_EQ(e->submit(request("small", small_->wtns)).status().code(), StatusCode::kUnavailable);
}

TEST_F(EngineTest, SelfTestMakesTheEngineReadyAndMetricsCountIt) {
  auto e = make_engine();
  EXPECT_FALSE(e->ready());
  ASSERT_TRUE(e->self_test("small", small_->wtns, 60s).is_ok());
  EXPECT_TRUE(e->ready());
  std::string m = e->metrics_text();
  EXPECT_NE(m.find("cuzk_total_seconds_count 1"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_proofs_total{outcome=\"completed\"} 1"), std::string::npos);
  EXPECT_NE(m.find("cuzk_ready 1"), std::string::npos);
}

}  // namespace
}  // namespace cuzk::engine
