// CUB-based steps of the device MSM (see msm_sort.hpp).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <string>

#include "cuda/cuda_status.hpp"
#include "cuda/msm/msm_sort.hpp"

namespace cuzk::cuda::msm_detail {
namespace {

// The split: one pass over the scalars. By default a kernel of our own: a block classifies
// a tile of kSplitTile scalars (two 16-byte loads each, all issued before any test), ranks
// them with warp ballots and claims its ranges of one_idx / rest_idx with one atomic add per
// kind, so the kept indices are in increasing order within a tile and the tiles in the order
// their blocks finish. -DCUZK_MSM_SPLIT_KERNEL=0 builds CUB's three-way partition instead
// (both parts in index order), which read the scalars at ~1 TB/s.
#ifndef CUZK_MSM_SPLIT_KERNEL
#define CUZK_MSM_SPLIT_KERNEL 1
#endif
constexpr unsigned kSplitThreads = 256, kSplitItems = 8;
constexpr unsigned kSplitWarps = kSplitThreads / 32, kSplitTile = kSplitThreads * kSplitItems;

__global__ void __launch_bounds__(kSplitThreads)
    split_kernel(const uint64_t* scalars, uint32_t n, uint32_t* one_idx, uint32_t* rest_idx, uint32_t* counts) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const uint32_t tile = blockIdx.x * kSplitTile;
  ulonglong2 lo[kSplitItems], hi[kSplitItems];
#pragma unroll
  for (unsigned k = 0; k < kSplitItems; ++k) {
    const uint32_t i = tile + k * kSplitThreads + threadIdx.x;
    lo[k] = hi[k] = ulonglong2{0, 0};
    if (i < n) {
      const ulonglong2* p = reinterpret_cast<const ulonglong2*>(scalars + size_t(i) * kScalarLimbs);
      lo[k] = p[0];
      hi[k] = p[1];
    }
  }
  uint32_t ones[kSplitItems], rest[kSplitItems];  // the warp's ballots, item by item
  unsigned warp_ones = 0, warp_rest = 0;
#pragma unroll
  for (unsigned k = 0; k < kSplitItems; ++k) {
    const bool high = (lo[k].y | hi[k].x | hi[k].y) != 0;
    ones[k] = __ballot_sync(0xffffffffu, !high && lo[k].x == 1);
    rest[k] = __ballot_sync(0xffffffffu, high || lo[k].x > 1);
    warp_ones += __popc(ones[k]);
    warp_rest += __popc(rest[k]);
  }
  __shared__ uint32_t base[2][kSplitWarps];
  if (lane == 0) {
    base[0][warp] = warp_ones;
    base[1][warp] = warp_rest;
  }
  __syncthreads();
  if (threadIdx.x < 2) {
    uint32_t* b = base[threadIdx.x];
    uint32_t sum = 0;
    for (unsigned w = 0; w < kSplitWarps; ++w) {
      const uint32_t c = b[w];
      b[w] = sum;
      sum += c;
    }
    const uint32_t start = sum == 0 ? 0 : atomicAdd(&counts[threadIdx.x], sum);
    for (unsigned w = 0; w < kSplitWarps; ++w) b[w] += start;
  }
  __syncthreads();
  const uint32_t below = (1u << lane) - 1;
  uint32_t at_one = base[0][warp], at_rest = base[1][warp];
#pragma unroll
  for (unsigned k = 0; k < kSplitItems; ++k) {
    const uint32_t i = tile + k * kSplitThreads + threadIdx.x;
    if ((ones[k] >> lane) & 1) one_idx[at_one + __popc(ones[k] & below)] = i;
    if ((rest[k] >> lane) & 1) rest_idx[at_rest + __popc(rest[k] & below)] = i;
    at_one += __popc(ones[k]);
    at_rest += __popc(rest[k]);
  }
}

struct ScalarIs {
  const uint64_t* s;
  bool one;  // true: selects scalars == 1; false: scalars > 1
  __device__ bool operator()(uint32_t i) const {
    const uint64_t* k = s + size_t(i) * kScalarLimbs;
    uint64_t high = k[1] | k[2] | k[3];
    return one ? (high == 0 && k[0] == 1) : (high != 0 || k[0] > 1);
  }
};

// CUB's partition; temp == nullptr asks for the scratch size. n < 2^31 (Msm::run's limit):
// 32-bit offsets.
cudaError_t partition_scalars(void* temp, size_t& bytes, const uint64_t* scalars, size_t n, uint32_t* one_idx,
                              uint32_t* rest_idx, uint32_t* counts, cudaStream_t s) {
  thrust::counting_iterator<uint32_t> first(0);
  return cub::DevicePartition::If(temp, bytes, first, one_idx, rest_idx, thrust::make_discard_iterator(), counts,
                                  uint32_t(n), ScalarIs{scalars, true}, ScalarIs{scalars, false}, s);
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
  if constexpr (CUZK_MSM_SPLIT_KERNEL != 0) return 0;
  size_t bytes = 0;
  (void)partition_scalars(nullptr, bytes, nullptr, n, nullptr, nullptr, nullptr, nullptr);
  return bytes;
}

Status classify(const uint64_t* scalars, size_t n, uint32_t* one_idx, uint32_t* rest_idx, uint32_t* counts, void* temp,
                size_t temp_bytes, cudaStream_t s) {
  if constexpr (CUZK_MSM_SPLIT_KERNEL != 0) {
    CUZK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(counts, 0, 2 * sizeof(uint32_t), s), "msm: clearing the split's counts");
    const unsigned blocks = unsigned((n + kSplitTile - 1) / kSplitTile);
    split_kernel<<<blocks, kSplitThreads, 0, s>>>(scalars, uint32_t(n), one_idx, rest_idx, counts);
    return check_launch("msm.split_kernel");
  }
  size_t bytes = temp_bytes;
  CUZK_CUDA_RETURN_IF_ERROR(partition_scalars(temp, bytes, scalars, n, one_idx, rest_idx, counts, s),
                            "msm: splitting the scalars into 0, 1 and the rest");
  return check_launch("msm.partition_scalars");
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
