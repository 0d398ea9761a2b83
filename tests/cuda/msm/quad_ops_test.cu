// The quad-of-lanes XYZZ addition and doubling (cuda/msm/quad_ops.cuh) against ec::Xyzz's
// one-lane formulas on the host, on both G1 groups: random points in random XYZZ forms, and the
// rare cases the quad hands to the one-lane formulas (equal points in different forms, a point
// and its negation, infinity on either side).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/cuda_test_util.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/msm/quad_ops.cuh"
#include "cuda/stream.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda {
namespace {

// Quad i (lanes 4i .. 4i + 3) computes sum[i] = a[i] + b[i] and twice[i] = 2·a[i]; lane 0 stores.
template <class G>
__global__ void quad_kernel(const ec::Xyzz<G>* a, const ec::Xyzz<G>* b, ec::Xyzz<G>* sum, ec::Xyzz<G>* twice,
                            size_t n) {
  const msm_detail::Quad quad = msm_detail::Quad::mine();
  const size_t i = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 4;
  if (i >= n) return;
  const ec::Xyzz<G> s = msm_detail::add_quad<G>(a[i], b[i], quad);
  const ec::Xyzz<G> d = msm_detail::dbl_quad<G>(a[i], quad);
  if (quad.g == 0) {
    sum[i] = s;
    twice[i] = d;
  }
}

template <class G>
class QuadOps : public ::testing::Test {
 protected:
  void SetUp() override { CUZK_SKIP_WITHOUT_DEVICE(); }
};

using Groups = ::testing::Types<bn254::G1Config, bls12_381::G1Config>;
TYPED_TEST_SUITE(QuadOps, Groups);

TYPED_TEST(QuadOps, MatchTheOneLaneFormulas) {
  using G = TypeParam;
  using P = ec::Xyzz<G>;
  using J = ec::Jacobian<G>;
  using Fr = typename G::Scalar;
  using Fq = typename G::Base;
  auto rng = testing::seeded_rng("quad ops");
  constexpr size_t kN = 4096;
  // A point in a random XYZZ form: (x·λ², y·λ³, λ², λ³) is the same point for every λ != 0.
  auto form = [&](const P& p) {
    if (p.is_infinity()) return p;
    Fq l = Fq::random(rng);
    if (l.is_zero()) l = Fq::one();
    const Fq l2 = l.square(), l3 = l2 * l;
    return P{p.x * l2, p.y * l3, p.zz * l2, p.zzz * l3};
  };
  auto random_point = [&]() { return P::from_affine(J::generator().mul(Fr::random(rng)).to_affine()); };
  std::vector<P> a(kN), b(kN);
  for (size_t i = 0; i < kN; ++i) {
    const P p = random_point();
    switch (i % 8) {
      case 0:  // the same point in another form: the quad's doubling fallback
        a[i] = form(p), b[i] = form(p);
        break;
      case 1:  // p + (-p): infinity
        a[i] = form(p), b[i] = form(-p);
        break;
      case 2:
        a[i] = P::infinity(), b[i] = form(p);
        break;
      case 3:
        a[i] = form(p), b[i] = P::infinity();
        break;
      default:
        a[i] = form(p), b[i] = form(random_point());
        break;
    }
  }
  auto stream = Stream::create();
  ASSERT_TRUE(stream.is_ok());
  auto da = DeviceBuffer<P>::allocate(kN), db = DeviceBuffer<P>::allocate(kN), ds = DeviceBuffer<P>::allocate(kN),
       dd = DeviceBuffer<P>::allocate(kN);
  ASSERT_TRUE(da.is_ok() && db.is_ok() && ds.is_ok() && dd.is_ok());
  ASSERT_TRUE(da->upload(std::span<const P>(a), *stream).is_ok());
  ASSERT_TRUE(db->upload(std::span<const P>(b), *stream).is_ok());
  quad_kernel<G>
      <<<unsigned((4 * kN + 127) / 128), 128, 0, stream->get()>>>(da->data(), db->data(), ds->data(), dd->data(), kN);
  ASSERT_TRUE(check_launch("quad_ops_test kernel").is_ok());
  std::vector<P> sum(kN), twice(kN);
  ASSERT_TRUE(ds->download(std::span<P>(sum), *stream).is_ok());
  ASSERT_TRUE(dd->download(std::span<P>(twice), *stream).is_ok());
  ASSERT_TRUE(stream->synchronize().is_ok());
  for (size_t i = 0; i < kN; ++i) {
    const P want_sum = a[i] + b[i], want_twice = a[i].dbl();
    ASSERT_EQ(sum[i].is_infinity(), want_sum.is_infinity()) << "a + b at " << i << " (case " << i % 8 << ")";
    ASSERT_TRUE(sum[i] == want_sum) << "a + b at " << i << " (case " << i % 8 << ")";
    ASSERT_EQ(twice[i].is_infinity(), want_twice.is_infinity()) << "2a at " << i;
    ASSERT_TRUE(twice[i] == want_twice) << "2a at " << i << " (case " << i % 8 << ")";
  }
}

}  // namespace
}  // namespace cuzk::cuda
