// Kernels and driver of the batched-affine level-1 accumulation (cuda/msm/msm_affine.hpp).
// Included only by the msm_affine_*.cu files, one per G1 group.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cuda/msm/msm_affine.hpp"
#include "cuda/msm/msm_kernels.cuh"

namespace cuzk::cuda::msm_detail {

constexpr unsigned kAffinePairs = 8;    // pairs per thread in a round
constexpr unsigned kInvertFanIn = 32;   // values per thread in each level of the inversion tree
constexpr unsigned kAffineMaxLevels = 16;

// What one pair (entries 2j, 2j + 1) of a round does. Bits 0 / 1: entry a / b passes
// through as it is; kAdd / kDouble: their sum is written (one entry).
enum : unsigned { kPairDrop = 0, kPairKeepA = 1, kPairKeepB = 2, kPairKeepBoth = 3, kPairAdd = 4, kPairDouble = 5 };

__device__ __forceinline__ unsigned pair_outputs(unsigned kind) {
  return kind == kPairDrop ? 0u : kind == kPairKeepBoth ? 2u : 1u;
}

template <class G>
__device__ __forceinline__ unsigned pair_kind(bool has_b, uint32_t ka, uint32_t kb, const ec::Affine<G>& a,
                                              const ec::Affine<G>& b) {
  const bool ia = a.is_infinity();
  if (!has_b) return ia ? kPairDrop : kPairKeepA;
  const bool ib = b.is_infinity();
  if (ka != kb || ia || ib) return (ia ? 0u : kPairKeepA) | (ib ? 0u : kPairKeepB);
  if (a.x != b.x) return kPairAdd;
  return a.y == b.y ? kPairDouble : kPairDrop;  // P + P, or P + (-P) = infinity
}

// Entry i of a round's input: round 0 reads the bases through the sorted values (bit 31
// negates), later rounds the previous round's points.
template <class G, bool kIndexed>
__device__ __forceinline__ ec::Affine<G> round_point(const ec::Affine<G>* src, const uint32_t* vals, size_t i) {
  if constexpr (kIndexed) {
    const uint32_t v = vals[i];
    ec::Affine<G> p = src[v & 0x7fffffffu];
    if (v >> 31) p.y = -p.y;  // -(0, 0) is (0, 0)
    return p;
  } else {
    return src[i];
  }
}

template <class G>
__device__ __forceinline__ typename G::Base pair_denominator(unsigned kind, const ec::Affine<G>& a,
                                                             const ec::Affine<G>& b) {
  return kind == kPairAdd ? b.x - a.x : a.y.dbl();
}

// Pass 1 of a round: each thread's kAffinePairs pairs; the prefix products of their
// denominators (pre, laid out [k][thread] so a warp's stores are contiguous), their
// product, and the thread's output count.
template <class G, bool kIndexed>
__global__ void __launch_bounds__(kThreads)
    affine_denominators_kernel(const ec::Affine<G>* src, const uint32_t* vals, const uint32_t* keys, size_t n_bound,
                               const uint32_t* d_n, size_t threads, typename G::Base* pre, typename G::Base* prod,
                               uint32_t* counts) {
  using Base = typename G::Base;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const size_t n = d_n != nullptr ? size_t(*d_n) : n_bound;
  Base acc = Base::one();
  uint32_t outs = 0;
  for (unsigned k = 0; k < kAffinePairs; ++k) {
    const size_t i = 2 * (t * kAffinePairs + k);
    if (i >= n) break;
    const bool has_b = i + 1 < n;
    const ec::Affine<G> a = round_point<G, kIndexed>(src, vals, i);
    const ec::Affine<G> b = has_b ? round_point<G, kIndexed>(src, vals, i + 1) : ec::Affine<G>::infinity();
    const unsigned kind = pair_kind<G>(has_b, keys[i], has_b ? keys[i + 1] : 0u, a, b);
    outs += pair_outputs(kind);
    if (kind == kPairAdd || kind == kPairDouble) {
      pre[size_t(k) * threads + t] = acc;
      acc = acc * pair_denominator<G>(kind, a, b);
    }
  }
  prod[t] = acc;
  counts[t] = outs;
}

// Pass 2 of a round, backwards over each thread's pairs: inv = 1 / (the thread's product)
// gives each denominator's inverse (Montgomery's trick); the sums and the points that pass
// through are written compacted, in key order, ending at incl[t] (the inclusive scan of the
// counts).
template <class G, bool kIndexed>
__global__ void __launch_bounds__(kThreads)
    affine_sums_kernel(const ec::Affine<G>* src, const uint32_t* vals, const uint32_t* keys, size_t n_bound,
                       const uint32_t* d_n, size_t threads, const typename G::Base* pre,
                       const typename G::Base* inv_prod, const uint32_t* incl, uint32_t* out_keys,
                       ec::Affine<G>* out_pts) {
  using Base = typename G::Base;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const size_t n = d_n != nullptr ? size_t(*d_n) : n_bound;
  const size_t first = 2 * t * kAffinePairs;
  if (first >= n) return;
  const unsigned pairs = unsigned(min(size_t(kAffinePairs), (n - first + 1) / 2));
  Base inv = inv_prod[t];
  size_t pos = incl[t];
  for (unsigned k = pairs; k-- > 0;) {
    const size_t i = first + 2 * size_t(k);
    const bool has_b = i + 1 < n;
    const ec::Affine<G> a = round_point<G, kIndexed>(src, vals, i);
    const ec::Affine<G> b = has_b ? round_point<G, kIndexed>(src, vals, i + 1) : ec::Affine<G>::infinity();
    const uint32_t ka = keys[i], kb = has_b ? keys[i + 1] : 0u;
    const unsigned kind = pair_kind<G>(has_b, ka, kb, a, b);
    if (kind == kPairAdd || kind == kPairDouble) {
      const Base di = inv * pre[size_t(k) * threads + t];
      inv = inv * pair_denominator<G>(kind, a, b);
      Base num;
      if (kind == kPairAdd) {
        num = b.y - a.y;
      } else {
        const Base xx = a.x.square();
        num = xx.dbl() + xx;  // 3x^2 (a = 0)
      }
      const Base l = num * di;
      const Base x3 = l.square() - a.x - b.x;  // b.x = a.x when doubling
      --pos;
      out_keys[pos] = ka;
      out_pts[pos] = {x3, l * (a.x - x3) - a.y};
    } else {
      if (kind & kPairKeepB) {
        --pos;
        out_keys[pos] = kb;
        out_pts[pos] = b;
      }
      if (kind & kPairKeepA) {
        --pos;
        out_keys[pos] = ka;
        out_pts[pos] = a;
      }
    }
  }
}

// The inversion tree: level l's values in chunks of kInvertFanIn, each chunk's prefix
// products (pre) and product (next, level l + 1's value); one inversion at the root; on
// the way down every value is replaced by its inverse. No value is zero.
template <class F>
__global__ void __launch_bounds__(kThreads) invert_up_kernel(const F* vals, size_t n, F* pre, F* next) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t lo = t * kInvertFanIn;
  if (lo >= n) return;
  const size_t hi = min(n, lo + kInvertFanIn);
  F acc = F::one();
  for (size_t i = lo; i < hi; ++i) {
    pre[i] = acc;
    acc = acc * vals[i];
  }
  next[t] = acc;
}

template <class F>
__global__ void invert_root_kernel(F* vals, size_t n) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  F pre[kInvertFanIn];
  F acc = F::one();
  for (size_t i = 0; i < n; ++i) {
    pre[i] = acc;
    acc = acc * vals[i];
  }
  F inv = acc.inverse();
  for (size_t i = n; i-- > 0;) {
    const F x = vals[i];
    vals[i] = inv * pre[i];
    inv = inv * x;
  }
}

template <class F>
__global__ void __launch_bounds__(kThreads) invert_down_kernel(F* vals, size_t n, const F* pre, const F* next) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t lo = t * kInvertFanIn;
  if (lo >= n) return;
  const size_t hi = min(n, lo + kInvertFanIn);
  F inv = next[t];
  for (size_t i = hi; i-- > lo;) {
    const F x = vals[i];
    vals[i] = inv * pre[i];
    inv = inv * x;
  }
}

inline size_t invert_scratch_elems(size_t n) {
  size_t total = 0;
  while (n > kInvertFanIn) {
    const size_t next = ceil_div(n, kInvertFanIn);
    total += n + next;
    n = next;
  }
  return total;
}

template <class F>
Status invert_all(F* vals, size_t n, F* scratch, cudaStream_t s) {
  F* level_vals[kAffineMaxLevels + 1];
  F* level_pre[kAffineMaxLevels];
  size_t level_n[kAffineMaxLevels + 1];
  unsigned levels = 0;
  level_vals[0] = vals;
  level_n[0] = n;
  while (level_n[levels] > kInvertFanIn) {
    const size_t next = ceil_div(level_n[levels], kInvertFanIn);
    level_pre[levels] = scratch;
    level_vals[levels + 1] = scratch + level_n[levels];
    scratch += level_n[levels] + next;
    invert_up_kernel<F><<<blocks_for(next), kThreads, 0, s>>>(level_vals[levels], level_n[levels], level_pre[levels],
                                                               level_vals[levels + 1]);
    CUZK_RETURN_IF_ERROR(check_launch("msm.invert_up_kernel"));
    level_n[++levels] = next;
  }
  invert_root_kernel<F><<<1, 1, 0, s>>>(level_vals[levels], level_n[levels]);
  CUZK_RETURN_IF_ERROR(check_launch("msm.invert_root_kernel"));
  for (unsigned l = levels; l-- > 0;) {
    invert_down_kernel<F><<<blocks_for(ceil_div(level_n[l], kInvertFanIn)), kThreads, 0, s>>>(
        level_vals[l], level_n[l], level_pre[l], level_vals[l + 1]);
    CUZK_RETURN_IF_ERROR(check_launch("msm.invert_down_kernel"));
  }
  return Status::ok();
}

// The XYZZ level 1 over the rounds' points (as accumulate_points_kernel over the bases);
// the count is on the device, so threads past it leave neutral partials (the last key,
// infinity) that keep the next level's input sorted.
template <class G>
__global__ void __launch_bounds__(kThreads, accumulate_min_blocks<G>())
    affine_level1_kernel(const ec::Affine<G>* pts, const uint32_t* keys, const uint32_t* d_n, size_t per_thread,
                         size_t threads, unsigned c, size_t nb, ec::Xyzz<G>* buckets, uint32_t* out_keys,
                         ec::Xyzz<G>* out_vals, bool last_level) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const size_t n = *d_n;
  if (t * per_thread >= n) {
    if (!last_level) {
      const uint32_t k = n != 0 ? keys[n - 1] : 0u;
      out_keys[2 * t] = k;
      out_keys[2 * t + 1] = k;
      out_vals[2 * t] = ec::Xyzz<G>::infinity();
      out_vals[2 * t + 1] = ec::Xyzz<G>::infinity();
    }
    return;
  }
  accumulate_chunk<G, false, false>(keys, n, per_thread, 0, SIZE_MAX, c, nb, buckets, out_keys, out_vals, last_level,
                                    [&](size_t i, ec::Xyzz<G>& acc) { accumulate_add<G>(acc, pts[i]); });
}

// Host-side sizes of the rounds, from the bound on each round's input.
struct AffineRoundSizes {
  size_t n[kAffineMaxLevels * 2 + 1];  // n[r]: bound on round r's input entries
  size_t threads0 = 0;                 // threads of round 0 (the most of any round)
  AffineRoundSizes(size_t entries, size_t distinct, unsigned rounds) {
    n[0] = entries;
    for (unsigned r = 0; r < rounds; ++r) {
      const size_t pairs = ceil_div(n[r], 2);
      n[r + 1] = std::min(n[r], pairs + std::min(pairs, distinct == 0 ? 0 : distinct - 1));
    }
    threads0 = ceil_div(ceil_div(entries, 2), kAffinePairs);
  }
  static size_t threads(size_t n_r) { return ceil_div(ceil_div(n_r, 2), kAffinePairs); }
};

constexpr unsigned kAffineMaxRounds = kAffineMaxLevels * 2;

// The scratch: two point buffers (even rounds write the first), the prefix products, the
// thread products and their inversion tree, the counts, two scans (a round's count is the
// previous scan's last value), CUB's temporary.
template <class G>
struct AffineScratch {
  using A = ec::Affine<G>;
  using Base = typename G::Base;
  A* pts[2];
  Base *pre, *prod, *tree;
  uint32_t *counts, *incl[2];
  void* temp;
  size_t temp_bytes;
  // Sized for two rounds or more: monotone in entries and distinct, so one bound covers
  // every group of a size range.
  AffineScratch(uint8_t* base, size_t entries, size_t distinct, size_t& total) {
    const AffineRoundSizes z(entries, distinct, 2);
    const size_t t0 = z.threads0;
    Carver cv(base);
    pts[0] = cv.take<A>(z.n[1]);
    pts[1] = cv.take<A>(z.n[2]);
    pre = cv.take<Base>(t0 * kAffinePairs);
    prod = cv.take<Base>(t0);
    tree = cv.take<Base>(invert_scratch_elems(t0));
    counts = cv.take<uint32_t>(t0);
    incl[0] = cv.take<uint32_t>(t0);
    incl[1] = cv.take<uint32_t>(t0);
    temp_bytes = inclusive_sum_temp_bytes(t0);
    temp = cv.take<uint8_t>(temp_bytes);
    total = cv.used();
  }
};

template <class G>
unsigned AffineAccumulation<G>::rounds_for(size_t entries, size_t distinct) {
  const size_t per_key = entries / std::max<size_t>(distinct, 1);
  const unsigned lg = per_key == 0 ? 0 : floor_log2(per_key);
  return std::min(lg > 2 ? lg - 2 : 0u, kAffineMaxRounds);
}

// Never by default: slower than XYZZ at every size measured on the H200 (BLS12-381 G1
// 2^24 132.8 against 121.9 ms, BN254 G1 80.8 against 56.9; BENCHMARKS.md, H13).
template <class G>
bool AffineAccumulation<G>::chosen(size_t) {
  return false;
}

template <class G>
size_t AffineAccumulation<G>::scratch_bytes(size_t entries, size_t distinct) {
  if (entries == 0) return 0;
  size_t total = 0;
  AffineScratch<G>(nullptr, entries, distinct, total);
  return total;
}

template <class G>
Result<size_t> AffineAccumulation<G>::run(const ec::Affine<G>* bases, const uint32_t* keys, const uint32_t* vals,
                                          size_t entries, size_t distinct, unsigned rounds, unsigned c, size_t nb,
                                          ec::Xyzz<G>* buckets, uint32_t* out_keys, ec::Xyzz<G>* out_vals,
                                          uint32_t* key_a, uint32_t* key_b, uint8_t* scratch, cudaStream_t s) {
  using A = ec::Affine<G>;
  rounds = std::clamp(rounds, 1u, kAffineMaxRounds);
  size_t total = 0;
  AffineScratch<G> sc(scratch, entries, distinct, total);
  const AffineRoundSizes z(entries, distinct, rounds);
  uint32_t* key_bufs[2] = {key_a, key_b};
  const A* src = bases;
  const uint32_t* src_keys = keys;
  const uint32_t* d_n = nullptr;  // round 0's count is the host's
  for (unsigned r = 0; r < rounds; ++r) {
    const size_t threads = AffineRoundSizes::threads(z.n[r]);
    const unsigned blocks = blocks_for(threads);
    if (r == 0) {
      affine_denominators_kernel<G, true>
          <<<blocks, kThreads, 0, s>>>(src, vals, src_keys, z.n[r], d_n, threads, sc.pre, sc.prod, sc.counts);
    } else {
      affine_denominators_kernel<G, false>
          <<<blocks, kThreads, 0, s>>>(src, nullptr, src_keys, z.n[r], d_n, threads, sc.pre, sc.prod, sc.counts);
    }
    CUZK_RETURN_IF_ERROR(check_launch("msm.affine_denominators_kernel"));
    uint32_t* incl = sc.incl[r & 1];
    CUZK_RETURN_IF_ERROR(inclusive_sum(sc.counts, incl, threads, sc.temp, sc.temp_bytes, s));
    CUZK_RETURN_IF_ERROR(invert_all(sc.prod, threads, sc.tree, s));
    A* out = sc.pts[r & 1];
    uint32_t* out_k = key_bufs[r & 1];
    if (r == 0) {
      affine_sums_kernel<G, true><<<blocks, kThreads, 0, s>>>(src, vals, src_keys, z.n[r], d_n, threads, sc.pre,
                                                              sc.prod, incl, out_k, out);
    } else {
      affine_sums_kernel<G, false><<<blocks, kThreads, 0, s>>>(src, nullptr, src_keys, z.n[r], d_n, threads, sc.pre,
                                                               sc.prod, incl, out_k, out);
    }
    CUZK_RETURN_IF_ERROR(check_launch("msm.affine_sums_kernel"));
    src = out;
    src_keys = out_k;
    d_n = incl + (threads - 1);
  }
  const size_t left = z.n[rounds];
  const size_t per_thread = first_per_thread(left);
  const size_t threads = ceil_div(left, per_thread);
  affine_level1_kernel<G><<<blocks_for(threads), kThreads, 0, s>>>(src, src_keys, d_n, per_thread, threads, c, nb,
                                                                   buckets, out_keys, out_vals, threads == 1);
  CUZK_RETURN_IF_ERROR(check_launch("msm.affine_level1_kernel"));
  return threads;
}

}  // namespace cuzk::cuda::msm_detail

#define CUZK_INSTANTIATE_MSM_AFFINE(G) template struct cuzk::cuda::msm_detail::AffineAccumulation<G>
