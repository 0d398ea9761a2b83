// Witness intake at admission: the engine's one range check (every value below r, split
// across threads) names the first bad index wherever it is, and a witness the job borrows
// in place (an adopted string, a file read into a buffer) proves the same as a copied one.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "core/thread_pool.hpp"
#include "engine/admission.hpp"
#include "engine/engine_fixture.hpp"
#include "formats/wtns.hpp"
#include "formats/wtns_buffer.hpp"

namespace cuzk::engine {
namespace {

using testing::EngineFixture;

constexpr size_t kValues = formats::WtnsBuffer::kValuesOffset;  // of value 0 in a .wtns of 32-byte values

class WitnessIntakeTest : public EngineFixture {
 protected:
  void SetUp() override { e_ = make_engine(EngineConfig{}); }
  void TearDown() override {
    if (e_) e_->shutdown(std::chrono::seconds(0));
  }

  size_t n_values() const { return (small_->wtns.size() - kValues) / 32; }
  // The demo witness with value `i` set to 2^256 - 1 (>= r).
  std::vector<uint8_t> unreduced_at(size_t i) const {
    std::vector<uint8_t> w = small_->wtns;
    std::memset(w.data() + kValues + 32 * i, 0xff, 32);
    return w;
  }
  Status submit_owned(std::shared_ptr<formats::WtnsBuffer> b, std::string* job = nullptr) {
    SubmitRequest r = request("small");
    r.wtns = {};
    r.wtns_buffer = std::move(b);
    auto s = e_->submit(r);
    if (s.is_ok() && job) *job = s->job_id;
    return s.status();
  }

  void wait_for_zero_host() {
    EXPECT_TRUE(eventually([&] { return e_->host_memory().in_use() == 0; }));
  }

  std::unique_ptr<Engine> e_;
};

TEST_F(WitnessIntakeTest, UnreducedValueAtFirstMiddleOrLastIndexIsInvalidArgumentNamingIt) {
  const size_t n = n_values();
  ASSERT_GT(n, 3u);
  for (size_t i : {size_t(1), n / 2, n - 1}) {
    std::vector<uint8_t> bad = unreduced_at(i);
    const std::string want = "value " + std::to_string(i) + " is not reduced below r";
    SubmitRequest r = request("small");
    r.wtns = bad;
    Status copied = e_->submit(r).status();
    EXPECT_EQ(copied.code(), StatusCode::kInvalidArgument) << i;
    EXPECT_NE(copied.message().find(want), std::string::npos) << copied.message();
    // The same through a buffer the job would have borrowed (an adopted request string).
    Status borrowed = submit_owned(
        std::make_shared<formats::WtnsBuffer>(formats::WtnsBuffer::adopt(std::string(bad.begin(), bad.end()))));
    EXPECT_EQ(borrowed.code(), StatusCode::kInvalidArgument) << i;
    EXPECT_NE(borrowed.message().find(want), std::string::npos) << borrowed.message();
  }
  // The same read from a file with the range check run while reading.
  const formats::ValueScan scan = formats::wtns_value_scan<bn254::Fr>();
  for (size_t i : {size_t(1), n / 2, n - 1}) {
    const std::string path = dir_->file("unreduced-" + std::to_string(i) + ".wtns");
    testing::write_bytes(path, unreduced_at(i));
    auto file = formats::WtnsBuffer::read_file(path, uint64_t(1) << 30, e_->intake_pool(), &scan);
    ASSERT_TRUE(file.is_ok()) << file.status().to_string();
    ASSERT_NE(file->scanned(), nullptr);
    Status s = submit_owned(std::make_shared<formats::WtnsBuffer>(std::move(file).value()));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << i;
    EXPECT_NE(s.message().find("value " + std::to_string(i) + " is not reduced below r"), std::string::npos)
        << s.message();
  }
  std::vector<uint8_t> zero = unreduced_at(0);
  SubmitRequest r = request("small");
  r.wtns = zero;
  Status constant = e_->submit(r).status();
  EXPECT_EQ(constant.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(constant.message().find("value 0 (the constant wire) must be 1"), std::string::npos) << constant.message();
  EXPECT_TRUE(e_->jobs(std::nullopt, 0).empty());
  wait_for_zero_host();
}

TEST_F(WitnessIntakeTest, WrongLengthAndTruncatedWitnessesAreInvalidArgument) {
  std::vector<uint8_t> shorter(small_->wtns.begin(), small_->wtns.end() - 32);
  auto owned = [](const std::vector<uint8_t>& b) {
    return std::make_shared<formats::WtnsBuffer>(formats::WtnsBuffer::adopt(std::string(b.begin(), b.end())));
  };
  Status s = submit_owned(owned(shorter));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.message();
  // A well-formed .wtns with one value too few: the key's nVars names the mismatch.
  auto values = formats::parse_wtns<bn254::Fr>(small_->wtns, "small.wtns");
  ASSERT_TRUE(values.is_ok());
  values->values.pop_back();
  const std::string fewer = dir_->file("fewer.wtns");
  ASSERT_TRUE(formats::write_wtns<bn254::Fr>(fewer, values->values).is_ok());
  s = submit_owned(owned(testing::read_bytes(fewer)));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("the circuit's key needs " + std::to_string(n_values())), std::string::npos)
      << s.message();
  std::vector<uint8_t> header_only(small_->wtns.begin(), small_->wtns.begin() + kValues - 12);
  EXPECT_EQ(submit_owned(owned(header_only)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(submit_owned(owned({})).code(), StatusCode::kInvalidArgument);
}

TEST_F(WitnessIntakeTest, BorrowedWitnessesProveAndCarryTheirAdmissionTime) {
  // An adopted string (values 4 bytes off alignment: moved in place), a file read into a
  // buffer and a copied span: all three verify.
  std::string job_adopted, job_file;
  auto adopted = std::make_shared<formats::WtnsBuffer>(
      formats::WtnsBuffer::adopt(std::string(small_->wtns.begin(), small_->wtns.end())));
  ASSERT_TRUE(submit_owned(adopted, &job_adopted).is_ok());
  EXPECT_EQ(adopted->size(), 0u);  // the job took the bytes
  auto file = formats::WtnsBuffer::read_file(small_->wtns_path, uint64_t(1) << 30);
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  ASSERT_TRUE(submit_owned(std::make_shared<formats::WtnsBuffer>(std::move(file).value()), &job_file).is_ok());
  auto copied = e_->submit(request("small"));
  ASSERT_TRUE(copied.is_ok());
  for (const std::string& id : {job_adopted, job_file, copied->job_id}) {
    JobRecord rec = finished(*e_, id);
    expect_verifies(rec);
    EXPECT_GT(rec.timings.admission_ms, 0);
    EXPECT_GE(rec.timings.total_ms, rec.timings.admission_ms);
  }
  EXPECT_TRUE(logged("admission_ms="));
  wait_for_zero_host();
}

TEST_F(WitnessIntakeTest, WitnessFileDeletedOrTruncatedAfterSubmissionStillProves) {
  const std::string path =
      dir_->file("intake-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".wtns");
  for (bool truncate : {true, false}) {
    testing::write_bytes(path, small_->wtns);
    auto file = formats::WtnsBuffer::read_file(path, uint64_t(1) << 30);
    ASSERT_TRUE(file.is_ok());
    std::string job;
    ASSERT_TRUE(submit_owned(std::make_shared<formats::WtnsBuffer>(std::move(file).value()), &job).is_ok());
    if (truncate) {
      std::filesystem::resize_file(path, 10);
    } else {
      std::filesystem::remove(path);
    }
    expect_verifies(finished(*e_, job));
  }
}

TEST_F(WitnessIntakeTest, ReusedBuffersScannedWhileReadingProveTheSame) {
  // Each job's buffer goes back to the pool when its proof is done and the next job reads
  // into it: the proofs verify with the same public signals as a fresh buffer's.
  formats::WtnsBufferPool buffers(uint64_t(1) << 30);
  const formats::ValueScan scan = formats::wtns_value_scan<bn254::Fr>();
  std::vector<std::string> publics;
  for (int round = 0; round < 3; ++round) {
    auto file = formats::WtnsBuffer::read_file(small_->wtns_path, uint64_t(1) << 30, e_->intake_pool(), &scan,
                                               round == 0 ? nullptr : &buffers);
    ASSERT_TRUE(file.is_ok()) << file.status().to_string();
    if (round > 0) {
      EXPECT_EQ(buffers.idle_count(), 0u) << round;  // taken from the pool
    }
    std::string job;
    ASSERT_TRUE(submit_owned(std::make_shared<formats::WtnsBuffer>(std::move(file).value()), &job).is_ok());
    JobRecord rec = finished(*e_, job);
    expect_verifies(rec);
    publics.push_back(rec.result.public_json);
    wait_for_zero_host();
    if (round == 0) {
      // A first buffer from the pool, for the next rounds to reuse.
      auto seed = formats::WtnsBuffer::allocate(small_->wtns.size(), formats::WtnsBuffer::kValuesOffset, &buffers);
      ASSERT_TRUE(seed.is_ok());
      std::memset(seed->data(), 0xff, seed->size());  // an earlier "witness" of bytes no value may hold
    }
    EXPECT_TRUE(eventually([&] { return buffers.idle_count() == 1; })) << round;
  }
  EXPECT_EQ(publics[1], publics[0]);
  EXPECT_EQ(publics[2], publics[0]);
}

TEST(PayloadDigest, IsTheSameOnAnyPoolAndChangesWithOneByte) {
  std::vector<uint8_t> bytes((size_t(9) << 20) + 77);  // three 4 MiB blocks, the last partial
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 131 + (i >> 12));
  ThreadPool one(1), three(3);
  const uint64_t d = payload_digest("c", bytes);
  EXPECT_EQ(payload_digest("c", bytes, &one), d);
  EXPECT_EQ(payload_digest("c", bytes, &three), d);
  EXPECT_NE(payload_digest("d", bytes, &three), d);
  for (size_t at : {size_t(0), size_t(5) << 20, bytes.size() - 1}) {
    bytes[at] ^= 1;
    EXPECT_NE(payload_digest("c", bytes, &three), d) << at;
    bytes[at] ^= 1;
  }
  bytes.pop_back();
  EXPECT_NE(payload_digest("c", bytes), d);
}

}  // namespace
}  // namespace cuzk::engine
