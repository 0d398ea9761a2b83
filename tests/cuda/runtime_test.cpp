// The RAII wrappers over the CUDA runtime: buffers, streams, events and error statuses.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "cuda_test_util.hpp"

namespace cuzk::cuda {
namespace {

TEST(CudaStatus, NamesTheCudaErrorAndWhatFailed) {
  Status st = cuda_status(cudaErrorMemoryAllocation, "cudaMalloc(64 bytes)");
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(st.message().find("cudaMalloc(64 bytes)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("cudaErrorMemoryAllocation"), std::string::npos) << st.message();
  EXPECT_TRUE(cuda_status(cudaSuccess, "anything").is_ok());
  EXPECT_EQ(cuda_status(cudaErrorNoDevice, "x").code(), StatusCode::kUnavailable);
}

TEST(CudaStatus, MarksStickyErrors) {
  EXPECT_TRUE(is_sticky_error(cudaErrorIllegalAddress));
  EXPECT_FALSE(is_sticky_error(cudaErrorMemoryAllocation));
  Status st = cuda_status(cudaErrorIllegalAddress, "kernel");
  EXPECT_NE(st.message().find("reset"), std::string::npos) << st.message();
}

TEST(CudaDevice, CountIsNotAnErrorWithoutADevice) {
  auto n = device_count();
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  EXPECT_GE(*n, 0);
}

TEST(DeviceBuffer, EmptyBufferOwnsNothing) {
  auto b = DeviceBuffer<uint64_t>::allocate(0);
  ASSERT_TRUE(b.is_ok());
  EXPECT_TRUE(b->empty());
  EXPECT_EQ(b->data(), nullptr);
  EXPECT_TRUE(b->release().is_ok());
}

TEST(DeviceBuffer, RejectsSizesThatOverflow) {
  auto b = DeviceBuffer<uint64_t>::allocate(SIZE_MAX / 4);
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
}

class DeviceRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    CUZK_SKIP_WITHOUT_DEVICE();
    auto s = Stream::create();
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    stream_.emplace(std::move(s).value());
  }
  std::optional<Stream> stream_;
};

TEST_F(DeviceRuntime, BufferRoundTripsHostData) {
  auto rng = testing::seeded_rng("DeviceRuntime.round_trip");
  std::vector<uint64_t> in(10007);
  for (auto& x : in) x = rng();
  auto b = DeviceBuffer<uint64_t>::allocate(in.size());
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  ASSERT_TRUE(b->upload(in, *stream_).is_ok());
  std::vector<uint64_t> out(in.size(), 0);
  ASSERT_TRUE(b->download(out, *stream_).is_ok());
  ASSERT_TRUE(stream_->synchronize().is_ok());
  EXPECT_EQ(in, out);
}

TEST_F(DeviceRuntime, CopiesOutsideTheBufferAreRejected) {
  auto b = DeviceBuffer<uint32_t>::allocate(16);
  ASSERT_TRUE(b.is_ok());
  std::vector<uint32_t> host(10);
  EXPECT_EQ(b->upload(host, *stream_, 7).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(b->download(host, *stream_, 7).code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(b->upload(host, *stream_, 6).is_ok());
  EXPECT_TRUE(stream_->synchronize().is_ok());
}

TEST_F(DeviceRuntime, FailedAllocationIsResourceExhaustedAndNotSticky) {
  auto huge = DeviceBuffer<uint8_t>::allocate(size_t(1) << 52, "test.huge");  // 4 PiB
  ASSERT_FALSE(huge.is_ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted) << huge.status().to_string();
  // Refused by the allocator's budget before cudaMalloc is tried, naming the site.
  EXPECT_NE(huge.status().message().find("test.huge: cannot allocate"), std::string::npos)
      << huge.status().message();
  EXPECT_NE(huge.status().message().find("budget"), std::string::npos) << huge.status().message();
  // The failure must not poison later work.
  auto small = DeviceBuffer<uint8_t>::allocate(4096);
  ASSERT_TRUE(small.is_ok()) << small.status().to_string();
  EXPECT_TRUE(small->fill_bytes(0, *stream_).is_ok());
  EXPECT_TRUE(stream_->synchronize().is_ok());
}

TEST_F(DeviceRuntime, MemoryReturnsToBaselineWhenBuffersDie) {
  constexpr size_t kBytes = size_t(512) << 20;
  constexpr size_t kSlack = size_t(16) << 20;  // allocation granularity and driver bookkeeping
  auto before = memory_info();
  ASSERT_TRUE(before.is_ok()) << before.status().to_string();
  {
    auto a = DeviceBuffer<uint8_t>::allocate(kBytes);
    ASSERT_TRUE(a.is_ok()) << a.status().to_string();
    DeviceBuffer<uint8_t> moved = std::move(a).value();  // ownership moves, memory is freed once
    auto during = memory_info();
    ASSERT_TRUE(during.is_ok());
    EXPECT_LE(during->free_bytes + kBytes, before->free_bytes + kSlack);
  }
  auto after = memory_info();
  ASSERT_TRUE(after.is_ok());
  EXPECT_GE(after->free_bytes + kSlack, before->free_bytes);
}

TEST_F(DeviceRuntime, MoveLeavesTheSourceEmpty) {
  auto a = DeviceBuffer<uint64_t>::allocate(64);
  ASSERT_TRUE(a.is_ok());
  uint64_t* p = a->data();
  DeviceBuffer<uint64_t> b = std::move(*a);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 64u);
  EXPECT_EQ(a->data(), nullptr);
  EXPECT_EQ(a->size(), 0u);
  DeviceBuffer<uint64_t> c;
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_TRUE(c.release().is_ok());
  EXPECT_EQ(c.data(), nullptr);
}

TEST_F(DeviceRuntime, PinnedBufferFeedsAsyncCopies) {
  auto pinned = PinnedBuffer<uint32_t>::allocate(1 << 20);
  ASSERT_TRUE(pinned.is_ok()) << pinned.status().to_string();
  std::iota(pinned->data(), pinned->data() + pinned->size(), 7u);
  auto dev = DeviceBuffer<uint32_t>::allocate(pinned->size());
  ASSERT_TRUE(dev.is_ok());
  ASSERT_TRUE(dev->upload(pinned->span(), *stream_).is_ok());
  auto back = PinnedBuffer<uint32_t>::allocate(pinned->size());
  ASSERT_TRUE(back.is_ok());
  ASSERT_TRUE(dev->download(back->span(), *stream_).is_ok());
  ASSERT_TRUE(stream_->synchronize().is_ok());
  for (size_t i = 0; i < back->size(); i += 4099) ASSERT_EQ((*back)[i], uint32_t(7 + i));
  EXPECT_EQ((*back)[back->size() - 1], uint32_t(7 + back->size() - 1));
}

TEST_F(DeviceRuntime, EventsTimeAndOrderWork) {
  auto start = Event::create();
  auto stop = Event::create();
  auto marker = Event::create(false);
  ASSERT_TRUE(start.is_ok() && stop.is_ok() && marker.is_ok());
  auto other = Stream::create();
  ASSERT_TRUE(other.is_ok());
  auto buf = DeviceBuffer<uint8_t>::allocate(size_t(64) << 20);
  ASSERT_TRUE(buf.is_ok());

  ASSERT_TRUE(start->record(*stream_).is_ok());
  ASSERT_TRUE(buf->fill_bytes(1, *stream_).is_ok());
  ASSERT_TRUE(stop->record(*stream_).is_ok());
  ASSERT_TRUE(marker->record(*stream_).is_ok());
  // Work on `other` waits for the fill on `stream_`, so reading back sees it.
  ASSERT_TRUE(other->wait(*marker).is_ok());
  std::vector<uint8_t> host(1024, 0);
  ASSERT_TRUE(buf->download(host, *other, buf->size() - host.size()).is_ok());
  ASSERT_TRUE(other->synchronize().is_ok());
  for (uint8_t v : host) ASSERT_EQ(v, 1);

  ASSERT_TRUE(stop->synchronize().is_ok());
  auto ms = Event::elapsed_ms(*start, *stop);
  ASSERT_TRUE(ms.is_ok()) << ms.status().to_string();
  EXPECT_GE(*ms, 0.0f);
  // Timing was disabled on `marker`: asking it for a time is an error, not garbage.
  EXPECT_FALSE(Event::elapsed_ms(*start, *marker).is_ok());
}

// A host function that holds its stream busy for ~100 ms.
void CUDART_CB hold_stream(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

TEST_F(DeviceRuntime, IdleStreamsAndEventsAreReusedBusyOnesAreNot) {
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  auto s = Stream::create();
  ASSERT_TRUE(s.is_ok());
  const cudaStream_t handle = s->get();
  ASSERT_TRUE(s->destroy().is_ok());  // idle: pooled
  const PoolStats before = pool_stats(device);
  auto again = Stream::create();
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->get(), handle);
  EXPECT_EQ(pool_stats(device).reused, before.reused + 1);
  {
    // An urgent stream never comes from the normal streams' pool, and keeps its priority.
    ASSERT_TRUE(again->destroy().is_ok());
    UrgentStreams urgent;
    auto u = Stream::create();
    ASSERT_TRUE(u.is_ok());
    EXPECT_NE(u->get(), handle);
    int least = 0, greatest = 0, prio = 0;
    ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    ASSERT_EQ(cudaStreamGetPriority(u->get(), &prio), cudaSuccess);
    EXPECT_EQ(prio, greatest);
  }
  // Busy when given up: destroyed, not pooled (a stream or event with old work pending would
  // make its next user wait for that work).
  auto busy = Stream::create();
  auto pending = Event::create(false);
  ASSERT_TRUE(busy.is_ok() && pending.is_ok());
  ASSERT_EQ(cudaLaunchHostFunc(busy->get(), hold_stream, nullptr), cudaSuccess);
  ASSERT_TRUE(pending->record(*busy).is_ok());
  const PoolStats held = pool_stats(device);
  ASSERT_TRUE(pending->destroy().is_ok());
  ASSERT_TRUE(busy->destroy().is_ok());
  EXPECT_EQ(pool_stats(device).idle_streams, held.idle_streams);
  EXPECT_EQ(pool_stats(device).idle_events, held.idle_events);
  // A complete event is pooled.
  auto done = Event::create(false);
  ASSERT_TRUE(done.is_ok());
  ASSERT_TRUE(done->record(*stream_).is_ok());
  ASSERT_TRUE(done->synchronize().is_ok());
  ASSERT_TRUE(done->destroy().is_ok());
  EXPECT_EQ(pool_stats(device).idle_events, held.idle_events + 1);
  // Warming fills the pools up to the counts asked (idle ones count), for each kind.
  ASSERT_TRUE(warm_pools(3, 5, 4).is_ok());
  EXPECT_GE(pool_stats(device).idle_streams, 8u);
  EXPECT_GE(pool_stats(device).idle_events, 8u);
  // After forget_pooled (a reset), streams made before it never return to the pool.
  auto old = Stream::create();
  ASSERT_TRUE(old.is_ok());
  forget_pooled(device);
  EXPECT_EQ(pool_stats(device).idle_streams, 0u);
  EXPECT_EQ(pool_stats(device).idle_events, 0u);
  ASSERT_TRUE(old->destroy().is_ok());
  EXPECT_EQ(pool_stats(device).idle_streams, 0u);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace cuzk::cuda
