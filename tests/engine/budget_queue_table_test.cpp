// The engine's building blocks on their own: memory budgets, priority queues, job table.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "engine/kernel_lock.hpp"
#include "engine/memory_budget.hpp"
#include "engine/memory_job_table.hpp"
#include "engine/priority_queue.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

TEST(MemoryBudget, ReservationReturnsItsBytesWhenDestroyed) {
  MemoryBudget b("test", 100);
  {
    auto r = b.try_reserve(60, Priority::kNormal);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(b.in_use(), 60u);
    EXPECT_FALSE(b.try_reserve(50, Priority::kNormal).is_ok());
  }
  EXPECT_EQ(b.in_use(), 0u);
  EXPECT_EQ(b.peak(), 60u);
}

TEST(MemoryBudget, ReserveWaitsUntilBytesAreFreed) {
  MemoryBudget b("test", 100);
  auto first = b.try_reserve(80, Priority::kNormal);
  ASSERT_TRUE(first.is_ok());
  auto waiter = std::async(std::launch::async, [&] { return b.reserve(50, Priority::kNormal, {}).is_ok(); });
  EXPECT_EQ(waiter.wait_for(50ms), std::future_status::timeout);
  first->release();
  EXPECT_TRUE(waiter.get());
}

TEST(MemoryBudget, RejectsWhatCanNeverFitAtOnce) {
  MemoryBudget b("test", 100);
  auto r = b.reserve(101, Priority::kNormal, {});
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
}

TEST(MemoryBudget, KeepsTheCriticalReserveFromLowerPriorities) {
  MemoryBudget b("test", 100, 30);
  EXPECT_FALSE(b.try_reserve(80, Priority::kHigh).is_ok());
  EXPECT_FALSE(b.can_ever_fit(80, Priority::kHigh));
  auto normal = b.try_reserve(70, Priority::kNormal);
  ASSERT_TRUE(normal.is_ok());
  EXPECT_TRUE(b.try_reserve(30, Priority::kCritical).is_ok());
}

TEST(MemoryBudget, CancelledWaitReturnsUnavailable) {
  MemoryBudget b("test", 100);
  auto hold = b.try_reserve(100, Priority::kNormal);
  std::stop_source stop;
  auto waiter = std::async(std::launch::async, [&] { return b.reserve(10, Priority::kNormal, stop.get_token()); });
  std::this_thread::sleep_for(20ms);
  stop.request_stop();
  auto r = waiter.get();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(b.in_use(), 100u);
}

TEST(PriorityQueue, PopsHighestPriorityFirstAndFifoWithinAPriority) {
  PriorityQueue<int> q(10);
  ASSERT_TRUE(q.push(1, Priority::kNormal));
  ASSERT_TRUE(q.push(2, Priority::kLow));
  ASSERT_TRUE(q.push(3, Priority::kNormal));
  ASSERT_TRUE(q.push(4, Priority::kCritical));
  ASSERT_TRUE(q.push(5, Priority::kHigh));
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) order.push_back(*q.pop());
  EXPECT_EQ(order, (std::vector<int>{4, 5, 1, 3, 2}));
}

TEST(PriorityQueue, TryPushFailsWhenFullAndRemoveIfMakesRoom) {
  PriorityQueue<int> q(2);
  int a = 1, b = 2, c = 3;
  ASSERT_TRUE(q.try_push(a, Priority::kNormal));
  ASSERT_TRUE(q.try_push(b, Priority::kNormal));
  EXPECT_FALSE(q.try_push(c, Priority::kCritical));
  auto removed = q.remove_if([](int x) { return x == 1; });
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_TRUE(q.try_push(c, Priority::kCritical));
  EXPECT_EQ(*q.pop(), 3);
}

TEST(PriorityQueue, CloseDrainsThenEnds) {
  PriorityQueue<int> q(4);
  ASSERT_TRUE(q.push(7, Priority::kNormal));
  q.close();
  EXPECT_FALSE(q.push(8, Priority::kNormal));
  EXPECT_EQ(q.pop().value(), 7);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(PriorityQueue, APopperOfCriticalOnlyLeavesTheRestAndIsWokenForCritical) {
  PriorityQueue<int> q(8);
  ASSERT_TRUE(q.push(1, Priority::kNormal));
  std::promise<int> got;
  std::thread critical_only([&] { got.set_value(q.pop(Priority::kCritical).value_or(-1)); });
  auto f = got.get_future();
  EXPECT_EQ(f.wait_for(30ms), std::future_status::timeout);  // the NORMAL item is not for it
  ASSERT_TRUE(q.push(2, Priority::kHigh));
  EXPECT_EQ(f.wait_for(30ms), std::future_status::timeout);
  ASSERT_TRUE(q.push(3, Priority::kCritical));
  EXPECT_EQ(f.get(), 3);
  critical_only.join();
  EXPECT_EQ(q.pop().value(), 2);
  EXPECT_EQ(q.pop().value(), 1);
  q.close();
  EXPECT_FALSE(q.pop(Priority::kCritical).has_value());
}

TEST(KernelLock, GrantsTheHighestPriorityWaiterFirst) {
  KernelLock lock(/*critical_lane=*/false);
  lock.lock(Priority::kNormal);
  std::mutex mu;
  std::vector<int> order;
  auto waiter = [&](Priority p, int tag) {
    return std::thread([&, p, tag] {
      KernelLock::Guard g(lock, p);
      std::lock_guard l(mu);
      order.push_back(tag);
    });
  };
  std::thread normal = waiter(Priority::kNormal, 1);
  std::this_thread::sleep_for(30ms);  // the NORMAL waiter is first in line...
  std::thread high = waiter(Priority::kHigh, 2);
  std::thread critical = waiter(Priority::kCritical, 3);
  std::this_thread::sleep_for(30ms);
  EXPECT_TRUE(order.empty());  // no lane: the CRITICAL one waits for the proof inside too
  lock.unlock(Priority::kNormal);  // ...but the CRITICAL one is served first, then HIGH
  normal.join();
  high.join();
  critical.join();
  EXPECT_EQ(order, (std::vector<int>{3, 2, 1}));
}

TEST(KernelLock, CriticalLaneEntersBesideALowerPriorityProof) {
  KernelLock lock;  // the lane is on by default
  lock.lock(Priority::kNormal);
  std::atomic<int> stage{0};
  std::thread critical([&] {
    KernelLock::Guard g(lock, Priority::kCritical);
    stage = 1;
    std::this_thread::sleep_for(60ms);
    stage = 2;
  });
  for (int i = 0; i < 200 && stage.load() == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(stage.load(), 1) << "the CRITICAL proof should be inside while the NORMAL one holds the region";
  EXPECT_EQ(lock.inside(), 2);
  // A NORMAL waiter enters neither beside the CRITICAL proof nor after the first NORMAL leaves
  // while the CRITICAL one is still inside.
  std::atomic<bool> normal_in{false};
  std::thread normal([&] {
    KernelLock::Guard g(lock, Priority::kNormal);
    normal_in = true;
    EXPECT_EQ(stage.load(), 2);
  });
  std::this_thread::sleep_for(10ms);
  lock.unlock(Priority::kNormal);
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(normal_in.load());
  critical.join();
  normal.join();
  EXPECT_TRUE(normal_in.load());
  EXPECT_EQ(lock.inside(), 0);
}

TEST(KernelLock, CriticalProofsTakeTheLaneOneAtATime) {
  KernelLock lock;
  lock.lock(Priority::kNormal);
  std::atomic<int> inside{0}, most{0};
  auto critical = [&] {
    KernelLock::Guard g(lock, Priority::kCritical);
    int now = ++inside;
    int m = most.load();
    while (now > m && !most.compare_exchange_weak(m, now)) {
    }
    std::this_thread::sleep_for(20ms);
    --inside;
  };
  std::thread a(critical), b(critical), c(critical);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(most.load(), 1);
  EXPECT_EQ(lock.inside(), 1);  // the NORMAL proof is still inside
  lock.unlock(Priority::kNormal);
}

JobRecord job(const std::string& id, const std::string& request, uint64_t digest) {
  JobRecord j;
  j.job_id = id;
  j.request_id = request;
  j.circuit_id = "c";
  j.payload_digest = digest;
  return j;
}

TEST(JobTable, SameRequestIdReturnsTheSameJob) {
  MemoryJobTable t(3600s, 100);
  auto a = t.insert(job("j1", "r", 42));
  ASSERT_TRUE(a.is_ok());
  EXPECT_FALSE(a->existed);
  auto b = t.insert(job("j2", "r", 42));
  ASSERT_TRUE(b.is_ok());
  EXPECT_TRUE(b->existed);
  EXPECT_EQ(b->record.job_id, "j1");
}

TEST(JobTable, DifferentPayloadUnderAKnownRequestIdIsRejected) {
  MemoryJobTable t(3600s, 100);
  ASSERT_TRUE(t.insert(job("j1", "r", 42)).is_ok());
  auto b = t.insert(job("j2", "r", 43));
  ASSERT_FALSE(b.is_ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
}

TEST(JobTable, KeepsAtMostMaxResultsFinishedJobsAndNeverDropsLiveOnes) {
  MemoryJobTable t(3600s, 2);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(t.insert(job("j" + std::to_string(i), "", 0)).is_ok());
  for (int i = 0; i < 3; ++i) t.finish("j" + std::to_string(i), JobState::kCompleted, Status::ok(), {}, {});
  EXPECT_FALSE(t.get("j0").is_ok());
  EXPECT_TRUE(t.get("j1").is_ok());
  EXPECT_TRUE(t.get("j2").is_ok());
  EXPECT_TRUE(t.get("j3").is_ok());
  EXPECT_EQ(t.in_flight(), 1u);
}

TEST(JobTable, DropsFinishedJobsPastTheirTimeToLive) {
  MemoryJobTable t(0s, 100);
  ASSERT_TRUE(t.insert(job("j0", "r0", 0)).is_ok());
  t.finish("j0", JobState::kCompleted, Status::ok(), {}, {});
  ASSERT_TRUE(t.insert(job("j1", "r0", 1)).is_ok());  // the request id is free again
  EXPECT_FALSE(t.get("j0").is_ok());
}

TEST(JobTable, AwaitTimesOutOnARunningJobAndReturnsAFinishedOne) {
  MemoryJobTable t(3600s, 100);
  ASSERT_TRUE(t.insert(job("j", "", 0)).is_ok());
  auto r = t.await("j", 20ms);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->state, JobState::kQueued);
  auto later = std::async(std::launch::async, [&] { return t.await("j", 5000ms); });
  std::this_thread::sleep_for(10ms);
  t.finish("j", JobState::kFailed, internal_error("x"), {}, {});
  EXPECT_EQ(later.get()->state, JobState::kFailed);
  EXPECT_FALSE(t.finish("j", JobState::kCompleted, Status::ok(), {}, {}));
}

}  // namespace
}  // namespace cuzk::engine
