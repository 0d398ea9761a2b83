// The accounted device allocator (budget, cap, reservations, baseline) and the fault
// injector that the error-path tests are built on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/allocator.hpp"
#include "cuda/cuda_status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"
#include "cuda/stream.hpp"
#include "cuda_test_util.hpp"

namespace cuzk::cuda {
namespace {

constexpr size_t kMiB = size_t(1) << 20;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class FaultInjection : public ::testing::Test {
 protected:
  void TearDown() override { disarm_faults(); }
};

TEST_F(FaultInjection, RejectsMalformedSpecs) {
  for (const char* spec : {"alloc", "alloc:0", "alloc:x", "memory:3", "copy:-1", "kernel:2x"}) {
    Status st = arm_faults(spec);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << spec;
    EXPECT_TRUE(contains(st.message(), spec)) << st.message();
  }
}

TEST_F(FaultInjection, FailsTheNthOperationOfItsKindOnce) {
  ASSERT_TRUE(arm_faults("alloc:3,copy:1").is_ok());
  EXPECT_TRUE(inject_fault(FaultKind::kAlloc, "a").is_ok());
  EXPECT_TRUE(inject_fault(FaultKind::kKernel, "k").is_ok());
  EXPECT_TRUE(inject_fault(FaultKind::kAlloc, "b").is_ok());
  Status st = inject_fault(FaultKind::kAlloc, "site.c");
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(contains(st.message(), "site.c")) << st.message();
  EXPECT_TRUE(inject_fault(FaultKind::kAlloc, "d").is_ok());  // spent
  EXPECT_EQ(inject_fault(FaultKind::kCopy, "copy.x").code(), StatusCode::kInternal);
  EXPECT_EQ(fault_count(FaultKind::kAlloc), 4u);
  EXPECT_EQ(fault_count(FaultKind::kKernel), 1u);
}

TEST_F(FaultInjection, SiteRulesCountOnlyMatchingSites) {
  ASSERT_TRUE(arm_faults("kernel:2@msm").is_ok());
  EXPECT_TRUE(inject_fault(FaultKind::kKernel, "ntt.forward").is_ok());
  EXPECT_TRUE(inject_fault(FaultKind::kKernel, "msm.accumulate").is_ok());
  EXPECT_TRUE(inject_fault(FaultKind::kKernel, "ntt.inverse").is_ok());
  EXPECT_FALSE(inject_fault(FaultKind::kKernel, "msm.reduce").is_ok());
}

TEST_F(FaultInjection, DisarmedInjectsNothing) {
  disarm_faults();
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(inject_fault(FaultKind::kAlloc, "x").is_ok());
}

class Allocator : public ::testing::Test {
 protected:
  void SetUp() override {
    CUZK_SKIP_WITHOUT_DEVICE();
    auto s = Stream::create();
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    stream_.emplace(std::move(s).value());
    auto a = DeviceAllocator::current();
    ASSERT_TRUE(a.is_ok()) << a.status().to_string();
    alloc_ = *a;
    BudgetOptions capped;
    capped.cap_bytes = 64 * kMiB;
    ASSERT_TRUE(alloc_->configure(capped).is_ok());
  }
  void TearDown() override {
    disarm_faults();
    if (alloc_ != nullptr) {
      EXPECT_TRUE(alloc_->configure(BudgetOptions{}).is_ok());
    }
  }

  DeviceAllocator* alloc_ = nullptr;
  std::optional<Stream> stream_;
};

TEST_F(Allocator, BudgetIsFreeMemoryMinusMarginWithinTheCap) {
  ASSERT_TRUE(alloc_->configure(BudgetOptions{}).is_ok());
  const AllocatorStats s = alloc_->stats();
  EXPECT_GT(s.total_bytes, 0u);
  EXPECT_EQ(s.budget_bytes, s.total_bytes - s.baseline_used - BudgetOptions{}.safety_margin_bytes);
  BudgetOptions capped;
  capped.cap_bytes = 64 * kMiB;
  ASSERT_TRUE(alloc_->configure(capped).is_ok());
  EXPECT_EQ(alloc_->stats().budget_bytes, 64 * kMiB);
}

TEST_F(Allocator, AllocationsAreCountedAndFreed) {
  {
    auto a = DeviceBuffer<uint64_t>::allocate(kMiB, "test.a");  // 8 MiB
    ASSERT_TRUE(a.is_ok()) << a.status().to_string();
    auto b = DeviceBuffer<uint8_t>::allocate(3 * kMiB, "test.b");
    ASSERT_TRUE(b.is_ok());
    const AllocatorStats s = alloc_->stats();
    EXPECT_EQ(s.allocated_bytes, 11 * kMiB);
    EXPECT_EQ(s.allocations, 2u);
    EXPECT_EQ(s.peak_bytes, 11 * kMiB);
    EXPECT_TRUE(a->release().is_ok());
    EXPECT_EQ(alloc_->stats().allocated_bytes, 3 * kMiB);
  }
  EXPECT_EQ(alloc_->stats().allocated_bytes, 0u);
  EXPECT_TRUE(alloc_->check_baseline().is_ok()) << alloc_->check_baseline().to_string();
}

TEST_F(Allocator, OverBudgetFailsBeforeCudaMallocNamingTheSite) {
  auto held = DeviceBuffer<uint8_t>::allocate(40 * kMiB, "test.held");
  ASSERT_TRUE(held.is_ok());
  auto big = DeviceBuffer<uint8_t>::allocate(30 * kMiB, "test.too_big");
  ASSERT_FALSE(big.is_ok());
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  const std::string& m = big.status().message();
  EXPECT_TRUE(contains(m, "test.too_big")) << m;
  EXPECT_TRUE(contains(m, "30.0 MiB")) << m;
  EXPECT_TRUE(contains(m, "40.0 MiB allocated")) << m;
  EXPECT_TRUE(contains(m, "24.0 MiB available")) << m;
  EXPECT_EQ(alloc_->stats().allocated_bytes, 40 * kMiB);
}

TEST_F(Allocator, ReservationsHoldBudgetAndFeedAllocations) {
  auto r = alloc_->reserve(48 * kMiB, "test.stage");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_FALSE(alloc_->fits(20 * kMiB));
  auto outside = DeviceBuffer<uint8_t>::allocate(20 * kMiB, "test.outside");
  EXPECT_EQ(outside.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(alloc_->reserve(17 * kMiB, "test.second").status().code(), StatusCode::kResourceExhausted);
  {
    auto inside = DeviceBuffer<uint8_t>::allocate(32 * kMiB, "test.inside", &*r);
    ASSERT_TRUE(inside.is_ok()) << inside.status().to_string();
    EXPECT_EQ(r->unused_bytes(), 16 * kMiB);
    auto over = DeviceBuffer<uint8_t>::allocate(17 * kMiB, "test.over", &*r);
    EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
    EXPECT_TRUE(contains(over.status().message(), "test.stage")) << over.status().message();
    const AllocatorStats s = alloc_->stats();
    EXPECT_EQ(s.allocated_bytes, 32 * kMiB);
    EXPECT_EQ(s.reserved_bytes, 16 * kMiB);
  }
  EXPECT_EQ(r->unused_bytes(), 48 * kMiB);  // freed bytes return to the open reservation
  r->release();
  EXPECT_EQ(alloc_->stats().reserved_bytes, 0u);
  EXPECT_TRUE(alloc_->fits(64 * kMiB));
}

TEST_F(Allocator, BuffersMayOutliveTheirReservation) {
  std::optional<DeviceBuffer<uint8_t>> kept;
  {
    auto r = alloc_->reserve(16 * kMiB, "test.stage");
    ASSERT_TRUE(r.is_ok());
    auto b = DeviceBuffer<uint8_t>::allocate(8 * kMiB, "test.kept", &*r);
    ASSERT_TRUE(b.is_ok());
    kept.emplace(std::move(b).value());
  }
  EXPECT_EQ(alloc_->stats().reserved_bytes, 0u);
  EXPECT_EQ(alloc_->stats().allocated_bytes, 8 * kMiB);
  kept.reset();
  const AllocatorStats s = alloc_->stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.reserved_bytes, 0u);
}

TEST_F(Allocator, ConfigureRefusesWhileMemoryIsHeld) {
  auto b = DeviceBuffer<uint8_t>::allocate(kMiB, "test.held");
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(alloc_->configure(BudgetOptions{}).code(), StatusCode::kFailedPrecondition);
}

TEST_F(Allocator, InjectedAllocationFaultLeavesNothingBehind) {
  ASSERT_TRUE(arm_faults("alloc:2").is_ok());
  auto first = DeviceBuffer<uint8_t>::allocate(kMiB, "test.first");
  ASSERT_TRUE(first.is_ok());
  auto second = DeviceBuffer<uint8_t>::allocate(kMiB, "test.second");
  ASSERT_FALSE(second.is_ok());
  EXPECT_TRUE(contains(second.status().message(), "injected alloc fault at test.second")) << second.status().message();
  EXPECT_EQ(alloc_->stats().allocated_bytes, kMiB);
}

TEST_F(Allocator, InjectedCopyAndLaunchFaultsAreStatuses) {
  auto b = DeviceBuffer<uint32_t>::allocate(16, "test.copy");
  ASSERT_TRUE(b.is_ok());
  std::vector<uint32_t> host(16, 7);
  ASSERT_TRUE(arm_faults("copy:1,kernel:1").is_ok());
  Status up = b->upload(host, *stream_);
  EXPECT_EQ(up.code(), StatusCode::kInternal);
  EXPECT_TRUE(contains(up.message(), "DeviceBuffer::upload")) << up.message();
  EXPECT_TRUE(b->upload(host, *stream_).is_ok());
  EXPECT_FALSE(check_launch("test.kernel").is_ok());
  EXPECT_TRUE(check_launch("test.kernel").is_ok());
  EXPECT_TRUE(stream_->synchronize().is_ok());
}

TEST_F(Allocator, BaselineCheckReportsHeldMemory) {
  auto b = DeviceBuffer<uint8_t>::allocate(8 * kMiB, "test.held");
  ASSERT_TRUE(b.is_ok());
  Status st = alloc_->check_baseline();
  EXPECT_FALSE(st.is_ok());
  EXPECT_TRUE(contains(st.message(), "8.0 MiB in 1 allocations still held")) << st.message();
  EXPECT_TRUE(alloc_->check_baseline(8 * kMiB).is_ok()) << alloc_->check_baseline(8 * kMiB).to_string();
}

TEST_F(Allocator, KeptBlocksAreReusedByTheSameSizeAndTrimmedOnDemand) {
  BudgetOptions keep;
  keep.cap_bytes = 64 * kMiB;
  keep.cache_freed = true;
  ASSERT_TRUE(alloc_->configure(keep).is_ok());
  void* first = nullptr;
  {
    auto a = DeviceBuffer<uint8_t>::allocate(8 * kMiB, "test.kept");
    ASSERT_TRUE(a.is_ok()) << a.status().to_string();
    first = a->data();
  }
  AllocatorStats s = alloc_->stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.cached_bytes, 8 * kMiB);
  EXPECT_TRUE(alloc_->check_baseline().is_ok()) << alloc_->check_baseline().to_string();
  {
    auto again = DeviceBuffer<uint8_t>::allocate(8 * kMiB, "test.kept");  // the kept block
    ASSERT_TRUE(again.is_ok());
    EXPECT_EQ(again->data(), first);
    EXPECT_EQ(alloc_->stats().cached_bytes, 0u);
    EXPECT_EQ(alloc_->stats().cache_hits, s.cache_hits + 1);
    auto other = DeviceBuffer<uint8_t>::allocate(4 * kMiB, "test.other");  // no kept block of that size
    ASSERT_TRUE(other.is_ok());
    EXPECT_NE(other->data(), first);
    // The budget still counts only live allocations: kept blocks are not allocated bytes.
    EXPECT_EQ(alloc_->stats().allocated_bytes, 12 * kMiB);
  }
  EXPECT_EQ(alloc_->stats().cached_bytes, 12 * kMiB);
  // An injected allocation fault still fails the allocation a kept block could have served.
  ASSERT_TRUE(arm_faults("alloc:1").is_ok());
  EXPECT_FALSE(DeviceBuffer<uint8_t>::allocate(8 * kMiB, "test.kept").is_ok());
  disarm_faults();
  ASSERT_TRUE(alloc_->trim().is_ok());
  EXPECT_EQ(alloc_->stats().cached_bytes, 0u);
  EXPECT_TRUE(alloc_->check_baseline().is_ok()) << alloc_->check_baseline().to_string();
  ASSERT_TRUE(alloc_->configure(BudgetOptions{}).is_ok());
}

TEST_F(Allocator, KeptBlocksServeDriftingSizesOfOneClass) {
  BudgetOptions keep;
  keep.cap_bytes = 64 * kMiB;
  keep.cache_freed = true;
  ASSERT_TRUE(alloc_->configure(keep).is_ok());
  const AllocatorStats s0 = alloc_->stats();
  void* first = nullptr;
  {
    // 5 MiB + 100 KiB: its class is 5.5 MiB (an eighth of 4 MiB is the step).
    auto a = DeviceBuffer<uint8_t>::allocate(5 * kMiB + 100 * 1024, "test.drift");
    ASSERT_TRUE(a.is_ok()) << a.status().to_string();
    first = a->data();
    const AllocatorStats s = alloc_->stats();
    EXPECT_EQ(s.allocated_bytes, 5 * kMiB + 100 * 1024);  // the budget is charged what was asked
    EXPECT_EQ(s.rounding_bytes, 412u * 1024);  // 5.5 MiB - (5 MiB + 100 KiB)
    EXPECT_EQ(s.cache_misses, s0.cache_misses + 1);
    EXPECT_TRUE(alloc_->check_baseline(s.allocated_bytes).is_ok()) << alloc_->check_baseline(s.allocated_bytes).to_string();
  }
  EXPECT_EQ(alloc_->stats().cached_bytes, 5 * kMiB + 512 * 1024);
  EXPECT_EQ(alloc_->stats().rounding_bytes, 0u);
  {
    // A little more, the same class: the kept block, no cudaMalloc.
    auto b = DeviceBuffer<uint8_t>::allocate(5 * kMiB + 300 * 1024, "test.drift");
    ASSERT_TRUE(b.is_ok());
    EXPECT_EQ(b->data(), first);
    EXPECT_EQ(alloc_->stats().cache_hits, s0.cache_hits + 1);
    EXPECT_EQ(alloc_->stats().cache_misses, s0.cache_misses + 1);
  }
  {
    // A smaller class does not take the kept block (it would hold more than its rounding allows).
    auto c = DeviceBuffer<uint8_t>::allocate(3 * kMiB, "test.drift.small");
    ASSERT_TRUE(c.is_ok());
    EXPECT_NE(c->data(), first);
    EXPECT_EQ(alloc_->stats().cache_misses, s0.cache_misses + 2);
    EXPECT_EQ(alloc_->stats().cached_bytes, 5 * kMiB + 512 * 1024);
  }
  ASSERT_TRUE(alloc_->trim().is_ok());
  EXPECT_EQ(alloc_->stats().trims, s0.trims + 1);
  EXPECT_EQ(alloc_->stats().cached_bytes, 0u);
  EXPECT_TRUE(alloc_->check_baseline().is_ok()) << alloc_->check_baseline().to_string();

  // Near the budget the rounding is not taken: what the budget admits must fit.
  keep.cap_bytes = 5 * kMiB + 200 * 1024;
  ASSERT_TRUE(alloc_->configure(keep).is_ok());
  {
    auto d = DeviceBuffer<uint8_t>::allocate(5 * kMiB + 100 * 1024, "test.drift.tight");
    ASSERT_TRUE(d.is_ok()) << d.status().to_string();
    EXPECT_EQ(alloc_->stats().rounding_bytes, 0u);
  }
  EXPECT_EQ(alloc_->stats().cached_bytes, 5 * kMiB + 100 * 1024);
  ASSERT_TRUE(alloc_->trim().is_ok());
  ASSERT_TRUE(alloc_->configure(BudgetOptions{}).is_ok());
}

}  // namespace
}  // namespace cuzk::cuda
