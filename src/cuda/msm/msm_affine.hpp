// The level-1 bucket accumulation of the G1 MSM by batched affine additions (host-side
// declarations; the kernels are in msm_affine_kernels.cuh, one translation unit per G1
// group). Each thread owns 64 consecutive sorted (bucket, point) entries, its list; a
// round pairs the list's entries 2j and 2j + 1: of the same bucket they are added in
// affine form, otherwise both pass through, and the list, written back in place, roughly
// halves. Every denominator of a round, over all threads, is inverted at once
// (Montgomery's trick: per-thread products, then the threads' products through the same
// trick level by level down to one field inversion). The last round hands its sums
// straight to XYZZ additions with accumulate_points_kernel's outputs (complete buckets
// stored, two partial sums per thread), which the existing levels finish.
//
// P + P (a doubling), P + (-P) (both dropped) and infinity among the points (dropped) are
// exact.
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
  // about two per run and thread are left (0 when runs are already that short; at most 6).
  static unsigned rounds_for(size_t entries, size_t distinct);
  // The default choice for an MSM of m points through Pippenger (monotone in m).
  static bool chosen(size_t m);
  // Device bytes of run()'s scratch over `entries` entries, any number of rounds.
  static size_t scratch_bytes(size_t entries);
  // The level-1 accumulation of `entries` sorted entries (keys, vals as sort_window leaves
  // them: vals index bases, bit 31 negates): `rounds` affine rounds (clamped to 1 .. 6),
  // then XYZZ additions, into buckets / out_keys / out_vals exactly as
  // accumulate_points_kernel does. Returns the level-1 thread count (2 partials each; 1
  // means every bucket was stored), at most max(min(entries / 4, 2^18), entries / 64)
  // (first_partials_bound). list_keys: a free buffer of `entries` keys (overwritten);
  // scratch: scratch_bytes(entries) device bytes.
  static Result<size_t> run(const ec::Affine<G>* bases, const uint32_t* keys, const uint32_t* vals, size_t entries,
                            unsigned rounds, unsigned c, size_t nb, ec::Xyzz<G>* buckets, uint32_t* out_keys,
                            ec::Xyzz<G>* out_vals, uint32_t* list_keys, uint8_t* scratch, cudaStream_t s);
};

}  // namespace cuzk::cuda::msm_detail
