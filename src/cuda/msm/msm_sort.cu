// CUB-based steps of the device MSM (see msm_sort.hpp).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <string>

#include "cuda/cuda_status.hpp"
#include "cuda/msm/msm_sort.hpp"

namespace cuzk::cuda::msm_detail {
namespace {

struct ScalarIs {
  const uint64_t* s;
  bool one;  // true: selects scalars == 1; false: scalars > 1
  __device__ bool operator()(uint32_t i) const {
    const uint64_t* k = s + size_t(i) * kScalarLimbs;
    uint64_t high = k[1] | k[2] | k[3];
    return one ? (high == 0 && k[0] == 1) : (high != 0 || k[0] > 1);
  }
};

// The split in one pass over the scalars (CUB's three-way partition: the ones, the rest, the
// zeros discarded; both kept parts in index order), or, with -DCUZK_MSM_SPLIT_ONE_PASS=0, two
// selections, each reading every scalar, for a comparison.
#ifndef CUZK_MSM_SPLIT_ONE_PASS
#define CUZK_MSM_SPLIT_ONE_PASS 1
#endif

// CUB's partition (or the first of the two selections); temp == nullptr asks for the scratch
// size. n < 2^31 (Msm::run's limit): 32-bit offsets.
cudaError_t split_scalars(void* temp, size_t& bytes, const uint64_t* scalars, size_t n, uint32_t* one_idx,
                          uint32_t* rest_idx, uint32_t* counts, cudaStream_t s) {
  thrust::counting_iterator<uint32_t> first(0);
  if constexpr (CUZK_MSM_SPLIT_ONE_PASS != 0) {
    return cub::DevicePartition::If(temp, bytes, first, one_idx, rest_idx, thrust::make_discard_iterator(), counts,
                                    uint32_t(n), ScalarIs{scalars, true}, ScalarIs{scalars, false}, s);
  }
  return cub::DeviceSelect::If(temp, bytes, first, one_idx, counts, int64_t(n), ScalarIs{scalars, true}, s);
}

// Bits [offset, offset + width) of a 4-limb scalar, width <= 32; bits past the top are 0.
__device__ __forceinline__ uint32_t bits_at(const uint64_t* k, unsigned offset, unsigned width) {
  unsigned limb = offset / 64, shift = offset % 64;
  if (limb >= kScalarLimbs) return 0;
  uint64_t v = k[limb] >> shift;
  if (shift + width > 64 && limb + 1 < kScalarLimbs) v |= k[limb + 1] << (64 - shift);
  return uint32_t(v & ((uint64_t(1) << width) - 1));
}

__global__ void window_digits_kernel(const uint64_t* scalars, const uint32_t* rest_idx, size_t m, unsigned c,
                                     unsigned w0, unsigned wg, bool shared, uint32_t stride, uint32_t* keys,
                                     uint32_t* vals) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const uint32_t idx = rest_idx[j];
  uint64_t k[kScalarLimbs];
  for (size_t l = 0; l < kScalarLimbs; ++l) k[l] = scalars[size_t(idx) * kScalarLimbs + l];
  const uint32_t half = uint32_t(1) << (c - 1);
  for (unsigned wl = 0; wl < wg; ++wl) {
    const unsigned w = w0 + wl;
    // c + 1 bits: the window's c bits above the previous window's top bit (Booth).
    uint32_t raw = w == 0 ? bits_at(k, 0, c) << 1 : bits_at(k, w * c - 1, c + 1);
    uint32_t d = (raw + 1) >> 1;  // window value plus the borrow from below, in [0, 2^c]
    const bool neg = (raw >> c) & 1;
    if (neg) d = (uint32_t(1) << c) - d;  // digit = d - 2^c, in [-2^(c-1), 0]
    const uint32_t bucket = d == 0 ? half : d - 1;
    const size_t e = size_t(wl) * m + j;
    keys[e] = shared ? bucket : (uint32_t(wl) << c) | bucket;
    vals[e] = (w * stride + idx) | (uint32_t(neg && d != 0) << 31);
  }
}

// The sort counts in 32-bit offsets where the entries allow, which CUB's sm_90 tuning gives 23
// items a thread instead of 17 (fewer tiles, a shorter look-back): ~0.4 ms off a 2^24 MSM
// (H100, same-call A/B, BENCHMARKS.md "Four variants timed"). -DCUZK_MSM_SORT_OFFSET32=0 sorts
// with 64-bit offsets throughout, for a comparison.
#ifndef CUZK_MSM_SORT_OFFSET32
#define CUZK_MSM_SORT_OFFSET32 1
#endif

// CUB's SortPairs of m pairs by their low c bits; temp == nullptr asks for the scratch size. The
// offset type (CUB picks it from the count's type) follows m, for the query as for the sort.
cudaError_t sort_pairs(void* temp, size_t& bytes, const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in,
                       uint32_t* vals_out, size_t m, unsigned c, cudaStream_t s) {
  if constexpr (CUZK_MSM_SORT_OFFSET32 != 0) {
    if (m <= UINT32_MAX) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, vals_in, vals_out, uint32_t(m), 0, int(c),
                                             s);
    }
  }
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, vals_in, vals_out, int64_t(m), 0, int(c), s);
}

}  // namespace

size_t classify_temp_bytes(size_t n) {
  size_t bytes = 0;
  (void)split_scalars(nullptr, bytes, nullptr, n, nullptr, nullptr, nullptr, nullptr);
  return bytes;
}

Status classify(const uint64_t* scalars, size_t n, uint32_t* one_idx, uint32_t* rest_idx, uint32_t* counts, void* temp,
                size_t temp_bytes, cudaStream_t s) {
  size_t bytes = temp_bytes;
  CUZK_CUDA_RETURN_IF_ERROR(split_scalars(temp, bytes, scalars, n, one_idx, rest_idx, counts, s),
                            "msm: splitting the scalars into 0, 1 and the rest");
  CUZK_RETURN_IF_ERROR(check_launch("msm.split_scalars"));
  if constexpr (CUZK_MSM_SPLIT_ONE_PASS != 0) return Status::ok();
  thrust::counting_iterator<uint32_t> first(0);
  bytes = temp_bytes;
  CUZK_CUDA_RETURN_IF_ERROR(
      cub::DeviceSelect::If(temp, bytes, first, rest_idx, counts + 1, int64_t(n), ScalarIs{scalars, false}, s),
      "msm: selecting the scalars above 1");
  return check_launch("msm.select_rest");
}

Status window_digits(const uint64_t* scalars, const uint32_t* rest_idx, size_t m, unsigned c, unsigned w0, unsigned wg,
                     bool shared, size_t stride, uint32_t* keys, uint32_t* vals, cudaStream_t s) {
  if (m == 0) return Status::ok();
  constexpr unsigned kThreads = 256;
  window_digits_kernel<<<unsigned((m + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      scalars, rest_idx, m, c, w0, wg, shared, uint32_t(stride), keys, vals);
  return check_launch("msm.window_digits_kernel");
}

size_t sort_temp_bytes(size_t m, unsigned c) {
  size_t bytes = 0;
  (void)sort_pairs(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, m, c, nullptr);
  return bytes;
}

Status sort_window(const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in, uint32_t* vals_out, size_t m,
                   unsigned c, void* temp, size_t temp_bytes, cudaStream_t s) {
  if (m == 0) return Status::ok();
  size_t bytes = temp_bytes;
  CUZK_CUDA_RETURN_IF_ERROR(sort_pairs(temp, bytes, keys_in, keys_out, vals_in, vals_out, m, c, s),
                            "msm: sorting " + std::to_string(m) + " bucket entries");
  return check_launch("msm.sort_window");
}

}  // namespace cuzk::cuda::msm_detail
