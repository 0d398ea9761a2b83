// Inputs for the device MSM tests and benchmark: bases with known discrete logs (built by
// chained additions in parallel, not by one scalar multiplication each), scalar mixes,
// the discrete-log oracle, and a device round trip.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/stream.hpp"
#include "ec/batch_affine.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda::msm_fixtures {

template <class G>
struct Bases {
  using Fr = typename G::Scalar;
  std::vector<ec::Affine<G>> points;
  std::vector<Fr> logs;  // points[i] = logs[i]·generator
};

// n distinct bases: each of `pool`'s chunks starts at a random multiple of the generator
// and walks by 8 random affine steps in turn.
template <class G>
Bases<G> make_bases(size_t n, uint64_t seed, ThreadPool& pool) {
  using Fr = typename G::Scalar;
  using J = ec::Jacobian<G>;
  constexpr size_t kSteps = 8;
  std::mt19937_64 rng(seed);
  Fr step[kSteps];
  std::vector<J> step_j(kSteps);
  for (size_t j = 0; j < kSteps; ++j) {
    step[j] = Fr::random(rng);
    step_j[j] = J::generator().mul(step[j]);
  }
  const auto step_pt = ec::batch_to_affine(step_j);
  const size_t chunks = std::max<size_t>(1, std::min<size_t>(pool.size() * 4, n / 1024));
  std::vector<Fr> start(chunks);
  for (auto& k : start) k = Fr::random(rng);
  Bases<G> b;
  b.points.resize(n);
  b.logs.resize(n);
  pool.run(chunks, [&](size_t t) {
    const size_t lo = n * t / chunks, hi = n * (t + 1) / chunks;
    Fr k = start[t];
    J p = J::generator().mul(k);
    std::vector<J> proj(hi - lo);
    for (size_t i = lo; i < hi; ++i) {
      k += step[i % kSteps];
      p += step_pt[i % kSteps];
      b.logs[i] = k;
      proj[i - lo] = p;
    }
    ec::batch_to_affine(proj.data(), proj.size(), b.points.data() + lo);
  });
  return b;
}

enum class Mix {
  kUniform,  // uniform in [0, r)
  kWitness,  // 45% 0, 45% 1, 10% uniform
  kZeroOne,  // only 0 and 1
  kSmall,    // 2 .. 17: a few very full buckets
  kMax,      // r - 1 everywhere: one bucket per window holds every point
  kZero,
};

template <class G>
std::vector<typename G::Scalar::Int> make_scalars(size_t n, Mix mix, std::mt19937_64& rng) {
  using Fr = typename G::Scalar;
  using Int = typename Fr::Int;
  std::vector<Int> s(n);
  const Int max = (-Fr::one()).to_canonical();
  for (auto& x : s) {
    switch (mix) {
      case Mix::kUniform:
        x = Fr::random(rng).to_canonical();
        break;
      case Mix::kWitness: {
        uint64_t r = rng() % 20;
        x = r < 9 ? Int::from_u64(0) : r < 18 ? Int::from_u64(1) : Fr::random(rng).to_canonical();
        break;
      }
      case Mix::kZeroOne:
        x = Int::from_u64(rng() & 1);
        break;
      case Mix::kSmall:
        x = Int::from_u64(2 + rng() % 16);
        break;
      case Mix::kMax:
        x = max;
        break;
      case Mix::kZero:
        x = Int::from_u64(0);
        break;
    }
  }
  return s;
}

// sum_i s_i·logs[i]·generator over the non-infinity bases: exact for any size.
template <class G>
ec::Jacobian<G> oracle(const Bases<G>& b, const std::vector<typename G::Scalar::Int>& s, ThreadPool& pool,
                       size_t offset = 0) {
  using Fr = typename G::Scalar;
  const size_t n = s.size() - offset;
  const size_t chunks = std::max<size_t>(1, std::min<size_t>(pool.size() * 4, n / 1024));
  std::vector<Fr> part(chunks, Fr::zero());
  pool.run(chunks, [&](size_t t) {
    Fr acc = Fr::zero();
    for (size_t i = n * t / chunks; i < n * (t + 1) / chunks; ++i) {
      if (b.points[i].is_infinity()) continue;
      acc += Fr::from_canonical(s[offset + i]) * b.logs[i];
    }
    part[t] = acc;
  });
  Fr acc = Fr::zero();
  for (const Fr& p : part) acc += p;
  return ec::Jacobian<G>::generator().mul(acc);
}

// Bases and scalars resident on the device.
template <class G>
struct DeviceInputs {
  DeviceBuffer<ec::Affine<G>> bases;
  DeviceBuffer<typename G::Scalar::Int> scalars;
};

template <class G>
Result<DeviceInputs<G>> upload(const std::vector<ec::Affine<G>>& bases, size_t n_bases,
                               const std::vector<typename G::Scalar::Int>& scalars, const Stream& s) {
  DeviceInputs<G> d;
  CUZK_ASSIGN_OR_RETURN(d.bases, DeviceBuffer<ec::Affine<G>>::allocate(n_bases, "msm test bases"));
  CUZK_ASSIGN_OR_RETURN(d.scalars, DeviceBuffer<typename G::Scalar::Int>::allocate(scalars.size(), "msm test scalars"));
  CUZK_RETURN_IF_ERROR(d.bases.upload(std::span(bases.data(), n_bases), s));
  CUZK_RETURN_IF_ERROR(d.scalars.upload(std::span(scalars.data(), scalars.size()), s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  return Result<DeviceInputs<G>>(std::move(d));
}

}  // namespace cuzk::cuda::msm_fixtures
