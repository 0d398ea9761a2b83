// Kernels and driver of the batched-affine level-1 accumulation (cuda/msm/msm_affine.hpp).
// Included only by the msm_affine_*.cu files, one per G1 group.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "cuda/msm/msm_affine.hpp"
#include "cuda/msm/msm_kernels.cuh"

namespace cuzk::cuda::msm_detail {

constexpr unsigned kInvertFanIn = 32;   // values per thread in each level of the inversion tree
constexpr unsigned kInvertMaxLevels = 16;

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

// Each thread owns kAffineChunk consecutive sorted entries and keeps its list of points in
// its own stretch of the scratch: a round pairs the list's entries 2j and 2j + 1 and
// writes the results forward, in place (pair j's outputs land at or before 2j + 1, read
// already). The denominators' inverses come from suffix products (pre[j] = the product of
// the denominators of pairs after j, laid out [j][thread] so that a warp's accesses are
// contiguous), so the sums go forward: inv = 1 / (all), 1 / d_j = inv · pre[j], then
// inv · d_j for the pairs after j. No global compaction: a chunk's list only shrinks.
constexpr unsigned kAffineChunk = 64;
constexpr unsigned kAffineChunkRounds = 6;  // log2(kAffineChunk): one point per run left

// Entry i of thread t's list: round 0 reads the bases through the sorted entries, later
// rounds the thread's stretch of the scratch.
template <class G, bool kIndexed>
struct ChunkList {
  const ec::Affine<G>* bases;
  const uint32_t* vals;   // sorted values (round 0)
  const uint32_t* skeys;  // sorted keys (round 0)
  const ec::Affine<G>* pts;
  const uint32_t* lkeys;
  size_t lo;
  __device__ __forceinline__ ec::Affine<G> point(size_t i) const {
    if constexpr (kIndexed) {
      return round_point<G, true>(bases, vals, lo + i);
    } else {
      return pts[lo + i];
    }
  }
  __device__ __forceinline__ uint32_t key(size_t i) const { return kIndexed ? skeys[lo + i] : lkeys[lo + i]; }
};

// The suffix products of the denominators of a list of len entries; their product.
template <class G, bool kIndexed>
__device__ __forceinline__ void chunk_suffix_products(const ChunkList<G, kIndexed>& list, size_t len, size_t t,
                                                      size_t threads, typename G::Base* pre, typename G::Base* prod) {
  using Base = typename G::Base;
  Base acc = Base::one();
  for (size_t j = (len + 1) / 2; j-- > 0;) {
    const size_t i = 2 * j;
    const bool has_b = i + 1 < len;
    const ec::Affine<G> a = list.point(i);
    const ec::Affine<G> b = has_b ? list.point(i + 1) : ec::Affine<G>::infinity();
    const unsigned kind = pair_kind<G>(has_b, list.key(i), has_b ? list.key(i + 1) : 0u, a, b);
    if (kind == kPairAdd || kind == kPairDouble) {
      pre[j * threads + t] = acc;
      acc = acc * pair_denominator<G>(kind, a, b);
    }
  }
  prod[t] = acc;
}

// The first round's denominators, over the sorted entries.
template <class G>
__global__ void __launch_bounds__(kThreads)
    affine_first_kernel(const ec::Affine<G>* bases, const uint32_t* vals, const uint32_t* skeys, size_t entries,
                        size_t threads, typename G::Base* pre, typename G::Base* prod) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const size_t lo = t * kAffineChunk;
  const ChunkList<G, true> list{bases, vals, skeys, nullptr, nullptr, lo};
  chunk_suffix_products<G, true>(list, min(size_t(kAffineChunk), entries - lo), t, threads, pre, prod);
}

// What the last round hands its sums to: the XYZZ accumulation of the chunk, run by run,
// with accumulate_chunk's outputs (a run inside the chunk is a whole bucket and is stored;
// the first and the last go out as the thread's two partial sums).
template <class G>
struct ChunkSink {
  using P = ec::Xyzz<G>;
  size_t t;
  unsigned c;
  size_t nb;
  P* buckets;
  uint32_t* out_keys;
  P* out_vals;
  bool last_level;
  uint32_t cur = 0;
  P acc = P::infinity();
  bool head = true, any = false;

  __device__ __forceinline__ void push(uint32_t k, const ec::Affine<G>& p) {
    if (!any) {
      cur = k;
      any = true;
    } else if (k != cur) {
      if (head && !last_level) {
        out_keys[2 * t] = cur;
        out_vals[2 * t] = acc;
      } else {
        buckets[slot_of(cur, c, nb)] = acc;
      }
      head = false;
      acc = P::infinity();
      cur = k;
    }
    accumulate_add<G>(acc, p);
  }
  // `neutral`: a key inside the chunk's range, for a chunk whose points all cancelled.
  __device__ __forceinline__ void finish(uint32_t neutral) {
    if (!any) {
      if (!last_level) {
        out_keys[2 * t] = neutral;
        out_keys[2 * t + 1] = neutral;
        out_vals[2 * t] = P::infinity();
        out_vals[2 * t + 1] = P::infinity();
      }
      return;
    }
    if (last_level) {
      buckets[slot_of(cur, c, nb)] = acc;
      return;
    }
    if (head) {
      out_keys[2 * t] = cur;
      out_vals[2 * t] = acc;
      acc = P::infinity();
    }
    out_keys[2 * t + 1] = cur;
    out_vals[2 * t + 1] = acc;
  }
};

// A round's sums, with prod[t] = 1 / (the thread's product), written back as the thread's
// new list; then the next round's denominators over it or, in the last round, its XYZZ
// accumulation.
template <class G, bool kIndexed, bool kLast>
__global__ void __launch_bounds__(kThreads, accumulate_min_blocks<G>())
    affine_round_kernel(const ec::Affine<G>* bases, const uint32_t* vals, const uint32_t* skeys, size_t entries,
                        size_t threads, ec::Affine<G>* pts, uint32_t* lkeys, uint32_t* lens, typename G::Base* pre,
                        typename G::Base* prod, unsigned c, size_t nb, ec::Xyzz<G>* buckets, uint32_t* out_keys,
                        ec::Xyzz<G>* out_vals, bool last_level) {
  using Base = typename G::Base;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const size_t lo = t * kAffineChunk;
  const ChunkList<G, kIndexed> list{bases, vals, skeys, pts, lkeys, lo};
  const size_t len = kIndexed ? min(size_t(kAffineChunk), entries - lo) : size_t(lens[t]);
  Base inv = prod[t];
  size_t pos = 0;
  auto emit = [&](uint32_t k, const ec::Affine<G>& p) {
    pts[lo + pos] = p;
    lkeys[lo + pos] = k;
    ++pos;
  };
  for (size_t j = 0; 2 * j < len; ++j) {
    const size_t i = 2 * j;
    const bool has_b = i + 1 < len;
    const ec::Affine<G> a = list.point(i);
    const ec::Affine<G> b = has_b ? list.point(i + 1) : ec::Affine<G>::infinity();
    const uint32_t ka = list.key(i), kb = has_b ? list.key(i + 1) : 0u;
    const unsigned kind = pair_kind<G>(has_b, ka, kb, a, b);
    if (kind == kPairAdd || kind == kPairDouble) {
      const Base di = inv * pre[j * threads + t];
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
      emit(ka, ec::Affine<G>{x3, l * (a.x - x3) - a.y});
    } else {
      if (kind & kPairKeepA) emit(ka, a);
      if (kind & kPairKeepB) emit(kb, b);
    }
  }
  if constexpr (kLast) {
    // Read back (the thread's own writes, from L2): the accumulator is not live beside the
    // affine sums, which keeps the kernel within its registers.
    ChunkSink<G> sink{t, c, nb, buckets, out_keys, out_vals, last_level};
    for (size_t i = 0; i < pos; ++i) sink.push(lkeys[lo + i], pts[lo + i]);
    sink.finish(skeys[lo]);
  } else {
    lens[t] = uint32_t(pos);
    const ChunkList<G, false> next{bases, vals, skeys, pts, lkeys, lo};
    chunk_suffix_products<G, false>(next, pos, t, threads, pre, prod);
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
  F* level_vals[kInvertMaxLevels + 1];
  F* level_pre[kInvertMaxLevels];
  size_t level_n[kInvertMaxLevels + 1];
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

// The scratch: the threads' lists (points; their keys go to the caller's key buffer),
// their lengths, the suffix products, the threads' products and their inversion tree.
template <class G>
struct AffineScratch {
  using A = ec::Affine<G>;
  using Base = typename G::Base;
  A* pts;
  Base *pre, *prod, *tree;
  uint32_t* lens;
  AffineScratch(uint8_t* base, size_t entries, size_t& total) {
    const size_t threads = ceil_div(entries, kAffineChunk);
    Carver cv(base);
    pts = cv.take<A>(entries);
    pre = cv.take<Base>(threads * (kAffineChunk / 2));
    prod = cv.take<Base>(threads);
    tree = cv.take<Base>(invert_scratch_elems(threads));
    lens = cv.take<uint32_t>(threads);
    total = cv.used();
  }
};

// CUZK_MSM_AFFINE_ROUNDS=1..6 overrides the rounds (a benchmark's knob; read once).
inline unsigned affine_rounds_from_env() {
  static const unsigned r = [] {
    const char* v = std::getenv("CUZK_MSM_AFFINE_ROUNDS");
    const unsigned x = v != nullptr ? unsigned(std::strtoul(v, nullptr, 10)) : 0u;
    return x <= kAffineChunkRounds ? x : 0u;
  }();
  return r;
}

template <class G>
unsigned AffineAccumulation<G>::rounds_for(size_t entries, size_t distinct) {
  if (const unsigned r = affine_rounds_from_env(); r != 0) return r;
  // Until about two points per run and chunk are left for the XYZZ additions.
  const size_t per_key = std::min<size_t>(entries / std::max<size_t>(distinct, 1), kAffineChunk);
  const unsigned lg = per_key == 0 ? 0 : floor_log2(per_key);
  return lg > 1 ? lg - 1 : 0u;
}

// The default: XYZZ everywhere until measured otherwise.
template <class G>
bool AffineAccumulation<G>::chosen(size_t) {
  return false;
}

template <class G>
size_t AffineAccumulation<G>::scratch_bytes(size_t entries) {
  if (entries == 0) return 0;
  size_t total = 0;
  AffineScratch<G>(nullptr, entries, total);
  return total;
}

template <class G>
Result<size_t> AffineAccumulation<G>::run(const ec::Affine<G>* bases, const uint32_t* keys, const uint32_t* vals,
                                          size_t entries, unsigned rounds, unsigned c, size_t nb, ec::Xyzz<G>* buckets,
                                          uint32_t* out_keys, ec::Xyzz<G>* out_vals, uint32_t* list_keys,
                                          uint8_t* scratch, cudaStream_t s) {
  rounds = std::clamp(rounds, 1u, kAffineChunkRounds);
  size_t total = 0;
  AffineScratch<G> sc(scratch, entries, total);
  const size_t threads = ceil_div(entries, kAffineChunk);
  const unsigned blocks = blocks_for(threads);
  const bool last_level = threads == 1;
  affine_first_kernel<G><<<blocks, kThreads, 0, s>>>(bases, vals, keys, entries, threads, sc.pre, sc.prod);
  CUZK_RETURN_IF_ERROR(check_launch("msm.affine_first_kernel"));
  for (unsigned r = 0; r < rounds; ++r) {
    CUZK_RETURN_IF_ERROR(invert_all(sc.prod, threads, sc.tree, s));
    const bool last = r + 1 == rounds;
    auto* kernel = r == 0 ? (last ? affine_round_kernel<G, true, true> : affine_round_kernel<G, true, false>)
                          : (last ? affine_round_kernel<G, false, true> : affine_round_kernel<G, false, false>);
    kernel<<<blocks, kThreads, 0, s>>>(bases, vals, keys, entries, threads, sc.pts, list_keys, sc.lens, sc.pre, sc.prod,
                                       c, nb, buckets, out_keys, out_vals, last_level);
    CUZK_RETURN_IF_ERROR(check_launch("msm.affine_round_kernel"));
  }
  return threads;
}

}  // namespace cuzk::cuda::msm_detail

#define CUZK_INSTANTIATE_MSM_AFFINE(G) template struct cuzk::cuda::msm_detail::AffineAccumulation<G>
