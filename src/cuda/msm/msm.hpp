// Multi-scalar multiplication on the device: sum_i k_i·P_i for affine bases P_i and
// canonical scalars k_i (standard form, four little-endian 64-bit limbs, < r), both
// already in device memory. The result equals msm::msm (msm/pippenger.hpp) as a group
// element.
//
// As supraseal does it, the scalars are first split on the device into 0 (skipped),
// 1 (summed by a tree of mixed additions) and the rest, which go through Pippenger's
// bucket method: signed (Booth) digits of c bits, so 2^(c-1) buckets per window; the
// (bucket, point) pairs of each window sorted by bucket (CUB radix sort); the buckets
// accumulated in XYZZ form by threads that each take the same number of sorted entries
// (a bucket spanning several threads is finished by a segmented reduction of the
// threads' partial sums, so skewed scalars cost no more than uniform ones); each
// window's buckets reduced by running sums over segments in parallel. Windows are
// processed in groups so that scratch memory stays bounded at any size. The window sums
// are copied back and combined on the host.
//
// Synchronisation: one wait after the split (CUB's sort needs the counts on the host)
// and one at the end for the result; nothing per window or per group.
#pragma once

#include <cstddef>

#include "core/status.hpp"
#include "cuda/allocator.hpp"
#include "cuda/stream.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda {

// What one run did (for benchmarks and tests).
struct MsmStats {
  bool profile = false;  // in: time the stages with CUDA events (adds a little host work)
  size_t ones = 0;       // scalars equal to 1
  size_t rest = 0;       // scalars above 1 (through Pippenger)
  unsigned window_bits = 0;
  unsigned windows = 0;
  unsigned windows_per_group = 0;
  // Device milliseconds per stage, when profiled: the split (and the wait for its counts),
  // the ones' sum, window digits and sorting, bucket accumulation, bucket reduction.
  float split_ms = 0, ones_ms = 0, sort_ms = 0, accumulate_ms = 0, reduce_ms = 0;
};

template <class G>
class Msm {
 public:
  using AffinePoint = ec::Affine<G>;
  using ScalarInt = typename G::Scalar::Int;

  // Device bytes run() allocates for n points, whatever the scalars (bases and scalars
  // not included): reserve this much and pass the reservation as scratch_from.
  static size_t scratch_bytes(size_t n);

  // sum_{i < n} d_scalars[i]·d_bases[i], issued on `s`; returns once the result is on the
  // host. Both pointers are device memory; any offsets into larger arrays are the
  // caller's (e.g. scalars + first_private against bases + 0). n < 2^31.
  static Result<ec::Jacobian<G>> run(const AffinePoint* d_bases, const ScalarInt* d_scalars, size_t n, const Stream& s,
                                     Reservation* scratch_from = nullptr, MsmStats* stats = nullptr);
};

}  // namespace cuzk::cuda
