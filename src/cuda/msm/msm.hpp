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
// threads' partial sums, so skewed scalars cost no more than uniform ones). Windows are
// processed in groups so that scratch memory stays bounded at any size.
//
// Bucket reduction (sum_j (j + 1)·B_j per window): each thread turns 8 or 16 consecutive
// buckets into their plain and weighted sums, for every window group as soon as its
// buckets are complete; the remaining levels (pairs of the previous level's sums, with a
// doubling per level) then run once for all windows together, so the latency-bound tail
// is paid once per MSM, not once per window group.
//
// With PrecomputedBases (shifted copies 2^(c·j)·P of every base, built once per base
// set), every window's digits index their own copy and all windows end in ONE set of
// buckets: one reduction, no doublings between windows. The first window group
// accumulates into that set directly; a later group's buckets are folded into it (2^(c-1)
// full additions), so these groups are made large enough that 2^24 points take one.
//
// For G1 the level-1 accumulation can instead begin with rounds of batched affine
// additions (cuda/msm/msm_affine.hpp) that shorten every bucket's run before the XYZZ
// threads take it. Measured slower than XYZZ at every size on the H200 (BENCHMARKS.md,
// "Batched-affine accumulation (H13)"), so it runs only when asked for.
//
// Synchronisation: one wait after the split (CUB's sort needs the counts on the host)
// and one at the end for the result; nothing per window or per group. With pauses (a
// proof that must give way to a CRITICAL one) the run is paced (cuda/pacer.hpp): the long
// launches go out in slices of ~2 ms and the host stays one slice ahead of the device.
#pragma once

#include <cstddef>

#include "core/phase_pauses.hpp"
#include "core/status.hpp"
#include "cuda/allocator.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda {

// What one run did (for benchmarks and tests).
struct MsmStats {
  bool profile = false;  // in: time the stages with CUDA events (adds a little host work)
  // in: window width to use instead of the size's own choice (0: the choice). For
  // benchmarks that sweep it; scratch_bytes() covers only the choice. Ignored with
  // precomputed bases (their width is fixed when they are built).
  unsigned force_window_bits = 0;
  // in: a paced run's slice, in entries, instead of the default (0); for tests that need
  // many slices at small sizes.
  size_t paced_slice_entries = 0;
  // in: sorted entries per window group instead of the default (0), so a test can run
  // several window groups (and, with precomputed bases, their folds) at small sizes.
  size_t group_entries = 0;
  // in: the level-1 bucket accumulation: 0 the size's choice (CUZK_MSM_ACCUMULATION=xyzz
  // or =affine overrides it), 1 XYZZ mixed additions, 2 batched affine rounds first (G1
  // only: G2 always takes XYZZ; a paced run too). scratch_bytes() covers only the choice.
  unsigned accumulation = 0;
  unsigned affine_rounds = 0;  // out: batched-affine rounds in the last window group (0: none)
  bool precomputed = false;    // out: the run used precomputed bases
  size_t ones = 0;             // scalars equal to 1
  size_t rest = 0;             // scalars above 1 (through Pippenger)
  unsigned window_bits = 0;
  unsigned windows = 0;
  unsigned windows_per_group = 0;
  size_t paced_boundaries = 0;  // out: pacer boundaries of a paced run (0 unpaced)
  // Device milliseconds per stage, when profiled: the split (and the wait for its counts),
  // the ones' sum, window digits and sorting, bucket accumulation, bucket reduction. Of
  // the accumulation, partials_ms went to the levels over the partial sums after level 1;
  // of the reduction, reduce_tail_ms to the levels after the first (both latency-bound:
  // few threads, each a chain of full additions).
  float split_ms = 0, ones_ms = 0, sort_ms = 0, accumulate_ms = 0, reduce_ms = 0;
  float partials_ms = 0, reduce_tail_ms = 0;
};

// Shifted copies of one base set for Msm::run's precomputed mode: with c-bit windows
// (W = ceil((bits + 1) / c) Booth windows), copy j = 0 .. W-1 holds 2^(c·j)·P_i for every
// base P_i (copy 0: the bases themselves, so the table is all run() needs), affine, in
// device memory from the accounted allocator.
template <class G>
class PrecomputedBases {
 public:
  using AffinePoint = ec::Affine<G>;

  // A window width for MSMs of about n points (the measured best on the H200).
  static unsigned choose_window_bits(size_t n);
  // Booth windows of c bits over the scalar field, and the extra copies they need.
  static unsigned windows_for(unsigned window_bits);
  // Device bytes of the table for n bases: windows·n affine points.
  static size_t bytes(size_t n, unsigned window_bits);

  // Builds the table from the n device bases on `s` (c doublings and one batched affine
  // conversion per copy) and returns once it is complete. The memory comes from `from`
  // when given, else from the device's budget: reserve bytes(n, c) first.
  // window_bits in [8, 28]; (windows)·n must stay below 2^31.
  static Result<PrecomputedBases> build(const AffinePoint* d_bases, size_t n, unsigned window_bits, const Stream& s,
                                        Reservation* from = nullptr);

  size_t points() const { return n_; }
  unsigned window_bits() const { return c_; }
  unsigned windows() const { return windows_; }
  size_t table_bytes() const { return table_.size() * sizeof(AffinePoint); }
  const AffinePoint* table() const { return table_.data(); }  // copy j at table() + j·points()

 private:
  DeviceBuffer<AffinePoint> table_;
  size_t n_ = 0;
  unsigned c_ = 0, windows_ = 0;
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
  // caller's (e.g. scalars + first_private against bases + 0). n < 2^31. `pauses`, when
  // given, is asked between window groups (core/phase_pauses.hpp).
  static Result<ec::Jacobian<G>> run(const AffinePoint* d_bases, const ScalarInt* d_scalars, size_t n, const Stream& s,
                                     Reservation* scratch_from = nullptr, MsmStats* stats = nullptr,
                                     PhasePauses* pauses = nullptr);

  // The same over the first n of the bases `pre` was built from, n <= pre.points().
  // Scratch: scratch_bytes(n, pre).
  static size_t scratch_bytes(size_t n, const PrecomputedBases<G>& pre);
  static Result<ec::Jacobian<G>> run(const PrecomputedBases<G>& pre, const ScalarInt* d_scalars, size_t n,
                                     const Stream& s, Reservation* scratch_from = nullptr, MsmStats* stats = nullptr,
                                     PhasePauses* pauses = nullptr);

 private:
  static Result<ec::Jacobian<G>> run_with(const AffinePoint* d_bases, const PrecomputedBases<G>* pre,
                                          const ScalarInt* d_scalars, size_t n, const Stream& s,
                                          Reservation* scratch_from, MsmStats* stats, PhasePauses* pauses);
};

}  // namespace cuzk::cuda
