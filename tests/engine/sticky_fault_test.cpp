// Failure containment on the CPU device, whose injected faults model a GPU's: a sticky
// fault fails its job, poisons the device, and the engine drains, resets and re-prepares
// it, after which it serves again; a non-sticky fault fails only its job and resets
// nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "engine/engine_fixture.hpp"

namespace cuzk::engine {
namespace {

using testing::EngineFixture;

class StickyFaultTest : public EngineFixture {
 protected:
  // The device is healthy again with everything back at its idle baseline.
  static void expect_back_at_baseline(Engine& e, size_t device) {
    Device& d = *e.devices()[device];
    EXPECT_TRUE(eventually([&] { return d.memory().in_use() == 0 && e.host_memory().in_use() == 0; }));
    EXPECT_EQ(d.unaccounted_bytes(), 0);
    EXPECT_FALSE(d.poisoned());
    EXPECT_EQ(e.status().devices[device].baseline_mismatches, 0u);
  }
  // Submits n proofs at once and waits for them: each that completed verifies; the count
  // of those that failed.
  int failures_of(Engine& e, int n) {
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) ids.push_back(submit(e));
    int failed = 0;
    for (const auto& id : ids) {
      JobRecord r = finished(e, id);
      if (r.state == JobState::kFailed) {
        ++failed;
      } else {
        expect_verifies(r);
      }
    }
    return failed;
  }
};

TEST_F(StickyFaultTest, StickyFaultFailsItsJobResetsTheDeviceAndTheNextTenSucceed) {
  EngineConfig cfg;
  cfg.gpu_workers_per_device = 2;
  auto e = make_engine(cfg);
  ASSERT_TRUE(cpu(*e, 0).arm_faults("sticky:2").is_ok());
  expect_verifies(finished(*e, submit(*e)));
  JobRecord bad = finished(*e, submit(*e));
  ASSERT_EQ(bad.state, JobState::kFailed);
  EXPECT_EQ(bad.error.code(), StatusCode::kInternal);
  EXPECT_NE(bad.error.message().find("sticky"), std::string::npos) << bad.error.message();
  ASSERT_TRUE(eventually([&] { return e->status().devices[0].resets == 1; }));

  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(submit(*e));
  for (const auto& id : ids) expect_verifies(finished(*e, id));
  EngineStatus s = e->status();
  EXPECT_EQ(s.devices[0].resets, 1u);
  EXPECT_EQ(s.devices[0].failed, 1u);
  EXPECT_EQ(s.devices[0].completed, 11u);
  expect_back_at_baseline(*e, 0);
  EXPECT_TRUE(cpu(*e, 0).health().is_ok());
  EXPECT_NE(e->metrics_text().find("cuzk_device_resets_total{device=\"cpu:0\"} 1"), std::string::npos);
  EXPECT_TRUE(logged("sticky fault, draining and resetting"));
  EXPECT_TRUE(logged("reset done"));
  // The key was prepared again on the new backends.
  auto info = e->circuit("small");
  ASSERT_TRUE(info.is_ok());
  ASSERT_EQ(info->placements.size(), 1u);
  EXPECT_EQ(info->placements[0].tier, KeyTier::kMapped);
  EXPECT_EQ(e->devices()[0]->counters().reset_failures.load(), 0u);
}

TEST_F(StickyFaultTest, QueuedJobsWaitOutTheResetInsteadOfFailing) {
  // Twelve jobs in flight on one device: the fault fails the jobs inside the device at
  // that moment (at most the two workers' and one pre-staging upload), never the queued
  // ones, which run after the reset.
  EngineConfig cfg;
  cfg.gpu_workers_per_device = 2;
  auto e = make_engine(cfg);
  ASSERT_TRUE(cpu(*e, 0).arm_faults("sticky:3").is_ok());
  std::vector<std::string> ids;
  for (int i = 0; i < 12; ++i) ids.push_back(submit(*e));
  int failed = 0;
  for (const auto& id : ids) {
    JobRecord r = finished(*e, id);
    if (r.state == JobState::kFailed) {
      ++failed;
      EXPECT_EQ(r.error.code(), StatusCode::kInternal) << r.error.to_string();
    } else {
      expect_verifies(r);
    }
  }
  EXPECT_GE(failed, 1);
  EXPECT_LE(failed, 3);
  EXPECT_EQ(e->status().devices[0].resets, 1u);
  expect_back_at_baseline(*e, 0);
}

TEST_F(StickyFaultTest, WithTwoDevicesTheHealthyOneTakesTheWorkWhileTheOtherResets) {
  EngineConfig cfg;
  cfg.gpu_workers_per_device = 1;
  auto e = make_engine(cfg, 2);
  ASSERT_TRUE(cpu(*e, 0).arm_faults("sticky:1").is_ok());
  const int failed = failures_of(*e, 10);
  EXPECT_GE(failed, 1);
  EXPECT_LE(failed, 2);
  EngineStatus s = e->status();
  EXPECT_EQ(s.devices[0].resets, 1u);
  EXPECT_EQ(s.devices[1].resets, 0u);
  EXPECT_GT(s.devices[1].completed, 0u);
  expect_back_at_baseline(*e, 0);
  expect_back_at_baseline(*e, 1);
  // Both serve: a proof pinned to the reset device succeeds.
  SubmitRequest r = request("small");
  r.pinned_device = 0;
  auto pinned = e->submit(r);
  ASSERT_TRUE(pinned.is_ok());
  expect_verifies(finished(*e, pinned->job_id));
}

TEST_F(StickyFaultTest, AResetThatFailsOnceIsRetriedAndTheDeviceServesAgain) {
  EngineConfig cfg;
  cfg.gpu_workers_per_device = 1;
  std::atomic<int> dead_calls{0};  // outlives the engine's recovery thread
  auto e = make_engine(cfg);
  e->on_device_dead([&](const Device&, const Status&) { ++dead_calls; });
  ASSERT_TRUE(cpu(*e, 0).arm_faults("sticky:1,reset:1").is_ok());
  EXPECT_EQ(finished(*e, submit(*e)).state, JobState::kFailed);
  ASSERT_TRUE(eventually([&] { return e->status().devices[0].resets == 1; }));
  EXPECT_EQ(e->devices()[0]->counters().reset_failures.load(), 1u);
  EXPECT_TRUE(logged("reset attempt 1 failed"));
  expect_verifies(finished(*e, submit(*e)));
  EXPECT_EQ(dead_calls.load(), 0);
  EXPECT_EQ(e->live_devices(), 1u);
}

TEST_F(StickyFaultTest, ADeviceThatCannotBeResetIsBuriedReportedOnceAndRefusesWork) {
  // The H200's behaviour: after a trapped kernel, no reset brings the context back inside
  // the process. The engine buries the device, tells the handler (the daemon exits for its
  // supervisor to restart it), is no longer ready, and answers UNAVAILABLE.
  EngineConfig cfg;
  cfg.gpu_workers_per_device = 1;
  // Declared before the engine, so that they outlive its recovery thread, which calls the handler.
  std::mutex mu;
  std::vector<std::string> dead;
  auto e = make_engine(cfg);
  e->on_device_dead([&](const Device& d, const Status& why) {
    std::lock_guard lock(mu);
    dead.push_back(d.id() + ": " + why.message());
  });
  ASSERT_TRUE(cpu(*e, 0).arm_faults("sticky:1,reset:1,reset:2,reset:3").is_ok());
  JobRecord bad = finished(*e, submit(*e));
  EXPECT_EQ(bad.state, JobState::kFailed);
  // The device is buried, logged and counted before the handler is told (DeviceRecovery::recover):
  // wait for the handler, then every one of those is there to see.
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mu);
    return !dead.empty();
  }));
  EXPECT_TRUE(e->devices()[0]->dead());
  {
    std::lock_guard lock(mu);
    ASSERT_EQ(dead.size(), 1u);
    EXPECT_NE(dead[0].find("cpu:0: "), std::string::npos) << dead[0];
    EXPECT_NE(dead[0].find("injected reset failure"), std::string::npos) << dead[0];
  }
  EXPECT_EQ(e->devices()[0]->counters().reset_failures.load(), 3u);
  EXPECT_EQ(e->live_devices(), 0u);
  EXPECT_FALSE(e->ready());
  EXPECT_TRUE(e->status().devices[0].dead);
  EXPECT_NE(e->metrics_text().find("cuzk_device_up{device=\"cpu:0\"} 0"), std::string::npos);
  EXPECT_NE(e->metrics_text().find("cuzk_device_lost_total{device=\"cpu:0\"} 1"), std::string::npos);
  EXPECT_TRUE(logged("could not be reset"));
  JobRecord after = finished(*e, submit(*e));
  EXPECT_EQ(after.state, JobState::kFailed);
  EXPECT_EQ(after.error.code(), StatusCode::kUnavailable) << after.error.to_string();
  // Everything the faulted proof held was freed, even on the dead device.
  EXPECT_TRUE(eventually([&] { return e->devices()[0]->memory().in_use() == 0 && e->host_memory().in_use() == 0; }));
}

TEST_F(StickyFaultTest, WithTwoDevicesALostOneLeavesTheOtherServing) {
  EngineConfig cfg;
  cfg.gpu_workers_per_device = 1;
  std::atomic<int> dead_calls{0};  // outlives the engine's recovery thread
  auto e = make_engine(cfg, 2);
  e->on_device_dead([&](const Device& d, const Status&) {
    EXPECT_EQ(d.index(), 0u);
    ++dead_calls;
  });
  ASSERT_TRUE(cpu(*e, 0).arm_faults("sticky:1,reset:1,reset:2,reset:3").is_ok());
  const int failed = failures_of(*e, 8);
  EXPECT_GE(failed, 1);
  EXPECT_LE(failed, 2);
  ASSERT_TRUE(eventually([&] { return dead_calls.load() == 1; }));
  EXPECT_EQ(e->live_devices(), 1u);
  expect_verifies(finished(*e, submit(*e)));
}

TEST_F(StickyFaultTest, NonStickyFaultsFailOnlyTheirJobAndDoNotReset) {
  for (const char* spec : {"alloc:2", "copy:2", "kernel:2"}) {
    EngineConfig cfg;
    cfg.gpu_workers_per_device = 2;
    auto e = make_engine(cfg);
    ASSERT_TRUE(cpu(*e, 0).arm_faults(spec).is_ok());
    for (int round = 0; round < 2; ++round) {
      std::vector<std::string> ids;
      for (int i = 0; i < 5; ++i) ids.push_back(submit(*e));
      int failed = 0;
      for (const auto& id : ids) {
        JobRecord r = finished(*e, id);
        if (r.state == JobState::kFailed) {
          ++failed;
          EXPECT_NE(r.error.message().find("injected fault"), std::string::npos) << r.error.message();
        } else {
          expect_verifies(r);
        }
      }
      EXPECT_EQ(failed, round == 0 ? 1 : 0) << spec;
    }
    EngineStatus s = e->status();
    EXPECT_EQ(s.devices[0].resets, 0u) << spec;
    EXPECT_FALSE(s.devices[0].poisoned) << spec;
    EXPECT_EQ(s.devices[0].failed, 1u) << spec;
    expect_back_at_baseline(*e, 0);
  }
}

TEST_F(StickyFaultTest, MalformedFaultSpecIsRefused) {
  CpuDevice d(0, 1 << 20, 1);
  for (const char* spec : {"sticky", "sticky:0", "sticky:x", "meltdown:1", "reset:", "reset:1x"}) {
    Status st = d.arm_faults(spec);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << spec;
    EXPECT_NE(st.message().find(spec), std::string::npos) << st.message();
  }
  EXPECT_TRUE(d.arm_faults("reset:2,kernel:1@compute").is_ok());
  EXPECT_TRUE(d.arm_faults("").is_ok());
}

}  // namespace
}  // namespace cuzk::engine

namespace cuzk::engine {
namespace {

class KeyTierTest : public testing::EngineFixture {};

TEST_F(KeyTierTest, EachDeviceReportsWhereTheKeyLivesAndBytesPerTier) {
  EngineConfig cfg;
  auto e = make_engine(cfg, 2);
  ASSERT_TRUE(e->register_circuit("cold", small_->zkey, false).is_ok());
  auto cold = e->circuit("cold");
  ASSERT_TRUE(cold.is_ok());
  EXPECT_EQ(cold->tier, KeyTier::kDisk);  // registered, not loaded
  EXPECT_TRUE(cold->placements.empty());
  EXPECT_EQ(cold->mapped_bytes, 0u);

  // The CPU devices prove from the key's mapped file: tier mapped on each, no device bytes.
  auto hot = e->circuit("small");
  ASSERT_TRUE(hot.is_ok());
  EXPECT_EQ(hot->tier, KeyTier::kMapped);
  ASSERT_EQ(hot->placements.size(), 2u);
  for (size_t d = 0; d < 2; ++d) {
    EXPECT_EQ(hot->placements[d].device, "cpu:" + std::to_string(d));
    EXPECT_EQ(hot->placements[d].tier, KeyTier::kMapped);
    EXPECT_EQ(hot->placements[d].device_bytes, 0u);
  }
  EXPECT_EQ(hot->mapped_bytes, hot->shape.key_bytes);
  EXPECT_GT(hot->mapped_bytes, 0u);
  EXPECT_EQ(hot->pinned_host_bytes, 0u);
  EXPECT_EQ(hot->resident_device_bytes, 0u);
  EXPECT_EQ(tier_of_placement("device"), KeyTier::kDevice);
  EXPECT_EQ(tier_of_placement("pinned"), KeyTier::kPinnedHost);
  EXPECT_EQ(tier_of_placement("streamed"), KeyTier::kMapped);

  // Through a reset the key comes back to the same placement on the reset device.
  ASSERT_TRUE(cpu(*e, 1).arm_faults("sticky:1").is_ok());
  SubmitRequest r = request("small");
  r.pinned_device = 1;
  auto s = e->submit(r);
  ASSERT_TRUE(s.is_ok());
  EXPECT_EQ(finished(*e, s->job_id).state, JobState::kFailed);
  ASSERT_TRUE(eventually([&] { return e->status().devices[1].resets == 1 && !e->status().devices[1].poisoned; }));
  auto after = e->circuit("small");
  ASSERT_TRUE(after.is_ok());
  ASSERT_EQ(after->placements.size(), 2u);
  EXPECT_EQ(after->placements[1].tier, KeyTier::kMapped);
  auto again = e->submit(r);
  ASSERT_TRUE(again.is_ok());
  expect_verifies(finished(*e, again->job_id));
}

}  // namespace
}  // namespace cuzk::engine
