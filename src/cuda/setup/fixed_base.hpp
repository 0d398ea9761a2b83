// Many multiples of one fixed point on the device: out[i] = scalars[i]·G, for the dev
// setup, whose G1 and G2 points (about 4n and n of them for a domain of n) are the slow
// part of building a key on CPU threads. Windowed table (built once on the host, d·2^(wk)·G
// for every window k and digit d), one mixed addition per non-zero window per point, then
// affine conversion in groups of 16 with one inversion each.
#pragma once

#include <span>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda {

// One generator's table on the device, reused for many calls (the dev setup's sections).
// `scalars` are in Montgomery form (as the setup holds them) and stay in host memory; they
// go up in chunks of 2^22 through one device buffer. Device memory: the table (~2 MiB for
// G1, ~4 MiB for G2) and the 2^22-scalar chunk, plus the output (to_device) or a 2^22-point
// chunk of it (to_host).
template <class G>
class FixedBaseMul {
 public:
  using Scalar = typename G::Scalar;
  static Result<FixedBaseMul> create(const ec::Affine<G>& base, ThreadPool& pool);
  // out[i] = scalars[i]·base into device memory the caller owns (scalars.size() points),
  // finished when this returns.
  Status to_device(std::span<const Scalar> scalars, ec::Affine<G>* out);
  // The same into a new buffer of the device's accounted allocator (`site` names it).
  Result<DeviceBuffer<ec::Affine<G>>> to_device(std::span<const Scalar> scalars, const char* site,
                                                Reservation* from = nullptr);
  // out[i] = scalars[i]·base in host memory.
  Status to_host(std::span<const Scalar> scalars, std::span<ec::Affine<G>> out);

 private:
  FixedBaseMul(DeviceBuffer<ec::Affine<G>> table, unsigned windows, Stream stream, DeviceBuffer<Scalar> scalars);
  Status issue(std::span<const Scalar> scalars, ec::Affine<G>* out);  // copies and launches, no wait
  DeviceBuffer<ec::Affine<G>> table_;
  unsigned windows_ = 0;
  Stream stream_;
  DeviceBuffer<Scalar> scalars_;
};

// One-shot form: out[i] = scalars[i]·base, host memory in and out.
template <class G>
Status fixed_base_mul(const ec::Affine<G>& base, std::span<const typename G::Scalar> scalars,
                      std::span<ec::Affine<G>> out, ThreadPool& pool);

}  // namespace cuzk::cuda
