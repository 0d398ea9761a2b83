// Device field arithmetic agrees with the host, element by element, for every field type.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda/arith.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "cuda_test_util.hpp"
#include "ff/fields.hpp"

namespace cuzk::cuda {
namespace {

using testing::seeded_rng;

template <class F>
struct FieldName;
#define CUZK_FIELD_NAME(T, S) \
  template <>                 \
  struct FieldName<T> {       \
    static constexpr const char* kName = S; \
  }
CUZK_FIELD_NAME(bn254::Fr, "bn254_Fr");
CUZK_FIELD_NAME(bn254::Fq, "bn254_Fq");
CUZK_FIELD_NAME(bn254::Fq2, "bn254_Fq2");
CUZK_FIELD_NAME(bn254::Fq6, "bn254_Fq6");
CUZK_FIELD_NAME(bn254::Fq12, "bn254_Fq12");
CUZK_FIELD_NAME(bls12_381::Fr, "bls12_381_Fr");
CUZK_FIELD_NAME(bls12_381::Fq, "bls12_381_Fq");
CUZK_FIELD_NAME(bls12_381::Fq2, "bls12_381_Fq2");
CUZK_FIELD_NAME(bls12_381::Fq6, "bls12_381_Fq6");
CUZK_FIELD_NAME(bls12_381::Fq12, "bls12_381_Fq12");
#undef CUZK_FIELD_NAME

struct FieldTypeNames {
  template <class F>
  static std::string GetName(int) {
    return FieldName<F>::kName;
  }
};

// 0xA5 bytes are >= every modulus here, so an element the kernel did not write can never
// equal a host result.
constexpr uint8_t kPoison = 0xA5;

template <class F>
class DeviceField : public ::testing::Test {
 protected:
  static constexpr size_t kCount = 1000;  // not a multiple of the block size: the tail is checked too

  void SetUp() override {
    CUZK_SKIP_WITHOUT_DEVICE();
    auto s = Stream::create();
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    stream_.emplace(std::move(s).value());
  }

  // Random elements with the edge cases up front: 0, 1, -1, and for the prime fields
  // Montgomery forms that stress the 32-bit word carries of the device code: p-1, p-2,
  // 1 (R^-1), every 32-bit word 0xffffffff below the top limb, p's top limb alone.
  // (Indices 3 and 4 are left to the tests, which overwrite them.)
  std::vector<F> random_elements(std::mt19937_64& rng) {
    std::vector<F> v(kCount);
    for (auto& x : v) x = F::random(rng);
    v[0] = F::zero();
    v[1] = F::one();
    v[2] = -F::one();
    if constexpr (requires { F::MODULUS; }) {
      using Int = typename F::Int;
      constexpr Int p = F::MODULUS;
      Int pm1 = p, pm2 = p, raw_one{}, ones{}, top{};
      pm1.limb[0] -= 1;
      pm2.limb[0] -= 2;
      raw_one.limb[0] = 1;
      for (size_t i = 0; i + 1 < F::N; ++i) ones.limb[i] = ~uint64_t(0);
      top.limb[F::N - 1] = p.limb[F::N - 1];
      size_t k = 5;
      for (const Int& m : {pm1, pm2, raw_one, ones, top}) v[k++] = F::from_mont(m);
    }
    return v;
  }

  DeviceBuffer<F> upload(const std::vector<F>& host) {
    auto b = DeviceBuffer<F>::allocate(host.size());
    EXPECT_TRUE(b.is_ok()) << b.status().to_string();
    if (!b.is_ok()) return {};
    EXPECT_TRUE(b->upload(host, *stream_).is_ok());
    return std::move(b).value();
  }

  DeviceBuffer<F> poisoned_output() {
    auto b = DeviceBuffer<F>::allocate(kCount);
    EXPECT_TRUE(b.is_ok()) << b.status().to_string();
    if (!b.is_ok()) return {};
    EXPECT_TRUE(b->fill_bytes(kPoison, *stream_).is_ok());
    return std::move(b).value();
  }

  std::vector<F> download(const DeviceBuffer<F>& d) {
    std::vector<F> host(d.size());
    Status st = d.download(host, *stream_);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    st = stream_->synchronize();
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return host;
  }

  static void expect_equal(const std::vector<F>& device, const std::vector<F>& host, const char* op) {
    ASSERT_EQ(device.size(), host.size());
    size_t mismatches = 0, first = 0;
    for (size_t i = 0; i < host.size(); ++i) {
      if (device[i] != host[i] && mismatches++ == 0) first = i;
    }
    EXPECT_EQ(mismatches, 0u) << FieldName<F>::kName << " " << op << ": " << mismatches << " of " << host.size()
                              << " elements differ from the host, the first at index " << first;
  }

  std::optional<Stream> stream_;
};

using Fields = ::testing::Types<bn254::Fr, bn254::Fq, bn254::Fq2, bn254::Fq6, bn254::Fq12, bls12_381::Fr,
                                bls12_381::Fq, bls12_381::Fq2, bls12_381::Fq6, bls12_381::Fq12>;
TYPED_TEST_SUITE(DeviceField, Fields, FieldTypeNames);

TYPED_TEST(DeviceField, AddSubMulMatchHost) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(FieldName<F>::kName) + ".binary");
  std::vector<F> a = this->random_elements(rng);
  std::vector<F> b = this->random_elements(rng);
  b[3] = a[3];   // a - b = 0
  b[4] = -a[4];  // a + b = 0
  DeviceBuffer<F> da = this->upload(a), db = this->upload(b);
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul}) {
    DeviceBuffer<F> dout = this->poisoned_output();
    Status st = field_binary(op, da, db, dout, a.size(), *this->stream_);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    std::vector<F> want(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      want[i] = op == BinaryOp::kAdd ? a[i] + b[i] : op == BinaryOp::kSub ? a[i] - b[i] : a[i] * b[i];
    }
    this->expect_equal(this->download(dout), want, op_name(op));
  }
}

TYPED_TEST(DeviceField, SquareMatchesHost) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(FieldName<F>::kName) + ".square");
  std::vector<F> a = this->random_elements(rng);
  DeviceBuffer<F> da = this->upload(a);
  DeviceBuffer<F> dout = this->poisoned_output();
  Status st = field_unary(UnaryOp::kSquare, da, dout, a.size(), *this->stream_);
  if constexpr (!DeviceFieldOps<F>::kSquare) {
    EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition) << st.to_string();
  } else {
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    std::vector<F> want(a.size());
    for (size_t i = 0; i < a.size(); ++i) want[i] = a[i].square();
    this->expect_equal(this->download(dout), want, "square");
  }
}

TYPED_TEST(DeviceField, InverseMatchesHost) {
  using F = TypeParam;
  auto rng = seeded_rng(std::string(FieldName<F>::kName) + ".inverse");
  std::vector<F> a = this->random_elements(rng);
  DeviceBuffer<F> da = this->upload(a);
  DeviceBuffer<F> dout = this->poisoned_output();
  Status st = field_unary(UnaryOp::kInverse, da, dout, a.size(), *this->stream_);
  if constexpr (!DeviceFieldOps<F>::kInverse) {
    EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition) << st.to_string();
  } else {
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    std::vector<F> want(a.size());
    for (size_t i = 0; i < a.size(); ++i) want[i] = a[i].inverse();
    std::vector<F> got = this->download(dout);
    this->expect_equal(got, want, "inverse");
    EXPECT_TRUE(got[0].is_zero()) << "the inverse of 0 is defined as 0";
    for (size_t i = 1; i < a.size(); ++i) ASSERT_TRUE((got[i] * a[i]).is_one()) << "a * a^-1 != 1 at index " << i;
  }
}

TYPED_TEST(DeviceField, SqrtMatchesHost) {
  using F = TypeParam;
  if constexpr (!DeviceFieldOps<F>::kSqrt) {
    DeviceBuffer<F> empty;
    DeviceBuffer<uint8_t> ok;
    EXPECT_EQ(field_sqrt(empty, empty, ok, 0, *this->stream_).code(), StatusCode::kFailedPrecondition);
  } else {
    auto rng = seeded_rng(std::string(FieldName<F>::kName) + ".sqrt");
    std::vector<F> a = this->random_elements(rng);
    // Half squares (the root is found), half random (about half of those are not squares).
    for (size_t i = 3; i < a.size(); i += 2) a[i] = F::random(rng).square();
    DeviceBuffer<F> da = this->upload(a);
    DeviceBuffer<F> dout = this->poisoned_output();
    auto dok = DeviceBuffer<uint8_t>::allocate(a.size());
    ASSERT_TRUE(dok.is_ok()) << dok.status().to_string();
    ASSERT_TRUE(dok->fill_bytes(kPoison, *this->stream_).is_ok());
    Status st = field_sqrt(da, dout, *dok, a.size(), *this->stream_);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    std::vector<uint8_t> ok(a.size());
    ASSERT_TRUE(dok->download(ok, *this->stream_).is_ok());
    std::vector<F> got = this->download(dout);

    std::vector<F> want(a.size());
    size_t squares = 0, non_squares = 0, flag_mismatches = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      F r = F::zero();
      bool is_square = a[i].sqrt(r);
      want[i] = is_square ? r : F::zero();
      if (ok[i] != (is_square ? 1 : 0)) ++flag_mismatches;
      if (is_square) {
        ++squares;
        EXPECT_EQ(got[i].square(), a[i]) << "device root does not square back at index " << i;
      } else {
        ++non_squares;
      }
    }
    EXPECT_EQ(flag_mismatches, 0u) << "device and host disagree on which elements are squares";
    this->expect_equal(got, want, "sqrt");
    EXPECT_GT(squares, a.size() / 2);
    EXPECT_GT(non_squares, 0u) << "the inputs should include non-squares";
  }
}

TEST(DeviceFieldLaunch, RejectsBuffersShorterThanTheCount) {
  CUZK_SKIP_WITHOUT_DEVICE();
  auto s = Stream::create();
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  auto a = DeviceBuffer<bn254::Fr>::allocate(8);
  auto out = DeviceBuffer<bn254::Fr>::allocate(4);
  ASSERT_TRUE(a.is_ok() && out.is_ok());
  Status st = field_binary(BinaryOp::kAdd, *a, *a, *out, 8, *s);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("`out` holds 4 elements"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace cuzk::cuda
