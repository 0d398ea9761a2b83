// A CRITICAL proof in the kernel region's critical lane does not share the device with the
// lower-priority proof already inside for longer than that proof's current phase: the
// lower-priority proof pauses at its next phase boundary until the CRITICAL one has left
// (groth16::PhasePauses, device_worker.cpp YieldToCritical), and reports the pause.
#include <gtest/gtest.h>

#include <thread>

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

}  // namespace
}  // namespace cuzk::engine
