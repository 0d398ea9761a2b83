// The device NTT and H steps (cuda/ntt/ntt.hpp) against poly's, bit for bit, on fresh random
// inputs every run (the seed is printed) and on edge inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/allocator.hpp"
#include "cuda/cuda_test_util.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/stream.hpp"
#include "ff/fields.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"

namespace cuzk::cuda {
namespace {

using testing::seeded_rng;

constexpr uint8_t kPoison = 0xA5;  // 0xA5.. is >= both moduli: never a valid output

ThreadPool& pool() {
  static ThreadPool p;
  return p;
}

template <class F>
struct Curve;
template <>
struct Curve<bn254::Fr> {
  static constexpr const char* kName = "bn254";
  static constexpr uint64_t kGenerator = 5;
};
template <>
struct Curve<bls12_381::Fr> {
  static constexpr const char* kName = "bls12_381";
  static constexpr uint64_t kGenerator = 7;
};

struct CurveNames {
  template <class F>
  static std::string GetName(int) {
    return Curve<F>::kName;
  }
};

// n random elements, generated in parallel from one seed so that 2^27 takes a moment.
template <class F>
std::vector<F> random_vec(size_t n, std::mt19937_64& rng) {
  std::vector<F> v(n);
  const uint64_t base = rng();
  constexpr size_t kChunk = size_t(1) << 16;
  pool().parallel_for(0, (n + kChunk - 1) / kChunk, [&](size_t lo, size_t hi) {
    for (size_t ch = lo; ch < hi; ++ch) {
      std::mt19937_64 r(base + 0x9E3779B97F4A7C15ull * (ch + 1));
      for (size_t i = ch * kChunk; i < std::min(n, (ch + 1) * kChunk); ++i) v[i] = F::random(r);
    }
  });
  return v;
}

// The first index where two arrays of 32-byte values differ, or -1.
template <class A, class B>
long long first_mismatch(const std::vector<A>& a, const std::vector<B>& b) {
  static_assert(sizeof(A) == sizeof(B));
  if (a.size() != b.size()) return 0;
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(A)) == 0) return -1;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(A)) != 0) return (long long)i;
  }
  return -1;
}

enum class Transform { kForward, kInverse, kCosetForward, kCosetInverse, kShiftEvaluations };
const char* name(Transform t) {
  switch (t) {
    case Transform::kForward:
      return "forward";
    case Transform::kInverse:
      return "inverse";
    case Transform::kCosetForward:
      return "coset_forward";
    case Transform::kCosetInverse:
      return "coset_inverse";
    default:
      return "shift_evaluations";
  }
}

template <class F>
class DeviceNtt : public ::testing::Test {
 protected:
  void SetUp() override {
    CUZK_SKIP_WITHOUT_DEVICE();
    auto s = Stream::create();
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    stream_.emplace(std::move(s).value());
  }

  Result<DeviceBuffer<F>> upload(const std::vector<F>& host) {
    CUZK_ASSIGN_OR_RETURN(auto b, DeviceBuffer<F>::allocate(host.size(), "ntt test"));
    CUZK_RETURN_IF_ERROR(b.upload(host, *stream_));
    return Result<DeviceBuffer<F>>(std::move(b));
  }
  template <class T>
  Result<std::vector<T>> download(const DeviceBuffer<T>& d) {
    std::vector<T> host(d.size());
    CUZK_RETURN_IF_ERROR(d.download(host, *stream_));
    CUZK_RETURN_IF_ERROR(stream_->synchronize());
    return host;
  }

  static void cpu(const poly::EvaluationDomain<F>& dom, Transform t, std::vector<F>& x, const F& shift) {
    switch (t) {
      case Transform::kForward:
        dom.ntt(x, pool());
        break;
      case Transform::kInverse:
        dom.intt(x, pool());
        break;
      case Transform::kCosetForward:
        dom.coset_ntt(x, shift, pool());
        break;
      case Transform::kCosetInverse:
        dom.coset_intt(x, shift, pool());
        break;
      default:
        dom.shift_evaluations(x, shift, pool());
        break;
    }
  }
  Status gpu(const NttDomain<F>& dom, Transform t, F* d, const F& shift, F* scratch) {
    switch (t) {
      case Transform::kForward:
        return dom.forward(d, *stream_, scratch);
      case Transform::kInverse:
        return dom.inverse(d, *stream_, scratch);
      case Transform::kCosetForward:
        return dom.coset_forward(d, shift, *stream_, scratch);
      case Transform::kCosetInverse:
        return dom.coset_inverse(d, shift, *stream_, scratch);
      default:
        return dom.shift_evaluations(d, shift, *stream_);
    }
  }

  // Every transform of x on the device equals poly's; inverse(forward(x)) == x on the device.
  // With `scratch`, the four that end in a bit reversal take it (stored bit-reversed).
  void check_transforms(const poly::EvaluationDomain<F>& cdom, const NttDomain<F>& gdom, const std::vector<F>& x,
                        const F& shift, const std::string& what, F* scratch = nullptr) {
    for (Transform t : {Transform::kForward, Transform::kInverse, Transform::kCosetForward, Transform::kCosetInverse,
                        Transform::kShiftEvaluations}) {
      SCOPED_TRACE(std::string(name(t)) + " " + what);
      auto want = x;
      cpu(cdom, t, want, shift);
      auto d = upload(x);
      ASSERT_TRUE(d.is_ok()) << d.status().to_string();
      Status st = gpu(gdom, t, d->data(), shift, scratch);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      auto got = download(*d);
      ASSERT_TRUE(got.is_ok()) << got.status().to_string();
      ASSERT_EQ(first_mismatch(*got, want), -1);
    }
    auto d = upload(x);
    ASSERT_TRUE(d.is_ok());
    ASSERT_TRUE(gdom.forward(d->data(), *stream_, scratch).is_ok());
    ASSERT_TRUE(gdom.inverse(d->data(), *stream_, scratch).is_ok());
    ASSERT_TRUE(gdom.coset_forward(d->data(), shift, *stream_, scratch).is_ok());
    ASSERT_TRUE(gdom.coset_inverse(d->data(), shift, *stream_, scratch).is_ok());
    auto back = download(*d);
    ASSERT_TRUE(back.is_ok());
    ASSERT_EQ(first_mismatch(*back, x), -1) << "round trip " << what;
  }

  void check_sizes(const std::vector<unsigned>& logs, ff::RootConvention conv, const std::string& salt) {
    auto rng = seeded_rng(std::string(Curve<F>::kName) + salt);
    for (unsigned log_n : logs) {
      SCOPED_TRACE("log_n " + std::to_string(log_n));
      auto cdom = poly::EvaluationDomain<F>::create(log_n, conv);
      ASSERT_TRUE(cdom.is_ok());
      auto gdom = NttDomain<F>::create(log_n, *stream_, conv);
      ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
      ASSERT_EQ(gdom->omega(), cdom->omega());
      ASSERT_EQ(gdom->snarkjs_shift(), poly::snarkjs_odd_shift(*cdom));
      check_transforms(*cdom, *gdom, random_vec<F>(size_t(1) << log_n, rng), F::random(rng), "random");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  // snarkjs_h on the device against poly::snarkjs_h; p separate (poisoned) or aliasing a.
  void check_snarkjs_h(unsigned log_n, std::vector<F> a, std::vector<F> b, std::vector<F> c, bool alias,
                       Pacer* pace = nullptr) {
    SCOPED_TRACE("snarkjs_h log_n " + std::to_string(log_n) + (alias ? " p = a" : " p separate") +
                 (pace != nullptr ? " paced" : ""));
    const size_t n = size_t(1) << log_n;
    auto cdom = poly::EvaluationDomain<F>::create(log_n).value();
    auto gdom = NttDomain<F>::create(log_n, *stream_);
    ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
    auto da = upload(a), db = upload(b), dc = upload(c);
    ASSERT_TRUE(da.is_ok() && db.is_ok() && dc.is_ok());
    std::vector<typename F::Int> want(n);
    ASSERT_TRUE(poly::snarkjs_h(cdom, std::span<F>(a), std::span<F>(b), std::span<F>(c),
                                std::span<typename F::Int>(want), pool())
                    .is_ok());
    std::vector<typename F::Int> got;
    if (alias) {
      auto* p = reinterpret_cast<typename F::Int*>(da->data());
      Status st = snarkjs_h(*gdom, da->data(), db->data(), dc->data(), p, *stream_, pace);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      auto out = download(*da);
      ASSERT_TRUE(out.is_ok());
      got.resize(n);
      std::memcpy(got.data(), out->data(), n * sizeof(F));
    } else {
      auto dp = DeviceBuffer<typename F::Int>::allocate(n, "ntt test p");
      ASSERT_TRUE(dp.is_ok());
      ASSERT_TRUE(dp->fill_bytes(kPoison, *stream_).is_ok());
      Status st = snarkjs_h(*gdom, da->data(), db->data(), dc->data(), dp->data(), *stream_, pace);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      auto out = download(*dp);
      ASSERT_TRUE(out.is_ok());
      got = std::move(out).value();
    }
    ASSERT_EQ(first_mismatch(got, want), -1);
  }

  void check_bellperson_h(unsigned log_n, std::vector<F> a, std::vector<F> b, std::vector<F> c,
                          NttOptions options = {}) {
    SCOPED_TRACE("bellperson_h log_n " + std::to_string(log_n) + " tile_log " + std::to_string(options.tile_log));
    const F shift = F::from_u64(Curve<F>::kGenerator);
    auto cdom = poly::EvaluationDomain<F>::create(log_n, ff::RootConvention::kSeven).value();
    auto gdom = NttDomain<F>::create(log_n, *stream_, ff::RootConvention::kSeven, options);
    ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
    auto da = upload(a), db = upload(b), dc = upload(c);
    ASSERT_TRUE(da.is_ok() && db.is_ok() && dc.is_ok());
    ASSERT_TRUE(poly::bellperson_h(cdom, std::span<F>(a), std::span<F>(b), std::span<F>(c), shift, pool()).is_ok());
    Status st = bellperson_h(*gdom, da->data(), db->data(), dc->data(), shift, *stream_);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    auto got = download(*da);
    ASSERT_TRUE(got.is_ok());
    ASSERT_EQ(first_mismatch(*got, a), -1);
  }

  std::optional<Stream> stream_;
};

using Fields = ::testing::Types<bn254::Fr, bls12_381::Fr>;
TYPED_TEST_SUITE(DeviceNtt, Fields, CurveNames);

TYPED_TEST(DeviceNtt, TransformsMatchPolyAtEverySize) {
  using F = TypeParam;
  std::vector<unsigned> logs;
  if (std::is_same_v<F, bn254::Fr>) {
    for (unsigned l = 1; l <= 24; ++l) logs.push_back(l);
  } else {
    logs = {1, 2, 3, 4, 6, 9, 10, 11, 12, 13, 16, 19, 22, 24};
  }
  this->check_sizes(logs, ff::RootConvention::kSnarkjs, "transforms");
}

TYPED_TEST(DeviceNtt, TransformsMatchPolyWithSevenRoots) {
  this->check_sizes({1, 5, 11, 14, 20}, ff::RootConvention::kSeven, "seven");
}

TYPED_TEST(DeviceNtt, EdgeInputsMatchPoly) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "edges");
  for (unsigned log_n : {1u, 4u, 10u, 12u, 17u}) {
    SCOPED_TRACE("log_n " + std::to_string(log_n));
    const size_t n = size_t(1) << log_n;
    auto cdom = poly::EvaluationDomain<F>::create(log_n).value();
    auto gdom = NttDomain<F>::create(log_n, *this->stream_);
    ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
    std::vector<F> delta(n, F::zero());
    delta[n - 1] = F::one();
    const std::pair<const char*, std::vector<F>> inputs[] = {
        {"zeros", std::vector<F>(n, F::zero())},
        {"ones", std::vector<F>(n, F::one())},
        {"p-1", std::vector<F>(n, -F::one())},
        {"delta", delta},
    };
    for (const auto& [what, x] : inputs) {
      this->check_transforms(cdom, *gdom, x, F::random(rng), what);
      if (::testing::Test::HasFatalFailure()) return;
    }
    this->check_snarkjs_h(log_n, std::vector<F>(n, -F::one()), std::vector<F>(n, -F::one()),
                          std::vector<F>(n, F::one()), false);
    this->check_snarkjs_h(log_n, std::vector<F>(n, F::zero()), random_vec<F>(n, rng), std::vector<F>(n, F::zero()),
                          true);
  }
}

TYPED_TEST(DeviceNtt, SnarkjsHMatchesPoly) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "snarkjs_h");
  bool alias = false;
  for (unsigned log_n : {1u, 2u, 3u, 6u, 9u, 10u, 11u, 12u, 15u, 18u, 20u, 22u}) {
    const size_t n = size_t(1) << log_n;
    this->check_snarkjs_h(log_n, random_vec<F>(n, rng), random_vec<F>(n, rng), random_vec<F>(n, rng), alias);
    if (::testing::Test::HasFatalFailure()) return;
    alias = !alias;
  }
}

// Paced (a proof that may give way to a CRITICAL one): a pacer boundary between the six
// transforms, one of them a pause, on a drained stream; the same values.
TYPED_TEST(DeviceNtt, PacedSnarkjsHMatchesPolyAndPausesBetweenTransforms) {
  using F = TypeParam;
  class OnePause final : public PhasePauses {
   public:
    explicit OnePause(const Stream& s) : s_(s) {}
    bool wanted() const override { return ++asked == 2; }
    void pause() override { drained = cudaStreamQuery(s_.get()) == cudaSuccess; }
    mutable int asked = 0;
    bool drained = false;

   private:
    const Stream& s_;
  };
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "paced snarkjs_h");
  for (unsigned log_n : {4u, 12u, 20u}) {
    const size_t n = size_t(1) << log_n;
    OnePause pauses(*this->stream_);
    Pacer pace(&pauses, *this->stream_);
    this->check_snarkjs_h(log_n, random_vec<F>(n, rng), random_vec<F>(n, rng), random_vec<F>(n, rng), log_n == 12,
                          &pace);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(pauses.asked, 5) << "log_n " << log_n;
    EXPECT_TRUE(pauses.drained) << "log_n " << log_n;
  }
}

TYPED_TEST(DeviceNtt, BellpersonHMatchesPoly) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "bellperson_h");
  for (unsigned log_n : {1u, 2u, 5u, 10u, 12u, 16u, 20u}) {
    const size_t n = size_t(1) << log_n;
    this->check_bellperson_h(log_n, random_vec<F>(n, rng), random_vec<F>(n, rng), random_vec<F>(n, rng));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// With a scratch buffer the bit reversal rides on the last pass's stores: every transform
// against poly at sizes of one to four passes, default and small tiles.
TYPED_TEST(DeviceNtt, ScratchTransformsMatchPoly) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "scratch");
  for (const auto& [log_n, tile_log] : {std::pair{3u, 11u},
                                        {12u, 11u},
                                        {13u, 11u},
                                        {16u, 11u},
                                        {20u, 11u},
                                        {22u, 11u},
                                        {12u, 6u},
                                        {17u, 6u},
                                        {19u, 7u}}) {
    SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log));
    NttOptions options;
    options.tile_log = tile_log;
    auto cdom = poly::EvaluationDomain<F>::create(log_n).value();
    auto gdom = NttDomain<F>::create(log_n, *this->stream_, ff::RootConvention::kSnarkjs, options);
    ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
    auto scratch = DeviceBuffer<F>::allocate(size_t(1) << log_n, "ntt test scratch");
    ASSERT_TRUE(scratch.is_ok());
    this->check_transforms(cdom, *gdom, random_vec<F>(size_t(1) << log_n, rng), F::random(rng), "random",
                           scratch->data());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The bit reversal beside the last pass (NttOptions::overlap_bit_reversal; at the default
// tiles from 2^26 up, DeviceNttLarge below) at shapes with 4 ..= 6 bits of y (ntt_pass.hpp,
// overlap_launches), and after it where asked: every transform and bellperson_h against
// poly.
TYPED_TEST(DeviceNtt, OverlappedBitReversalMatchesPoly) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "overlap");
  for (const auto& [log_n, tile_log, overlap] : {std::tuple{16u, 6u, true},
                                                 {17u, 6u, true},
                                                 {18u, 6u, true},
                                                 {18u, 7u, true},
                                                 {20u, 7u, true},
                                                 {16u, 6u, false}}) {
    SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log) +
                 (overlap ? " overlapped" : " separate"));
    NttOptions options;
    options.tile_log = tile_log;
    options.overlap_bit_reversal = overlap;
    auto cdom = poly::EvaluationDomain<F>::create(log_n).value();
    auto gdom = NttDomain<F>::create(log_n, *this->stream_, ff::RootConvention::kSnarkjs, options);
    ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
    this->check_transforms(cdom, *gdom, random_vec<F>(size_t(1) << log_n, rng), F::random(rng), "random");
    if (::testing::Test::HasFatalFailure()) return;
  }
  NttOptions options;
  options.tile_log = 6;
  const size_t n = size_t(1) << 17;
  this->check_bellperson_h(17, random_vec<F>(n, rng), random_vec<F>(n, rng), random_vec<F>(n, rng), options);
  if (::testing::Test::HasFatalFailure()) return;

  // A failed overlapped launch (the third) fails its call; the domain works afterwards.
  auto cdom = poly::EvaluationDomain<F>::create(17).value();
  auto gdom = NttDomain<F>::create(17, *this->stream_, ff::RootConvention::kSnarkjs, options);
  ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
  const auto x = random_vec<F>(n, rng);
  auto d = this->upload(x);
  ASSERT_TRUE(d.is_ok());
  ASSERT_TRUE(arm_faults("kernel:3@ntt.last_pass_bitrev").is_ok());
  Status st = gdom->forward(d->data(), *this->stream_);
  disarm_faults();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("last_pass_bitrev"), std::string::npos) << st.to_string();
  ASSERT_TRUE(this->stream_->synchronize().is_ok());
  this->check_transforms(cdom, *gdom, x, F::random(rng), "after a fault");
}

// The domain holds what device_bytes says, and gives it all back.
TYPED_TEST(DeviceNtt, DomainHoldsDeviceBytes) {
  using F = TypeParam;
  auto alloc = DeviceAllocator::current();
  ASSERT_TRUE(alloc.is_ok());
  const size_t before = (*alloc)->stats().allocated_bytes;
  // One pass (coset tables), two and three passes (row tables), and other tile shapes.
  for (const auto& [log_n, tile_log] : {std::pair{10u, 11u}, {20u, 11u}, {22u, 11u}, {13u, 6u}}) {
    SCOPED_TRACE("log_n " + std::to_string(log_n) + " tile_log " + std::to_string(tile_log));
    NttOptions options;
    options.tile_log = tile_log;
    auto gdom = NttDomain<F>::create(log_n, *this->stream_, ff::RootConvention::kSnarkjs, options);
    ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
    EXPECT_EQ((*alloc)->stats().allocated_bytes - before, NttDomain<F>::device_bytes(log_n, options));
  }
  EXPECT_EQ((*alloc)->stats().allocated_bytes, before);
}

TYPED_TEST(DeviceNtt, RejectsBadArguments) {
  using F = TypeParam;
  EXPECT_FALSE(NttDomain<F>::create(0, *this->stream_).is_ok());
  EXPECT_FALSE(NttDomain<F>::create(NttDomain<F>::kMaxLog + 1, *this->stream_).is_ok());
  EXPECT_FALSE(NttDomain<F>::create(10, *this->stream_, ff::RootConvention::kSnarkjs, NttOptions{12}).is_ok());
  auto gdom = NttDomain<F>::create(4, *this->stream_);
  ASSERT_TRUE(gdom.is_ok());
  EXPECT_FALSE(gdom->forward(nullptr, *this->stream_).is_ok());
  auto d = DeviceBuffer<F>::allocate(32);
  ASSERT_TRUE(d.is_ok());
  auto* misaligned = reinterpret_cast<F*>(reinterpret_cast<char*>(d->data()) + 8);
  EXPECT_FALSE(gdom->forward(misaligned, *this->stream_).is_ok());
  EXPECT_FALSE(gdom->forward(d->data(), *this->stream_, misaligned).is_ok());
  EXPECT_FALSE(gdom->inverse(d->data(), *this->stream_, d->data()).is_ok());
  // The coset H step rejects an n-th root of unity as its shift.
  EXPECT_FALSE(bellperson_h(*gdom, d->data(), d->data(), d->data(), gdom->omega(), *this->stream_).is_ok());
}

// An injected allocation, copy or launch failure fails the call with an error and leaves
// nothing allocated; the domain (and a new one) works afterwards.
TYPED_TEST(DeviceNtt, InjectedFaultsFailOnlyTheirCall) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "faults");
  constexpr unsigned kLog = 12;
  auto alloc = DeviceAllocator::current();
  ASSERT_TRUE(alloc.is_ok());
  const size_t before = (*alloc)->stats().allocated_bytes;
  for (const char* spec : {"alloc:1@ntt", "alloc:3@ntt", "copy:1", "kernel:1@ntt.expand"}) {
    ASSERT_TRUE(arm_faults(spec).is_ok());
    auto failed = NttDomain<F>::create(kLog, *this->stream_);
    disarm_faults();
    EXPECT_FALSE(failed.is_ok()) << spec;
    EXPECT_EQ((*alloc)->stats().allocated_bytes, before) << spec;
  }
  auto cdom = poly::EvaluationDomain<F>::create(kLog).value();
  auto gdom = NttDomain<F>::create(kLog, *this->stream_);
  ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
  const auto x = random_vec<F>(size_t(1) << kLog, rng);
  auto d = this->upload(x);
  ASSERT_TRUE(d.is_ok());
  ASSERT_TRUE(arm_faults("kernel:2@ntt.pass").is_ok());
  EXPECT_FALSE(gdom->forward(d->data(), *this->stream_).is_ok());
  ASSERT_TRUE(arm_faults("kernel:1@ntt.bitrev").is_ok());
  EXPECT_FALSE(gdom->inverse(d->data(), *this->stream_).is_ok());
  const F shift = F::random(rng);
  ASSERT_TRUE(arm_faults("alloc:1@ntt coset").is_ok());
  EXPECT_FALSE(gdom->coset_forward(d->data(), shift, *this->stream_).is_ok());
  disarm_faults();
  ASSERT_TRUE(this->stream_->synchronize().is_ok());
  // A failed coset table is not cached: the next call builds it.
  this->check_transforms(cdom, *gdom, x, shift, "after faults");
}

// Two host threads, each with its own stream, use one domain at once (and race to build the
// same new coset table).
TYPED_TEST(DeviceNtt, StreamsShareADomain) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(Curve<F>::kName) + "streams");
  constexpr unsigned kLog = 16;
  auto cdom = poly::EvaluationDomain<F>::create(kLog).value();
  auto gdom = NttDomain<F>::create(kLog, *this->stream_);
  ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
  const F shift = F::random(rng);
  std::vector<F> x[2] = {random_vec<F>(size_t(1) << kLog, rng), random_vec<F>(size_t(1) << kLog, rng)};
  std::vector<F> got[2];
  Status st[2];
  auto work = [&](int i) {
    st[i] = [&]() -> Status {
      CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
      CUZK_ASSIGN_OR_RETURN(auto d, DeviceBuffer<F>::allocate(x[i].size(), "ntt test streams"));
      CUZK_RETURN_IF_ERROR(d.upload(x[i], s));
      for (int r = 0; r < 4; ++r) {
        CUZK_RETURN_IF_ERROR(gdom->coset_forward(d.data(), shift, s));
        CUZK_RETURN_IF_ERROR(gdom->coset_inverse(d.data(), shift, s));
      }
      CUZK_RETURN_IF_ERROR(gdom->coset_forward(d.data(), shift, s));
      got[i].resize(x[i].size());
      CUZK_RETURN_IF_ERROR(d.download(got[i], s));
      return s.synchronize();
    }();
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(st[i].is_ok()) << st[i].to_string();
    auto want = x[i];
    cdom.coset_ntt(want, shift, pool());
    EXPECT_EQ(first_mismatch(got[i], want), -1) << "stream " << i;
  }
}

// 2^27 once: forward against poly (16 host threads on the device machine), then a device
// round trip through inverse.
TEST(DeviceNttLarge, Forward2To27MatchesPoly) {
  CUZK_SKIP_WITHOUT_DEVICE();
  using F = bn254::Fr;
  constexpr unsigned kLog = 27;
  auto rng = seeded_rng("bn254 2^27");
  auto s = Stream::create();
  ASSERT_TRUE(s.is_ok());
  auto gdom = NttDomain<F>::create(kLog, *s);
  ASSERT_TRUE(gdom.is_ok()) << gdom.status().to_string();
  const auto x = random_vec<F>(size_t(1) << kLog, rng);
  auto d = DeviceBuffer<F>::allocate(x.size(), "ntt test 2^27");
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  ASSERT_TRUE(d->upload(x, *s).is_ok());
  ASSERT_TRUE(gdom->forward(d->data(), *s).is_ok());
  std::vector<F> got(x.size());
  ASSERT_TRUE(d->download(got, *s).is_ok());
  // The forward again through a scratch buffer (the bit reversal in the last pass's stores).
  auto scratch = DeviceBuffer<F>::allocate(x.size(), "ntt test 2^27 scratch");
  ASSERT_TRUE(scratch.is_ok()) << scratch.status().to_string();
  auto e = DeviceBuffer<F>::allocate(x.size(), "ntt test 2^27 second");
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  ASSERT_TRUE(e->upload(x, *s).is_ok());
  ASSERT_TRUE(gdom->forward(e->data(), *s, scratch->data()).is_ok());
  std::vector<F> got_scratch(x.size());
  ASSERT_TRUE(e->download(got_scratch, *s).is_ok());
  ASSERT_TRUE(gdom->inverse(d->data(), *s).is_ok());
  auto cdom = poly::EvaluationDomain<F>::create(kLog).value();
  auto want = x;
  cdom.ntt(want, pool());
  ASSERT_TRUE(s->synchronize().is_ok());
  EXPECT_EQ(first_mismatch(got, want), -1) << "forward";
  EXPECT_EQ(first_mismatch(got_scratch, want), -1) << "forward through scratch";
  std::vector<F> back(x.size());
  ASSERT_TRUE(d->download(back, *s).is_ok());
  ASSERT_TRUE(s->synchronize().is_ok());
  EXPECT_EQ(first_mismatch(back, x), -1) << "round trip";
}

}  // namespace
}  // namespace cuzk::cuda
