// The level-1 bucket accumulation of the G1 MSM by batched affine additions (host-side
// declarations; the kernels are in msm_affine_kernels.cuh, one translation unit per G1
// group). Over a window group's sorted (bucket, point) entries, each round pairs entries
// 2j and 2j + 1: of the same bucket they are added in affine form, every denominator of
// the round inverted at once (Montgomery's trick: per-thread prefix products, then the
// threads' products through the same trick level by level down to one field inversion);
// otherwise both pass through. The sums are written back compacted (a scan of the
// threads' output counts), so each round roughly halves every bucket's run. After the
// rounds the few points left per bucket go through the XYZZ level 1 (as
// accumulate_points_kernel), whose partial sums the existing levels finish.
//
// P + P (a doubling), P + (-P) (both dropped) and infinity among the points (dropped) are
// exact. Counts after the first round live on the device only: every launch is sized by
// a host-side bound, and threads past the device count do nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/status.hpp"
#include "ec/points.hpp"

namespace cuzk::cuda::msm_detail {

// How MsmStats::accumulation and the CUZK_MSM_ACCUMULATION variable pick the path.
enum class Accumulation { kChoice = 0, kXyzz = 1, kAffine = 2 };

// CUZK_MSM_ACCUMULATION=xyzz|affine (read once) overrides the choice of runs that leave
// MsmStats::accumulation at 0; unset or any other value leaves it.
inline Accumulation accumulation_from_env() {
  static const Accumulation a = [] {
    const char* v = std::getenv("CUZK_MSM_ACCUMULATION");
    const std::string_view s = v != nullptr ? v : "";
    return s == "affine" ? Accumulation::kAffine : s == "xyzz" ? Accumulation::kXyzz : Accumulation::kChoice;
  }();
  return a;
}

template <class G>
struct AffineAccumulation {
  // Rounds worth running over `entries` sorted entries of at most `distinct` keys: until
  // about 4 entries per key are left (0 when runs are already that short).
  static unsigned rounds_for(size_t entries, size_t distinct);
  // The default choice for an MSM of m points through Pippenger (monotone in m).
  static bool chosen(size_t m);
  // Device bytes of run()'s scratch over `entries` entries of at most `distinct` keys,
  // any number of rounds (monotone in both).
  static size_t scratch_bytes(size_t entries, size_t distinct);
  // The level-1 accumulation of `entries` sorted entries (keys, vals as sort_window leaves
  // them: vals index bases, bit 31 negates): `rounds` affine rounds (rounds >= 1), then
  // the XYZZ level 1 over what is left, into buckets / out_keys / out_vals exactly as
  // accumulate_points_kernel does. Returns the level-1 thread count (2 partials each;
  // 1 means every bucket was stored). key_a, key_b: free buffers of `entries` keys each
  // (overwritten); scratch: scratch_bytes(entries, distinct) device bytes.
  static Result<size_t> run(const ec::Affine<G>* bases, const uint32_t* keys, const uint32_t* vals, size_t entries,
                            size_t distinct, unsigned rounds, unsigned c, size_t nb, ec::Xyzz<G>* buckets,
                            uint32_t* out_keys, ec::Xyzz<G>* out_vals, uint32_t* key_a, uint32_t* key_b,
                            uint8_t* scratch, cudaStream_t s);
};

// Inclusive prefix sums of n 32-bit counts (CUB), for the rounds' compaction.
size_t inclusive_sum_temp_bytes(size_t n);
Status inclusive_sum(const uint32_t* in, uint32_t* out, size_t n, void* temp, size_t temp_bytes, cudaStream_t s);

}  // namespace cuzk::cuda::msm_detail
