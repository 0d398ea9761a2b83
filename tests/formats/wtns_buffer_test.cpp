// The daemon's witness intake below the engine: a .wtns read into a buffer it owns (never
// mapped), its values located without a copy and aligned for Fr::Int, and one range check
// that names the first bad index on any number of threads.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
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

}  // namespace
}  // namespace cuzk::formats
