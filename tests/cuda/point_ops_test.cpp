// Device point arithmetic (add, mixed add, double, small scalar multiplication) agrees with
// the host, coordinate by coordinate, for Jacobian and XYZZ points of G1 and G2 of both curves.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cuda/arith.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "cuda_test_util.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda {
namespace {

using testing::seeded_rng;

template <class P>
struct PointName;
#define CUZK_POINT_NAME(T, S)               \
  template <>                               \
  struct PointName<T> {                     \
    static constexpr const char* kName = S; \
  }
CUZK_POINT_NAME(bn254::G1Jacobian, "bn254_G1Jacobian");
CUZK_POINT_NAME(bn254::G2Jacobian, "bn254_G2Jacobian");
CUZK_POINT_NAME(bn254::G1Xyzz, "bn254_G1Xyzz");
CUZK_POINT_NAME(bn254::G2Xyzz, "bn254_G2Xyzz");
CUZK_POINT_NAME(bls12_381::G1Jacobian, "bls12_381_G1Jacobian");
CUZK_POINT_NAME(bls12_381::G2Jacobian, "bls12_381_G2Jacobian");
CUZK_POINT_NAME(bls12_381::G1Xyzz, "bls12_381_G1Xyzz");
CUZK_POINT_NAME(bls12_381::G2Xyzz, "bls12_381_G2Xyzz");
#undef CUZK_POINT_NAME

struct PointTypeNames {
  template <class P>
  static std::string GetName(int) {
    return PointName<P>::kName;
  }
};

constexpr uint8_t kPoison = 0xA5;

// The same point with other projective coordinates: (l^2 X, l^3 Y, l Z) or (l^2 X, l^3 Y, l^2 ZZ, l^3 ZZZ).
template <class C>
ec::Jacobian<C> rescaled(const ec::Jacobian<C>& p, const typename C::Base& l) {
  auto l2 = l.square();
  return {p.x * l2, p.y * l2 * l, p.z * l};
}
template <class C>
ec::Xyzz<C> rescaled(const ec::Xyzz<C>& p, const typename C::Base& l) {
  auto l2 = l.square();
  auto l3 = l2 * l;
  return {p.x * l2, p.y * l3, p.zz * l2, p.zzz * l3};
}

template <class P>
class DevicePoint : public ::testing::Test {
 protected:
  using C = typename P::Curve;
  using A = ec::Affine<C>;
  using Fr = typename C::Scalar;
  static constexpr size_t kCount = 296;  // a multiple of 8 (the special-case pattern), not of the block size

  void SetUp() override {
    CUZK_SKIP_WITHOUT_DEVICE();
    auto s = Stream::create();
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    stream_.emplace(std::move(s).value());
  }

  // Multiples of the generator by fresh random scalars, so every Z differs from 1.
  std::vector<P> random_points(std::mt19937_64& rng) {
    std::vector<P> v(kCount);
    for (auto& p : v) p = P::generator().mul(Fr::random(rng));
    return v;
  }

  template <class T>
  DeviceBuffer<T> upload(const std::vector<T>& host) {
    auto b = DeviceBuffer<T>::allocate(host.size());
    EXPECT_TRUE(b.is_ok()) << b.status().to_string();
    if (!b.is_ok()) return {};
    EXPECT_TRUE(b->upload(host, *stream_).is_ok());
    return std::move(b).value();
  }

  DeviceBuffer<P> poisoned_output() {
    auto b = DeviceBuffer<P>::allocate(kCount);
    EXPECT_TRUE(b.is_ok()) << b.status().to_string();
    if (!b.is_ok()) return {};
    EXPECT_TRUE(b->fill_bytes(kPoison, *stream_).is_ok());
    return std::move(b).value();
  }

  // Same formulas on both sides, so the coordinates must agree bit for bit, not just
  // as projective points.
  void expect_same_coordinates(const DeviceBuffer<P>& dout, const std::vector<P>& want, const char* op) {
    std::vector<P> got(dout.size());
    ASSERT_TRUE(dout.download(got, *stream_).is_ok());
    Status st = stream_->synchronize();
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    size_t mismatches = 0, first = 0, off_curve = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::memcmp(&got[i], &want[i], sizeof(P)) != 0 && mismatches++ == 0) first = i;
      if (!want[i].is_on_curve()) ++off_curve;
    }
    EXPECT_EQ(mismatches, 0u) << PointName<P>::kName << " " << op << ": " << mismatches << " of " << want.size()
                              << " points differ from the host, the first at index " << first;
    EXPECT_EQ(off_curve, 0u) << PointName<P>::kName << " " << op << ": host results off the curve";
  }

  std::optional<Stream> stream_;
};

using Points = ::testing::Types<bn254::G1Jacobian, bn254::G2Jacobian, bn254::G1Xyzz, bn254::G2Xyzz,
                                bls12_381::G1Jacobian, bls12_381::G2Jacobian, bls12_381::G1Xyzz, bls12_381::G2Xyzz>;
TYPED_TEST_SUITE(DevicePoint, Points, PointTypeNames);

TYPED_TEST(DevicePoint, AddMatchesHostIncludingSpecialCases) {
  using P = TypeParam;
  auto rng = seeded_rng(std::string(PointName<P>::kName) + ".add");
  std::vector<P> a = this->random_points(rng);
  std::vector<P> b = this->random_points(rng);
  using Base = typename P::Base;
  for (size_t i = 0; i < a.size(); i += 8) {
    b[i + 1] = a[i + 1];                                  // P + P goes to doubling
    b[i + 2] = -a[i + 2];                                 // P + (-P) = infinity
    a[i + 3] = P::infinity();                             // O + Q
    b[i + 4] = P::infinity();                             // P + O
    b[i + 5] = rescaled(a[i + 5], Base::random(rng));     // P + P with other coordinates
    b[i + 6] = -rescaled(a[i + 6], Base::random(rng));    // P - P with other coordinates
  }
  DeviceBuffer<P> da = this->upload(a), db = this->upload(b);
  DeviceBuffer<P> dout = this->poisoned_output();
  Status st = point_add(da, db, dout, a.size(), *this->stream_);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::vector<P> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i] + b[i];
  for (size_t i = 0; i < a.size(); i += 8) {
    ASSERT_TRUE(want[i + 2].is_infinity());
    ASSERT_TRUE(want[i + 5] == a[i + 5].dbl());
  }
  this->expect_same_coordinates(dout, want, "add");
}

TYPED_TEST(DevicePoint, MixedAddMatchesHostIncludingSpecialCases) {
  using P = TypeParam;
  using A = typename TestFixture::A;
  auto rng = seeded_rng(std::string(PointName<P>::kName) + ".add_mixed");
  std::vector<P> a = this->random_points(rng);
  std::vector<P> bp = this->random_points(rng);
  std::vector<A> b(a.size());
  for (size_t i = 0; i < a.size(); ++i) b[i] = bp[i].to_affine();
  for (size_t i = 0; i < a.size(); i += 8) {
    b[i + 1] = a[i + 1].to_affine();  // P + P
    A neg = a[i + 2].to_affine();
    b[i + 2] = {neg.x, -neg.y};       // P + (-P)
    a[i + 3] = P::infinity();
    b[i + 4] = A::infinity();
  }
  DeviceBuffer<P> da = this->upload(a);
  DeviceBuffer<A> db = this->upload(b);
  DeviceBuffer<P> dout = this->poisoned_output();
  Status st = point_add_mixed(da, db, dout, a.size(), *this->stream_);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::vector<P> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i] + b[i];
  this->expect_same_coordinates(dout, want, "add_mixed");
}

TYPED_TEST(DevicePoint, DoubleMatchesHost) {
  using P = TypeParam;
  auto rng = seeded_rng(std::string(PointName<P>::kName) + ".dbl");
  std::vector<P> a = this->random_points(rng);
  a[0] = P::infinity();
  DeviceBuffer<P> da = this->upload(a);
  DeviceBuffer<P> dout = this->poisoned_output();
  Status st = point_dbl(da, dout, a.size(), *this->stream_);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::vector<P> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i].dbl();
  this->expect_same_coordinates(dout, want, "dbl");
}

TYPED_TEST(DevicePoint, SmallScalarMulMatchesHost) {
  using P = TypeParam;
  auto rng = seeded_rng(std::string(PointName<P>::kName) + ".mul_u64");
  std::vector<P> a = this->random_points(rng);
  std::vector<uint64_t> k(a.size());
  for (auto& x : k) x = rng();
  k[0] = 0;
  k[1] = 1;
  k[2] = 2;
  a[3] = P::infinity();
  DeviceBuffer<P> da = this->upload(a);
  DeviceBuffer<uint64_t> dk = this->upload(k);
  DeviceBuffer<P> dout = this->poisoned_output();
  Status st = point_mul_u64(da, dk, dout, a.size(), *this->stream_);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::vector<P> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i].mul(ff::BigInt<1>{{k[i]}});
  // Small multiples against repeated addition, so a bug shared by host and device ladders shows.
  for (size_t i = 4; i < 12; ++i) {
    P sum = P::infinity();
    for (uint64_t j = 0; j < i; ++j) sum = sum + a[i];
    ASSERT_TRUE(sum == a[i].mul(ff::BigInt<1>{{i}})) << "index " << i;
  }
  ASSERT_TRUE(want[0].is_infinity());
  ASSERT_TRUE(want[2] == a[2].dbl());
  // The device ladder differs from P::mul, so the points, not the coordinates, must agree.
  std::vector<P> got(a.size());
  ASSERT_TRUE(dout.download(got, *this->stream_).is_ok());
  ASSERT_TRUE(this->stream_->synchronize().is_ok());
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(got[i] == want[i] && got[i].is_on_curve()) && mismatches++ == 0) first = i;
  }
  EXPECT_EQ(mismatches, 0u) << PointName<P>::kName << " mul_u64: " << mismatches << " of " << a.size()
                            << " points differ from the host, the first at index " << first;
}

}  // namespace
}  // namespace cuzk::cuda
