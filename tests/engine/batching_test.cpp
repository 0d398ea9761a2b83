// Same-circuit batching at the device: a burst of one circuit runs in batches of
// batch_max under one hold of the kernel region, different circuits never share a batch,
// and a CRITICAL proof is never held back by batching.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/engine_fixture.hpp"

namespace cuzk::engine {
namespace {

using testing::EngineFixture;
using namespace std::chrono_literals;

class BatchingTest : public EngineFixture {
 protected:
  // Proofs per batch number, from the jobs' records.
  static std::map<uint64_t, std::vector<JobRecord>> by_batch(Engine& e, const std::vector<std::string>& ids) {
    std::map<uint64_t, std::vector<JobRecord>> out;
    for (const auto& id : ids) {
      JobRecord r = finished(e, id);
      EXPECT_EQ(r.state, JobState::kCompleted) << r.error.to_string();
      EXPECT_GT(r.timings.batch, 0u);
      out[r.timings.batch].push_back(r);
    }
    return out;
  }

  // One worker on the device, so that batches form from what queues behind it.
  static EngineConfig one_worker(unsigned batch_max, std::chrono::milliseconds wait) {
    EngineConfig cfg;
    cfg.gpu_workers_per_device = 1;
    cfg.batch_max = batch_max;
    cfg.batch_wait = wait;
    return cfg;
  }
};

TEST_F(BatchingTest, BurstOfEightOfOneCircuitRunsInBatchesOfFour) {
  // The batch wait is long enough that the whole burst is queued before the first batch
  // closes; the burst of 8 then runs as exactly two batches of 4.
  auto e = make_engine(one_worker(4, 2000ms));
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(submit(*e));
  auto batches = by_batch(*e, ids);
  ASSERT_EQ(batches.size(), 2u);
  for (const auto& [n, proofs] : batches) {
    EXPECT_EQ(proofs.size(), 4u) << "batch " << n;
    for (const auto& r : proofs) expect_verifies(r);
  }
  std::string m = e->metrics_text();
  EXPECT_NE(m.find("cuzk_device_batch_size_count 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_device_batch_size_sum 8\n"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_device_batch_size_bucket{le=\"3\"} 0\n"), std::string::npos) << m;
}

TEST_F(BatchingTest, MixedCircuitsAreNeverBatchedTogether) {
  auto e = make_engine(one_worker(4, 500ms));
  ASSERT_TRUE(e->register_circuit("other", small_->zkey, true).is_ok());
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(submit(*e, i % 2 == 0 ? "small" : "other"));
  auto batches = by_batch(*e, ids);
  size_t largest = 0;
  for (const auto& [n, proofs] : batches) {
    std::set<std::string> circuits;
    for (const auto& r : proofs) circuits.insert(r.circuit_id);
    EXPECT_EQ(circuits.size(), 1u) << "batch " << n << " mixes circuits";
    largest = std::max(largest, proofs.size());
  }
  EXPECT_GT(largest, 1u);  // batching did happen, so the check above means something
}

TEST_F(BatchingTest, BatchMaxOneRunsEveryProofAlone) {
  auto e = make_engine(one_worker(1, 500ms));
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(submit(*e));
  auto batches = by_batch(*e, ids);
  EXPECT_EQ(batches.size(), 4u);
}

TEST_F(BatchingTest, CriticalIsNeverHeldBackByBatching) {
  // A lone CRITICAL proof goes at once, however long the batch wait.
  auto e = make_engine(one_worker(4, 3000ms));
  JobRecord crit = finished(*e, submit(*e, "small", Priority::kCritical));
  expect_verifies(crit);
  EXPECT_LT(crit.timings.total_ms, 2500.0);
  // Behind a burst of NORMAL proofs it overtakes the batches still queued: it finishes
  // before the last NORMAL one, in a batch of its own.
  std::vector<std::string> normal;
  for (int i = 0; i < 8; ++i) normal.push_back(submit(*e));
  std::string critical = submit(*e, "small", Priority::kCritical);
  JobRecord c = finished(*e, critical);
  expect_verifies(c);
  auto batches = by_batch(*e, normal);
  for (const auto& [n, proofs] : batches) EXPECT_NE(n, c.timings.batch) << "CRITICAL shared a batch";
  SystemClock::time_point last_normal{};
  for (const auto& id : normal) last_normal = std::max(last_normal, finished(*e, id).finished);
  EXPECT_LT(c.finished, last_normal);
}

}  // namespace
}  // namespace cuzk::engine
