// A CRITICAL proof in the kernel region's critical lane does not share the device with the
// lower-priority proof already inside for longer than that proof's current phase: the
// lower-priority proof pauses at its next phase boundary until the CRITICAL one has left
// (groth16::PhasePauses, device_worker.cpp YieldToCritical), and reports the pause.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine_fixture.hpp"

namespace cuzk::engine {
namespace {

using testing::DemoKey;
using testing::EngineFixture;
using namespace std::chrono_literals;

class CriticalPauseTest : public EngineFixture {
 protected:
  static void SetUpTestSuite() {
    EngineFixture::SetUpTestSuite();
    big_ = new DemoKey(testing::make_demo_key<bn254::Curve>(*dir_, "big", (1 << 15) - 5));
  }
  static void TearDownTestSuite() {
    delete big_;
    EngineFixture::TearDownTestSuite();
  }
  static DemoKey* big_;
};

DemoKey* CriticalPauseTest::big_ = nullptr;

TEST_F(CriticalPauseTest, ALowerPriorityProofPausesWhileACriticalOneRunsAndTheCriticalOneFinishesFirst) {
  EngineConfig cfg;
  cfg.gpu_workers_per_device = 1;
  auto e = make_engine(cfg);
  ASSERT_TRUE(e->register_circuit("big", big_->zkey, true).is_ok());

  // Alone, nothing pauses.
  SubmitRequest r = request("big");
  r.wtns = big_->wtns;
  auto alone = e->submit(r);
  ASSERT_TRUE(alone.is_ok());
  JobRecord solo = finished(*e, alone->job_id);
  ASSERT_EQ(solo.state, JobState::kCompleted) << solo.error.to_string();
  EXPECT_EQ(solo.timings.paused_ms, 0.0);

  // The CRITICAL proof is submitted once the big one is inside; on a loaded machine it can
  // reach the region only in the big proof's last phase (no boundary left to pause at), so
  // the scenario gets three tries.
  JobRecord b, c;
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto big = e->submit(r);
    ASSERT_TRUE(big.is_ok());
    KernelLock& lock = e->devices()[0]->kernel_lock();
    for (int i = 0; i < 5000 && lock.inside() == 0; ++i) std::this_thread::sleep_for(1ms);
    ASSERT_EQ(lock.inside(), 1) << "the big proof never entered the kernel region";
    auto crit = e->submit(request("small", Priority::kCritical));
    ASSERT_TRUE(crit.is_ok());
    c = finished(*e, crit->job_id);
    b = finished(*e, big->job_id);
    expect_verifies(c);
    ASSERT_EQ(b.state, JobState::kCompleted) << b.error.to_string();  // verified by the engine
    EXPECT_EQ(c.timings.paused_ms, 0.0);
    if (b.timings.paused_ms > 0) break;
  }
  EXPECT_LT(c.finished, b.finished);
  EXPECT_GT(b.timings.paused_ms, 0.0);
  EXPECT_LT(b.timings.paused_ms, b.timings.gpu_compute_ms);
  EXPECT_TRUE(logged("paused_ms="));
}

// With two workers, a proof winding down (its last MSM on this backend) hands the kernel
// region to the next worker's proof, which starts beside it; with overlap_tails off, never.
TEST_F(CriticalPauseTest, AProofWindingDownLetsTheNextWorkersProofIn) {
  for (bool overlap : {true, false}) {
    EngineConfig cfg;
    cfg.gpu_workers_per_device = 2;
    cfg.batch_max = 1;  // one proof per hold of the region
    cfg.overlap_tails = overlap;
    auto e = make_engine(cfg);
    ASSERT_TRUE(e->register_circuit("big", big_->zkey, true).is_ok());
    SubmitRequest r = request("big");
    r.wtns = big_->wtns;
    KernelLock& lock = e->devices()[0]->kernel_lock();
    std::atomic<bool> done{false};
    std::atomic<int> most_tails{0}, overlapped{0};
    std::thread watch([&] {
      while (!done.load()) {
        const int t = lock.tails(), in = lock.inside();
        if (t > most_tails.load()) most_tails = t;
        if (t > 0 && in > 0) ++overlapped;
        std::this_thread::sleep_for(100us);
      }
    });
    std::vector<std::string> ids;
    for (int k = 0; k < 6; ++k) {
      auto j = e->submit(r);
      ASSERT_TRUE(j.is_ok());
      ids.push_back(j->job_id);
    }
    for (const auto& id : ids) {
      JobRecord rec = finished(*e, id);
      EXPECT_EQ(rec.state, JobState::kCompleted) << rec.error.to_string();  // verified by the engine
    }
    done = true;
    watch.join();
    EXPECT_EQ(lock.inside(), 0);
    EXPECT_EQ(lock.tails(), 0);
    if (overlap) {
      EXPECT_EQ(most_tails.load(), 1);
      EXPECT_GT(overlapped.load(), 0) << "no proof entered while another wound down";
    } else {
      EXPECT_EQ(most_tails.load(), 0);
    }
  }
}

}  // namespace
}  // namespace cuzk::engine
