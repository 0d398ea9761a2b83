// Batched affine additions eight lanes at a time, on CPUs with AVX-512 IFMA.
//
// The bucket method's additions within one batch are independent (each goes to a
// different bucket), so they fit SIMD lanes: batch_affine_add runs a batch of them with
// field products done by vpmadd52luq/vpmadd52huq over 52-bit limbs, eight field elements
// per instruction (about four times the throughput of the scalar mulx/adx product on the
// Xeons this was measured on; bench/ifma_probe.cpp). Points, buckets and the denominators
// stay in the scalar field's own Montgomery form (R = 2^(64N)): the lane product ends
// its Montgomery reduction with a short last step, so it computes exactly what Fp's
// operator* computes, and lanes only regroup limbs on the way in and out.
//
// Runtime dispatch: the code is compiled for AVX-512 IFMA by function attributes only,
// and runs only where the CPU reports the feature; everywhere else the scalar flush runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ec/xyzz.hpp"
#include "ff/cpu_lanes.hpp"
#include "ff/fields.hpp"

namespace cuzk::msm::lanes {

// The switch (CPU support, set_enabled, CUZK_CPU_LANES=off) is ff/cpu_lanes.hpp's.
using ff::lanes::cpu_supported;
using ff::lanes::enabled;
using ff::lanes::set_enabled;

// The coordinate fields batch_affine_add is written for: G1's Fq and G2's Fq2, both curves.
template <class F>
inline constexpr bool kSupported = std::is_same_v<F, bn254::Fq> || std::is_same_v<F, bls12_381::Fq> ||
                                   std::is_same_v<F, bn254::Fq2> || std::is_same_v<F, bls12_381::Fq2>;

// Fewer additions than this go to the scalar path: too few to fill the lanes' chains.
inline constexpr size_t kMinBatch = 64;

// For e < n, bucket[index[e]] += point[e] in affine coordinates, where bucket and point
// are (x, y) pairs (ec::Affine's layout), den[e] = point[e].x − bucket[index[e]].x is
// nonzero and the indices are distinct. One field inversion serves the batch.
// `scratch` is reused between calls. Call only when enabled().
template <class F>
void batch_affine_add(F* bucket, const uint32_t* index, const F* point, const F* den, size_t n,
                      std::vector<uint64_t>& scratch);

// sum_j (j+1)·bucket_j over the affine buckets j < count with filled[j] != 0 (the others
// are empty), for G1 or G2 of either curve: sixteen segments of the buckets run their running
// sums side by side in lanes (XYZZ additions), then combine. Call only when enabled().
template <class C>
ec::Xyzz<C> weighted_bucket_sum(const ec::Affine<C>* bucket, const uint8_t* filled, size_t count);

}  // namespace cuzk::msm::lanes
