// The daemon's witness intake below the engine: a .wtns read into a buffer it owns (never
// mapped), its values located without a copy and aligned for Fr::Int, one range check (or
// the one read_file runs on each piece as it reads) that names the first bad index on any
// number of threads, and buffers reused from a bounded pool without showing earlier bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

#include "core/thread_pool.hpp"
#include "ff/fields.hpp"
#include "formats/test_util.hpp"
#include "formats/wtns.hpp"
#include "formats/wtns_buffer.hpp"

namespace cuzk::formats {
namespace {

using Fr = bls12_381::Fr;
using Int = Fr::Int;

class WtnsBufferTest : public ::testing::Test {
 protected:
  // A .wtns of n random values below r (value 0 = 1).
  std::string write_witness(size_t n) {
    std::vector<Int> v(n);
    std::mt19937_64 rng(n);
    for (auto& x : v) x = Fr::random(rng).to_canonical();
    v[0] = Int::from_u64(1);
    std::string path = dir_.file(std::to_string(n) + ".wtns");
    EXPECT_TRUE(write_wtns<Fr>(path, v).is_ok());
    values_ = v;
    return path;
  }

  // A .wtns of `v`, whatever its values.
  std::string write_values(const std::vector<Int>& v, const std::string& name) {
    std::string path = dir_.file(name);
    EXPECT_TRUE(write_wtns<Fr>(path, v).is_ok());
    return path;
  }

  testing::ScratchDir dir_;
  std::vector<Int> values_;
};

TEST_F(WtnsBufferTest, ReadFileHoldsTheBytesWithTheValuesAlignedAndLocated) {
  std::string path = write_witness(70000);
  auto b = WtnsBuffer::read_file(path, uint64_t(1) << 30);
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  EXPECT_EQ(b->size(), std::filesystem::file_size(path));
  auto at = locate_wtns<Fr>(b->bytes(), "w.wtns");
  ASSERT_TRUE(at.is_ok()) << at.status().to_string();
  EXPECT_EQ(at->n, 70000u);
  EXPECT_EQ(at->values_offset, WtnsBuffer::kValuesOffset);
  auto tail = b->align_from(at->values_offset, WtnsBuffer::kAlign);
  EXPECT_EQ(tail.data(), b->data() + at->values_offset);  // already aligned: not moved
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tail.data()) % WtnsBuffer::kAlign, 0u);
  EXPECT_EQ(std::memcmp(tail.data(), values_.data(), values_.size() * sizeof(Int)), 0);
}

TEST_F(WtnsBufferTest, ReadOnAPoolGivesTheSameBytes) {
  std::string path = write_witness(600000);  // 19 MB: three 8 MiB pieces
  ThreadPool four(4);
  auto alone = WtnsBuffer::read_file(path, uint64_t(1) << 30);
  auto pooled = WtnsBuffer::read_file(path, uint64_t(1) << 30, &four);
  ASSERT_TRUE(alone.is_ok() && pooled.is_ok());
  ASSERT_EQ(alone->size(), pooled->size());
  EXPECT_EQ(std::memcmp(alone->data(), pooled->data(), alone->size()), 0);
}

TEST_F(WtnsBufferTest, AdoptedStringIsAlignedInPlaceWithItsValuesIntact) {
  std::string path = write_witness(1000);
  auto bytes = testing::read_bytes(path);
  auto b = WtnsBuffer::adopt(std::string(bytes.begin(), bytes.end()));
  WtnsBuffer moved = std::move(b);  // the buffer may move before it is aligned
  auto tail = moved.align_from(WtnsBuffer::kValuesOffset, alignof(Int));
  ASSERT_EQ(tail.size(), values_.size() * sizeof(Int));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tail.data()) % alignof(Int), 0u);
  EXPECT_EQ(std::memcmp(tail.data(), values_.data(), tail.size()), 0);
}

TEST_F(WtnsBufferTest, ReadFileRefusesMissingOversizeAndNonRegularFiles) {
  EXPECT_EQ(WtnsBuffer::read_file(dir_.file("none.wtns"), 1 << 20).status().code(), StatusCode::kNotFound);
  std::string path = write_witness(100);
  auto big = WtnsBuffer::read_file(path, 100);
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(big.status().message().find("max_witness_bytes"), std::string::npos);
  EXPECT_EQ(WtnsBuffer::read_file(dir_.file(""), 1 << 20).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(WtnsBufferTest, BufferOutlivesItsFileBeingTruncated) {
  std::string path = write_witness(5000);
  auto b = WtnsBuffer::read_file(path, uint64_t(1) << 30);
  ASSERT_TRUE(b.is_ok());
  std::filesystem::resize_file(path, 0);  // under a mapping, the next read would raise SIGBUS
  auto at = locate_wtns<Fr>(b->bytes(), "w.wtns");
  ASSERT_TRUE(at.is_ok());
  auto tail = b->align_from(at->values_offset, alignof(Int));
  std::span<const Int> v{reinterpret_cast<const Int*>(tail.data()), at->n};
  EXPECT_TRUE(check_wtns_values<Fr>(v, at->where).is_ok());
  EXPECT_EQ(v.back(), values_.back());
}

TEST_F(WtnsBufferTest, RangeCheckNamesTheFirstBadIndexOnAnyPool) {
  std::vector<Int> v(300000);
  std::mt19937_64 rng(7);
  for (auto& x : v) x = Fr::random(rng).to_canonical();
  v[0] = Int::from_u64(1);
  ThreadPool one(1), four(4);
  EXPECT_TRUE(check_wtns_values<Fr>(v, "w", &four).is_ok());
  const size_t n = v.size();
  for (size_t bad : {size_t(1), n / 2, n - 1}) {
    std::vector<Int> w = v;
    w[bad] = Fr::MODULUS;                               // r itself is the smallest value out of range
    if (bad + 70000 < n) w[bad + 70000] = Fr::MODULUS;  // a later one, in another thread's piece
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &one, &four}) {
      Status s = check_wtns_values<Fr>(w, "w", pool);
      EXPECT_EQ(s.code(), StatusCode::kDataLoss);
      EXPECT_EQ(s.message(), "w: value " + std::to_string(bad) + " is not reduced below r");
    }
  }
  v[0] = Int::from_u64(2);
  EXPECT_EQ(check_wtns_values<Fr>(v, "w", &four).message(), "w: value 0 (the constant wire) must be 1");
}

TEST_F(WtnsBufferTest, RangeCheckWhileReadingNamesTheFirstBadIndexOnAnyPool) {
  // 1.1M values, 35 MB: four 8 MiB pieces on four threads, values straddling their seams.
  const size_t n = 1100000;
  std::vector<Int> v(n);
  std::mt19937_64 rng(11);
  for (auto& x : v) x = Fr::random(rng).to_canonical();
  v[0] = Int::from_u64(1);
  const ValueScan scan = wtns_value_scan<Fr>();
  ThreadPool one(1), four(4);
  const size_t file_bytes = WtnsBuffer::kValuesOffset + n * 32;
  // The value holding byte `at` of the file (a seam when the read splits there).
  auto value_at_byte = [&](size_t at) { return (at - WtnsBuffer::kValuesOffset) / 32; };
  struct Case {
    std::vector<size_t> bad;
    size_t want;
  };
  std::vector<Case> cases = {
      {{}, n},                                                           // all good
      {{1}, 1},                                                          // first
      {{n / 2}, n / 2},                                                  // middle
      {{n - 1}, n - 1},                                                  // last, in the last piece
      {{value_at_byte(file_bytes / 4)}, value_at_byte(file_bytes / 4)},  // at a seam of four pieces
      {{value_at_byte(file_bytes / 2)}, value_at_byte(file_bytes / 2)},  // at a seam of two
      {{n - 5, n / 4 + 10}, n / 4 + 10},                                 // in two pieces at once: the smaller
      {{value_at_byte(file_bytes / 4), 2}, 2},
  };
  for (const Case& c : cases) {
    std::vector<Int> w = v;
    for (size_t i : c.bad) w[i] = Fr::MODULUS;
    const std::string path = write_values(w, "bad.wtns");
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &one, &four}) {
      auto b = WtnsBuffer::read_file(path, uint64_t(1) << 30, pool, &scan);
      ASSERT_TRUE(b.is_ok()) << b.status().to_string();
      ASSERT_NE(b->scanned(), nullptr);
      EXPECT_EQ(b->scanned()->count, n);
      EXPECT_EQ(b->scanned()->first_bad, c.want) << (pool ? pool->size() : 0);
      // borrow_wtns_values answers from the scan, with the message of the separate check.
      auto at = locate_wtns<Fr>(b->bytes(), "w.wtns");
      ASSERT_TRUE(at.is_ok());
      auto values = borrow_wtns_values<Fr>(*b, *at, pool);
      if (c.want == n) {
        ASSERT_TRUE(values.is_ok()) << values.status().to_string();
        EXPECT_EQ(std::memcmp(values->data(), w.data(), n * sizeof(Int)), 0);
      } else {
        EXPECT_EQ(values.status().code(), StatusCode::kDataLoss);
        EXPECT_EQ(values.status().message(),
                  at->where + ": value " + std::to_string(c.want) + " is not reduced below r");
      }
    }
  }
  std::vector<Int> w = v;
  w[0] = Int::from_u64(2);
  auto b = WtnsBuffer::read_file(write_values(w, "zero.wtns"), uint64_t(1) << 30, &four, &scan);
  ASSERT_TRUE(b.is_ok());
  auto at = locate_wtns<Fr>(b->bytes(), "w.wtns");
  ASSERT_TRUE(at.is_ok());
  EXPECT_EQ(borrow_wtns_values<Fr>(*b, *at).status().message(), at->where + ": value 0 (the constant wire) must be 1");
}

TEST_F(WtnsBufferTest, ReusedBufferHoldsOnlyTheNewShorterWitness) {
  WtnsBufferPool buffers(uint64_t(1) << 30);
  ThreadPool four(4);
  const std::string longer = write_witness(600000);
  const uint8_t* first_at = nullptr;
  {
    auto b = WtnsBuffer::read_file(longer, uint64_t(1) << 30, &four, nullptr, &buffers);
    ASSERT_TRUE(b.is_ok());
    first_at = b->data();
  }
  EXPECT_EQ(buffers.idle_count(), 1u);
  const std::string shorter = write_witness(400000);  // 2/3 of the size: reused
  const auto want = testing::read_bytes(shorter);
  auto b = WtnsBuffer::read_file(shorter, uint64_t(1) << 30, &four, nullptr, &buffers);
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(b->data(), first_at);  // the same mapping
  EXPECT_EQ(buffers.idle_count(), 0u);
  ASSERT_EQ(b->size(), want.size());
  EXPECT_EQ(std::memcmp(b->data(), want.data(), want.size()), 0);
  auto at = locate_wtns<Fr>(b->bytes(), "w.wtns");
  ASSERT_TRUE(at.is_ok());
  EXPECT_EQ(at->n, 400000u);
  auto values = borrow_wtns_values<Fr>(*b, *at, &four);
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  EXPECT_EQ(values->size(), 400000u);
  EXPECT_EQ(std::memcmp(values->data(), values_.data(), values->size_bytes()), 0);
  // A stream's buffer from the pool, overwritten in full by its chunks.
  b = Result<WtnsBuffer>(WtnsBuffer());
  auto s = WtnsBuffer::allocate(want.size(), WtnsBuffer::kValuesOffset, &buffers);
  ASSERT_TRUE(s.is_ok());
  EXPECT_EQ(s->data(), first_at);
  std::memcpy(s->data(), want.data(), want.size());
  EXPECT_EQ(std::memcmp(s->bytes().data(), want.data(), s->size()), 0);
}

TEST_F(WtnsBufferTest, PoolKeepsWithinItsCapAndNotForMuchSmallerWitnesses) {
  const size_t size = size_t(20) << 20;
  {
    WtnsBufferPool buffers(size + (size_t(4) << 20));  // room for one idle buffer, not two
    {
      auto a = WtnsBuffer::allocate(size, WtnsBuffer::kValuesOffset, &buffers);
      auto b = WtnsBuffer::allocate(size, WtnsBuffer::kValuesOffset, &buffers);
      ASSERT_TRUE(a.is_ok() && b.is_ok());
    }
    EXPECT_EQ(buffers.idle_count(), 1u);
    EXPECT_LE(buffers.idle_bytes(), buffers.max_idle_bytes());
    EXPECT_GE(buffers.idle_bytes(), size);
    // Under half the idle one's size: a fresh mapping, the idle one stays.
    auto small = WtnsBuffer::allocate(size / 3, WtnsBuffer::kValuesOffset, &buffers);
    ASSERT_TRUE(small.is_ok());
    EXPECT_EQ(buffers.idle_count(), 1u);
    auto same = WtnsBuffer::allocate(size, WtnsBuffer::kValuesOffset, &buffers);
    ASSERT_TRUE(same.is_ok());
    EXPECT_EQ(buffers.idle_count(), 0u);
  }
  WtnsBufferPool off(0);
  { ASSERT_TRUE(WtnsBuffer::allocate(size, WtnsBuffer::kValuesOffset, &off).is_ok()); }
  EXPECT_EQ(off.idle_count(), 0u);
  EXPECT_EQ(off.idle_bytes(), 0u);
}

TEST_F(WtnsBufferTest, BufferThatOutlivesItsPoolIsUnmappedSafely) {
  auto buffers = std::make_unique<WtnsBufferPool>(uint64_t(1) << 30);
  auto b = WtnsBuffer::allocate(size_t(4) << 20, WtnsBuffer::kValuesOffset, buffers.get());
  ASSERT_TRUE(b.is_ok());
  WtnsBuffer kept = std::move(b).value();
  buffers.reset();
  std::memset(kept.data(), 7, kept.size());  // still mapped
  EXPECT_EQ(kept.data()[kept.size() - 1], 7);
}

}  // namespace
}  // namespace cuzk::formats
