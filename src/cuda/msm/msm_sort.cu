// CUB-based steps of the device MSM (see msm_sort.hpp).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <cub/block/block_radix_rank.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
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

// Window w's signed digit of the scalar k (Booth: the window's c + 1 bits above the previous
// window's top bit): its magnitude, in [0, 2^(c-1)], and *neg when its sign bit is set (the
// digit is negative unless the magnitude is 0). Its bucket is magnitude - 1, or 2^(c-1) for 0.
__device__ __forceinline__ uint32_t window_digit(const uint64_t* k, unsigned w, unsigned c, bool* neg) {
  const uint32_t raw = w == 0 ? bits_at(k, 0, c) << 1 : bits_at(k, w * c - 1, c + 1);
  uint32_t d = (raw + 1) >> 1;  // window value plus the borrow from below, in [0, 2^c]
  *neg = (raw >> c) & 1;
  if (*neg) d = (uint32_t(1) << c) - d;  // digit = d - 2^c, in [-2^(c-1), 0]
  return d;
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
    bool neg;
    const uint32_t d = window_digit(k, w, c, &neg);
    const uint32_t bucket = d == 0 ? half : d - 1;
    const size_t e = size_t(wl) * m + j;
    keys[e] = shared ? bucket : (uint32_t(wl) << c) | bucket;
    vals[e] = (w * stride + idx) | (uint32_t(neg && d != 0) << 31);
  }
}

// The digits of one bucket set with the sort's first radix pass done as they are written
// (sort_shared_digits). A key of c = 17 to 22 bits takes CUB's onesweep three passes of 8 bits;
// here the digits' pass sorts its low f = c - 16 bits itself, tile by tile as onesweep does, and
// CUB sorts the 16 above in two. A block takes 256 scalars (one a thread) with every window of
// each, ranks its entries by their low f bits in shared memory (cub::BlockRadixRank, stable in
// thread order), stages them there in that order and writes each digit's run whole at the place
// an exclusive scan of every block's counts (digit-major) gives it. The count pass ranks the same
// tiles and writes only the counts.
template <unsigned kBits, unsigned kWindows>
struct FusedTile {
  static constexpr unsigned kThreads = 256, kEntries = kThreads * kWindows, kDigits = 1u << kBits;
  using Rank = cub::BlockRadixRank<kThreads, kBits, false>;
  struct Staged {
    uint32_t keys[kEntries], vals[kEntries];
  };
  union Storage {
    typename Rank::TempStorage rank;
    Staged staged;
  };
};

// counts: the count pass's output, or the scatter pass's input (their scan).
template <unsigned kBits, unsigned kWindows, bool kScatter>
__global__ void __launch_bounds__(256)
    fused_digits_kernel(const uint64_t* scalars, const uint32_t* rest_idx, uint32_t m, unsigned c, uint32_t stride,
                        uint32_t blocks, uint32_t* counts, uint32_t* keys, uint32_t* vals) {
  using T = FusedTile<kBits, kWindows>;
  __shared__ typename T::Storage smem;
  __shared__ uint32_t start[T::kDigits], place[T::kDigits];
  const uint32_t j0 = blockIdx.x * T::kThreads, j = j0 + threadIdx.x;
  const bool valid = j < m;
  uint64_t k[kScalarLimbs] = {0, 0, 0, 0};
  uint32_t idx = 0;
  if (valid) {
    idx = rest_idx[j];
    for (size_t l = 0; l < kScalarLimbs; ++l) k[l] = scalars[size_t(idx) * kScalarLimbs + l];
  }
  // A missing scalar's entries take the last digit: ranked after every entry of the tile.
  uint32_t key[kWindows], val[kWindows];
#pragma unroll
  for (unsigned w = 0; w < kWindows; ++w) {
    bool neg;
    const uint32_t d = window_digit(k, w, c, &neg);
    key[w] = !valid ? ~uint32_t(0) : d == 0 ? uint32_t(1) << (c - 1) : d - 1;
    val[w] = (w * stride + idx) | (uint32_t(neg && d != 0) << 31);
  }
  int rank[kWindows], prefix[1];
  typename T::Rank(smem.rank).RankKeys(key, rank, cub::BFEDigitExtractor<uint32_t>(0, kBits), prefix);
  const uint32_t tile = (min(m, j0 + T::kThreads) - j0) * kWindows;  // the tile's entries
  if (threadIdx.x < T::kDigits) start[threadIdx.x] = uint32_t(prefix[0]);
  __syncthreads();
  if (threadIdx.x < T::kDigits) {
    const uint32_t d = threadIdx.x, end = d + 1 < T::kDigits ? start[d + 1] : tile;
    if constexpr (!kScatter) {
      counts[size_t(d) * blocks + blockIdx.x] = end - start[d];
      return;
    }
    place[d] = counts[size_t(d) * blocks + blockIdx.x] - start[d];  // + the rank in the tile
  }
  if constexpr (kScatter) {
#pragma unroll
    for (unsigned w = 0; w < kWindows; ++w) {
      if (uint32_t(rank[w]) < tile) {
        smem.staged.keys[rank[w]] = key[w];
        smem.staged.vals[rank[w]] = val[w];
      }
    }
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < tile; i += T::kThreads) {
      const uint32_t kk = smem.staged.keys[i], e = place[kk & (T::kDigits - 1)] + i;
      keys[e] = kk;
      vals[e] = smem.staged.vals[i];
    }
  }
}

// The fused pass's (bits, windows) for c-bit windows, all of them in one group; {0, 0} where it
// does not run (CUB sorts keys of 16 bits or fewer in two passes anyway, and above 22 bits the
// tile's staging or the count of blocks' counters grows).
struct FusedShape {
  unsigned bits = 0, windows = 0;
};
constexpr FusedShape fused_shape(unsigned c) {
  if (c < 17 || c > 22) return {};
  // The Booth windows of a 255-bit scalar (BLS12-381's Fr); BN254's 254-bit Fr has as many but
  // at 17 bits (15, not 16), where its digits take the plain path.
  return {c - 16, (256 + c - 1) / c};
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
                       uint32_t* vals_out, size_t m, unsigned c, cudaStream_t s, unsigned lo = 0) {
  if constexpr (CUZK_MSM_SORT_OFFSET32 != 0) {
    if (m <= UINT32_MAX) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, vals_in, vals_out, uint32_t(m), int(lo),
                                             int(c), s);
    }
  }
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, vals_in, vals_out, int64_t(m), int(lo), int(c),
                                         s);
}

// The fused pass's scratch for up to `entries` entries of c-bit keys: the blocks' counts, their
// scan, and CUB's scratch (the scan's, then the sort's of the bits above the pass's).
struct FusedScratch {
  uint32_t *counts = nullptr, *offsets = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0, total = 0;
  FusedScratch(void* base, size_t entries, unsigned c) {
    const FusedShape f = fused_shape(c);
    const size_t counters = (size_t(1) << f.bits) * (entries / (size_t(256) * f.windows) + 1);
    size_t scan = 0, sort = 0;
    (void)cub::DeviceScan::ExclusiveSum(nullptr, scan, counts, offsets, int64_t(counters));
    (void)sort_pairs(nullptr, sort, nullptr, nullptr, nullptr, nullptr, entries, c, nullptr, f.bits);
    const size_t counter_bytes = (counters * sizeof(uint32_t) + 255) / 256 * 256;
    if (auto* b = static_cast<uint8_t*>(base); b != nullptr) {
      counts = reinterpret_cast<uint32_t*>(b);
      offsets = reinterpret_cast<uint32_t*>(b + counter_bytes);
      temp = b + 2 * counter_bytes;
    }
    temp_bytes = std::max(scan, sort);
    total = 2 * counter_bytes + temp_bytes;
  }
};

// The fused pass for C-bit windows: the blocks' counts, their scan, the scatter.
template <unsigned C>
Status fused_digits(const uint64_t* scalars, const uint32_t* rest_idx, size_t m, size_t stride, const FusedScratch& fs,
                    uint32_t* keys, uint32_t* vals, cudaStream_t s) {
  constexpr FusedShape f = fused_shape(C);
  const uint32_t blocks = uint32_t((m + 255) / 256);
  const size_t counters = size_t(blocks) << f.bits;
  fused_digits_kernel<f.bits, f.windows, false>
      <<<blocks, 256, 0, s>>>(scalars, rest_idx, uint32_t(m), C, uint32_t(stride), blocks, fs.counts, keys, vals);
  CUZK_RETURN_IF_ERROR(check_launch("msm.fused_digits_kernel (counts)"));
  size_t bytes = fs.temp_bytes;
  CUZK_CUDA_RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(fs.temp, bytes, fs.counts, fs.offsets, int64_t(counters), s),
                            "msm: scanning the digits' counts");
  fused_digits_kernel<f.bits, f.windows, true>
      <<<blocks, 256, 0, s>>>(scalars, rest_idx, uint32_t(m), C, uint32_t(stride), blocks, fs.offsets, keys, vals);
  return check_launch("msm.fused_digits_kernel (scatter)");
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

// The fused pass (fused_digits_kernel) is on by default: same-call A/Bs on an H100 measured it
// 0.29-0.33 ms faster at 2^22 points in 20-bit windows (BLS12-381 G1), 1.05 ms at 2^24 and 0.35
// in 22-bit windows (both G1s), 0.23-0.44 ms on BLS12-381 G2 at 2^22 (BENCHMARKS.md, "The fused
// digits' pass on by default"). -DCUZK_MSM_FUSED_DIGITS=0 builds the plain path instead: the
// digits written in window order and CUB sorting every bit.
#ifndef CUZK_MSM_FUSED_DIGITS
#define CUZK_MSM_FUSED_DIGITS 1
#endif

size_t shared_digits_temp_bytes(size_t entries, unsigned c) {
  const size_t plain = sort_temp_bytes(entries, c);
  if (CUZK_MSM_FUSED_DIGITS == 0 || fused_shape(c).bits == 0) return plain;
  // The group may hold fewer windows than the fused pass takes: then the plain sort runs.
  return std::max(plain, FusedScratch(nullptr, entries, c).total);
}

Status sort_shared_digits(const uint64_t* scalars, const uint32_t* rest_idx, size_t m, unsigned c, unsigned w0,
                          unsigned wg, size_t stride, uint32_t* keys_mid, uint32_t* vals_mid, uint32_t* keys_out,
                          uint32_t* vals_out, void* temp, size_t temp_bytes, cudaStream_t s) {
  if (m == 0) return Status::ok();
  const size_t entries = size_t(wg) * m;
  const FusedShape f = fused_shape(c);
  if (CUZK_MSM_FUSED_DIGITS == 0 || f.bits == 0 || w0 != 0 || wg != f.windows) {
    CUZK_RETURN_IF_ERROR(window_digits(scalars, rest_idx, m, c, w0, wg, true, stride, keys_mid, vals_mid, s));
    return sort_window(keys_mid, keys_out, vals_mid, vals_out, entries, c, temp, temp_bytes, s);
  }
  const FusedScratch fs(temp, entries, c);
  if (fs.total > temp_bytes) {
    return internal_error("msm: the fused digits' scratch needs " + std::to_string(fs.total) + " bytes, " +
                          std::to_string(temp_bytes) + " were set aside");
  }
  auto digits = [&]() -> Status {
    switch (c) {
      case 17:
        return fused_digits<17>(scalars, rest_idx, m, stride, fs, keys_mid, vals_mid, s);
      case 18:
        return fused_digits<18>(scalars, rest_idx, m, stride, fs, keys_mid, vals_mid, s);
      case 19:
        return fused_digits<19>(scalars, rest_idx, m, stride, fs, keys_mid, vals_mid, s);
      case 20:
        return fused_digits<20>(scalars, rest_idx, m, stride, fs, keys_mid, vals_mid, s);
      case 21:
        return fused_digits<21>(scalars, rest_idx, m, stride, fs, keys_mid, vals_mid, s);
      default:
        return fused_digits<22>(scalars, rest_idx, m, stride, fs, keys_mid, vals_mid, s);
    }
  };
  CUZK_RETURN_IF_ERROR(digits());
  size_t bytes = fs.temp_bytes;
  CUZK_CUDA_RETURN_IF_ERROR(sort_pairs(fs.temp, bytes, keys_mid, keys_out, vals_mid, vals_out, entries, c, s, f.bits),
                            "msm: sorting " + std::to_string(entries) + " bucket entries");
  return check_launch("msm.sort_shared_digits");
}

}  // namespace cuzk::cuda::msm_detail
