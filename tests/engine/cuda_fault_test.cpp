// Failure containment on a real GPU: a non-sticky fault fails only its job and resets
// nothing; a sticky fault (a kernel that traps, which loses the CUDA context) fails its job,
// and the engine drains and resets the device, re-uploading the resident key, or reports it
// lost when no reset brings it back. Skipped without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include "cuda/allocator.hpp"
#include "cuda/cuda_test_util.hpp"
#include "cuda/fault.hpp"
#include "engine/cuda_device.hpp"
#include "engine/demo_keys.hpp"
#include "engine/engine.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/zkey.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using testing::DemoKey;

class CudaFaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new groth16::testing::ScratchDir();
    key_ = new DemoKey(testing::make_demo_key<bn254::Curve>(*dir_, "gpu", (1 << 12) - 5));
  }
  static void TearDownTestSuite() {
    delete key_;
    delete dir_;
  }
  void TearDown() override { cuda::disarm_faults(); }

  // cap_bytes: the device budget (0: the whole free memory); precompute: its MSM tables.
  std::unique_ptr<Engine> make_engine(uint64_t cap_bytes = 0, const char* precompute = "auto") {
    CudaDeviceOptions o;
    o.host_threads = 2;
    o.cap_bytes = cap_bytes;
    o.precompute = precompute;
    auto d = CudaDevice::create(0, o);
    EXPECT_TRUE(d.is_ok()) << d.status().to_string();
    if (!d.is_ok()) return nullptr;
    std::vector<std::unique_ptr<Device>> devices;
    devices.push_back(std::move(d).value());
    EngineConfig cfg;
    cfg.gpu_workers_per_device = 2;
    cfg.host_memory_bytes = cfg.key_cache_bytes = uint64_t(1) << 32;
    auto e = std::make_unique<Engine>(cfg, std::move(devices), [](LogLevel, const std::string& line) {
      if (line.find("cuda:0: ") == 0) std::cout << "  log: " << line << "\n";
    });
    auto reg = e->register_circuit("gpu", key_->zkey, true);
    EXPECT_TRUE(reg.is_ok()) << reg.status().to_string();
    return e;
  }

  std::string submit(Engine& e) {
    SubmitRequest r;
    r.circuit_id = "gpu";
    r.wtns = key_->wtns;
    auto s = e.submit(r);
    EXPECT_TRUE(s.is_ok()) << s.status().to_string();
    return s.is_ok() ? s->job_id : std::string();
  }
  static JobRecord finished(Engine& e, const std::string& id) {
    auto r = e.await(id, 120s);
    EXPECT_TRUE(r.is_ok() && is_terminal(r->state));
    return r.is_ok() ? *r : JobRecord{};
  }
  static void expect_verifies(const JobRecord& rec) {
    ASSERT_EQ(rec.state, JobState::kCompleted) << rec.error.to_string();
    auto zkey = formats::Zkey<bn254::Curve>::open(key_->zkey);
    ASSERT_TRUE(zkey.is_ok());
    const auto& h = zkey->header();
    auto vk = groth16::make_verifying_key<bn254::Curve>(h.alpha1, h.beta2, h.gamma2, h.delta2, zkey->ic());
    auto proof = formats::proof_from_json<bn254::Curve>(*formats::Json::parse(rec.result.proof_json), "proof");
    ASSERT_TRUE(proof.is_ok());
    auto pub = formats::public_from_json<bn254::Fr>(*formats::Json::parse(rec.result.public_json), "public");
    ASSERT_TRUE(pub.is_ok());
    std::vector<bn254::Fr::Int> ints;
    for (const auto& f : *pub) ints.push_back(f.to_canonical());
    EXPECT_TRUE(groth16::verify<bn254::Curve>(vk, *proof, ints).is_ok());
  }
  // The key is resident on the GPU, and the device holds nothing else: the allocator's
  // live bytes are the key's, and the driver agrees within the allocator's slack.
  static void expect_at_baseline(Engine& e) {
    Device& d = *e.devices()[0];
    for (int i = 0; i < 500 && d.memory().in_use() != e.circuit("gpu")->resident_device_bytes; ++i) {
      std::this_thread::sleep_for(10ms);
    }
    auto info = e.circuit("gpu");
    ASSERT_TRUE(info.is_ok());
    ASSERT_EQ(info->placements.size(), 1u);
    EXPECT_EQ(info->placements[0].tier, KeyTier::kDevice);
    EXPECT_EQ(info->tier, KeyTier::kDevice);
    EXPECT_GT(info->resident_device_bytes, 0u);
    EXPECT_EQ(d.memory().in_use(), info->resident_device_bytes);
    EXPECT_EQ(d.unaccounted_bytes(), 0);
    auto alloc = cuda::DeviceAllocator::for_device(0);
    ASSERT_TRUE(alloc.is_ok());
    Status at = (*alloc)->check_baseline(info->resident_device_bytes);
    EXPECT_TRUE(at.is_ok()) << at.to_string();
    EXPECT_EQ(e.status().devices[0].baseline_mismatches, 0u);
  }

  static groth16::testing::ScratchDir* dir_;
  static DemoKey* key_;
};

groth16::testing::ScratchDir* CudaFaultTest::dir_ = nullptr;
DemoKey* CudaFaultTest::key_ = nullptr;

TEST_F(CudaFaultTest, NonStickyFaultsFailOnlyTheirJobAndDoNotReset) {
  CUZK_SKIP_WITHOUT_DEVICE();
  auto e = make_engine();
  ASSERT_NE(e, nullptr);
  for (const char* spec : {"alloc:1", "copy:1", "kernel:1"}) {
    ASSERT_TRUE(cuda::arm_faults(spec).is_ok());
    JobRecord bad = finished(*e, submit(*e));
    EXPECT_EQ(bad.state, JobState::kFailed) << spec;
    EXPECT_NE(bad.error.message().find("injected"), std::string::npos) << bad.error.message();
    cuda::disarm_faults();
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) ids.push_back(submit(*e));
    for (const auto& id : ids) expect_verifies(finished(*e, id));
    expect_at_baseline(*e);
  }
  EngineStatus s = e->status();
  EXPECT_EQ(s.devices[0].resets, 0u);
  EXPECT_EQ(s.devices[0].failed, 3u);
}

// A budget of the key and one pre-staged proof (not two), the kernel lock held by the test,
// two proofs: one pre-stages, the other is passed over (prestage=fallback) and its worker
// waits for memory. Once the first has run, that worker uploads the second outside the lock
// ("late") before taking the region; both verify. The same with a copy fault armed for that
// upload: only its job fails, and the device returns to its baseline.
TEST_F(CudaFaultTest, ProofsPreStagingPassedOverAreStagedByTheirWorker) {
  CUZK_SKIP_WITHOUT_DEVICE();
  // The budget: the key plus 1.5 proofs, at the lane count that budget itself gives (a
  // smaller budget may prepare fewer MSM lanes, and so smaller proofs).
  uint64_t cap = 0;
  std::unique_ptr<Engine> e;
  for (int i = 0; i < 4; ++i) {
    // Batching on: the passed-over proof must not join the first one's batch (before the
    // batch rule, it ran in the first one's hold with its upload in the region; the H200 run
    // of this test at 35a8046 found that, not "late").
    e = make_engine(cap, "off");
    ASSERT_NE(e, nullptr);
    auto info = e->circuit("gpu");
    ASSERT_TRUE(info.is_ok());
    const uint64_t proof = info->device_bytes[0].upload + info->device_bytes[0].compute;
    if (cap != 0 && info->resident_device_bytes + proof <= cap && cap < info->resident_device_bytes + 2 * proof) break;
    cap = info->resident_device_bytes + proof * 3 / 2;
    e.reset();
  }
  ASSERT_NE(e, nullptr) << "no budget holds one proof but not two";
  Device& d = *e->devices()[0];
  for (bool fault : {false, true}) {
    const uint64_t fallbacks = e->status().devices[0].prestage_fallbacks;
    std::vector<std::string> ids;
    {
      KernelLock::Guard hold(d.kernel_lock(), Priority::kHigh);
      ids = {submit(*e), submit(*e)};
      // Wait: one proof pre-staged and its worker at the lock, the other passed over.
      for (int i = 0; i < 3000; ++i) {
        EngineStatus s = e->status();
        if (s.devices[0].busy_workers == 1 && s.devices[0].prestage_fallbacks == fallbacks + 1) break;
        std::this_thread::sleep_for(1ms);
      }
      ASSERT_EQ(e->status().devices[0].prestage_fallbacks, fallbacks + 1);
      if (fault) {
        ASSERT_TRUE(cuda::arm_faults("copy:1@upload.witness").is_ok());
      }
    }
    std::vector<std::string> how;
    for (const auto& id : ids) {
      JobRecord r = finished(*e, id);
      how.push_back(r.timings.prestage_name());
      if (r.timings.prestage_fallback && fault) {
        EXPECT_EQ(r.state, JobState::kFailed);
        EXPECT_NE(r.error.message().find("injected"), std::string::npos) << r.error.message();
      } else {
        expect_verifies(r);
      }
    }
    cuda::disarm_faults();
    std::sort(how.begin(), how.end());
    EXPECT_EQ(how[0], fault ? "fallback" : "late") << "fault " << fault;
    EXPECT_EQ(how[1], "ok");
    expect_at_baseline(*e);
  }
  // And the device proves on.
  expect_verifies(finished(*e, submit(*e)));
  EXPECT_EQ(e->status().devices[0].resets, 0u);
}

// Last in this file: on a GPU whose context cannot come back, the device stays lost for the
// rest of the process. Either outcome passes when it is clean: the reset brings the GPU back
// (ten proofs succeed at the new baseline), or, as measured on the H200, no reset can (every
// cudaSetDevice after a trap answers cudaErrorDevicesUnavailable): the device is buried and
// reported once to on_device_dead, later proofs fail UNAVAILABLE at once, nothing hangs. The
// daemon then exits 75 for its supervisor (tests/apps/daemon_test.sh on the CPU device,
// scripts/gpu-daemon-bench.sh on the GPU).
TEST_F(CudaFaultTest, StickyFaultFailsItsJobAndTheGpuIsResetOrReportedLost) {
  CUZK_SKIP_WITHOUT_DEVICE();
  auto e = make_engine();
  ASSERT_NE(e, nullptr);
  std::atomic<int> dead_calls{0};
  e->on_device_dead([&](const Device& d, const Status& why) {
    std::cout << "  " << d.id() << " reported lost: " << why.message() << "\n";
    ++dead_calls;
  });
  expect_verifies(finished(*e, submit(*e)));
  expect_at_baseline(*e);
  const uint64_t baseline_before = e->devices()[0]->baseline_bytes();

  ASSERT_TRUE(cuda::arm_faults("sticky:1").is_ok());
  auto t0 = std::chrono::steady_clock::now();
  JobRecord bad = finished(*e, submit(*e));
  ASSERT_EQ(bad.state, JobState::kFailed);
  EXPECT_EQ(bad.error.code(), StatusCode::kInternal);
  EXPECT_NE(bad.error.message().find("sticky"), std::string::npos) << bad.error.message();
  std::cout << "  the faulted job: " << bad.error.message() << "\n";
  for (int i = 0; i < 3000 && e->status().devices[0].resets == 0 && !e->devices()[0]->dead(); ++i) {
    std::this_thread::sleep_for(10ms);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (e->devices()[0]->dead()) {
    std::cout << "  outcome: the GPU could not be reset in this process (reported lost " << ms
              << " ms after the faulted submit)\n";
    EXPECT_EQ(dead_calls.load(), 1);
    EXPECT_EQ(e->live_devices(), 0u);
    EXPECT_FALSE(e->ready());
    EXPECT_EQ(e->status().devices[0].resets, 0u);
    auto t1 = std::chrono::steady_clock::now();
    JobRecord after = finished(*e, submit(*e));
    EXPECT_EQ(after.state, JobState::kFailed);
    EXPECT_EQ(after.error.code(), StatusCode::kUnavailable) << after.error.to_string();
    EXPECT_LT(std::chrono::steady_clock::now() - t1, 5s);
    EXPECT_NE(e->metrics_text().find("cuzk_device_up{device=\"cuda:0\"} 0"), std::string::npos);
    return;
  }
  ASSERT_EQ(e->status().devices[0].resets, 1u);
  std::cout << "  outcome: reset and re-upload done " << ms << " ms after the faulted submit; baseline "
            << baseline_before << " -> " << e->devices()[0]->baseline_bytes() << " bytes\n";
  EXPECT_TRUE(e->devices()[0]->health().is_ok());
  EXPECT_EQ(dead_calls.load(), 0);

  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(submit(*e));
  for (const auto& id : ids) expect_verifies(finished(*e, id));
  EngineStatus s = e->status();
  EXPECT_EQ(s.devices[0].resets, 1u);
  EXPECT_EQ(s.devices[0].failed, 1u);
  EXPECT_FALSE(s.devices[0].poisoned);
  expect_at_baseline(*e);
  EXPECT_NE(e->metrics_text().find("cuzk_device_resets_total{device=\"cuda:0\"} 1"), std::string::npos);
}

}  // namespace
}  // namespace cuzk::engine
