// The curve-independent steps of the device MSM: splitting scalars into 0 / 1 / the rest,
// signed window digits, and sorting (bucket, point) pairs. One translation unit holds the
// CUB code, so its slow template instantiation is compiled once, not once per group.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/status.hpp"

namespace cuzk::cuda::msm_detail {

// Scalars are four little-endian 64-bit limbs (Fr::Int of both curves).
constexpr size_t kScalarLimbs = 4;

// Scratch for classify() of n scalars: none for the split kernel, CUB's for its partition.
size_t classify_temp_bytes(size_t n);
// Indices of the scalars equal to 1 into one_idx and of those > 1 into rest_idx; zeros are
// dropped. Increasing within each tile of 2048 scalars, the tiles in no set order (nothing
// after needs more: the ones are summed, the rest's entries sorted by bucket, and a warp's
// reads of its scalars stay within a tile). counts[0] = ones, counts[1] = rest (device memory).
// n >= 1 (Msm::run returns before for n = 0).
Status classify(const uint64_t* scalars, size_t n, uint32_t* one_idx, uint32_t* rest_idx, uint32_t* counts, void* temp,
                size_t temp_bytes, cudaStream_t s);

// Signed digits of windows [w0, w0 + wg) of c bits for the m scalars scalars[rest_idx[j]]:
// window w of scalar j goes to entry (w - w0)·m + j with key ((w - w0) << c) | bucket and
// value (w·stride + index) | sign << 31, where bucket = |digit| - 1, or 2^(c-1) (a bucket
// nobody reads) for a zero digit. stride = 0: every window reads the original bases;
// stride = n with precomputed bases: window w reads copy w. shared: the key is the bucket
// alone (all windows add into one bucket set).
Status window_digits(const uint64_t* scalars, const uint32_t* rest_idx, size_t m, unsigned c, unsigned w0, unsigned wg,
                     bool shared, size_t stride, uint32_t* keys, uint32_t* vals, cudaStream_t s);

// With one bucket set (precomputed bases): window_digits(shared = true) into keys_mid /
// vals_mid, then sorted into keys_out / vals_out as sort_window sorts them; built with
// CUZK_MSM_FUSED_DIGITS (msm_sort.cu), for keys of 17 to 22 bits with every window in the group,
// the digits' pass sorts the low bits as it writes and CUB the 16 above. temp: shared_digits_temp_bytes(wg·m or more, c).
size_t shared_digits_temp_bytes(size_t entries, unsigned c);
Status sort_shared_digits(const uint64_t* scalars, const uint32_t* rest_idx, size_t m, unsigned c, unsigned w0,
                          unsigned wg, size_t stride, uint32_t* keys_mid, uint32_t* vals_mid, uint32_t* keys_out,
                          uint32_t* vals_out, void* temp, size_t temp_bytes, cudaStream_t s);

// CUB scratch for sort_window() of m pairs on c-bit keys.
size_t sort_temp_bytes(size_t m, unsigned c);
// Sorts m pairs by the low c bits of their keys (the high bits are equal within a window).
Status sort_window(const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in, uint32_t* vals_out, size_t m,
                   unsigned c, void* temp, size_t temp_bytes, cudaStream_t s);

}  // namespace cuzk::cuda::msm_detail
