// Kernels and the host driver behind cuda/msm/msm.hpp. Included only by the msm_*.cu
// files, one per group, so the device builds of the four groups compile in parallel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/msm/msm_affine.hpp"
#include "cuda/msm/msm_sort.hpp"
#include "cuda/msm/outlined_products.cuh"
#include "cuda/msm/quad_ops.cuh"
#include "cuda/msm/window_sums.hpp"
#include "cuda/pacer.hpp"
#include "ec/xyzz_madd.hpp"

namespace cuzk::cuda::msm_detail {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxWindows = 128;              // c >= 2 over at most 256 bits
constexpr size_t kGroupEntries = size_t(1) << 26;  // sorted (bucket, point) pairs per window group
// With precomputed bases every group after the first costs a fold of the whole bucket set
// (2^(c-1) full additions): their groups are larger. At 2^24 points with 22-bit windows
// (12 windows, 2^21 buckets) the four groups of 2^26 entries spent 3 folds, and at 24 bits
// (2^23 buckets) 4 folds and the reduction took 29 ms of a 124 ms MSM (H200). 2^30 entries
// (~30 bytes of scratch each) hold every window of 2^26 points in one group.
constexpr size_t kSharedGroupEntries = size_t(1) << 30;
constexpr size_t kOnesPartials = 131072;  // at most this many threads sum the scalars equal to 1
// log2 of the buckets per thread in the first reduction level (first_chunk_log below): 8
// below 16-bit windows (enough threads); 16 from 16 bits (half the items, and so half the
// cost, of the second level); 32 from 22 bits for BLS12-381 G1. Both wide ones are CUDA
// defines so that an A/B can move the split between the first level (throughput) and the
// pair levels after it (latency, one launch each) without a code change.
#ifndef CUZK_MSM_FIRST_CHUNK_LOG_WIDE
#define CUZK_MSM_FIRST_CHUNK_LOG_WIDE 4
#endif
#ifndef CUZK_MSM_FIRST_CHUNK_LOG_WIDEST
#define CUZK_MSM_FIRST_CHUNK_LOG_WIDEST 5
#endif
constexpr unsigned kFirstChunkLog = 3, kWideWindowBits = 16;
constexpr unsigned kFirstChunkLogWide = CUZK_MSM_FIRST_CHUNK_LOG_WIDE, kWidestWindowBits = 22;
constexpr unsigned kFirstChunkLogWidest = CUZK_MSM_FIRST_CHUNK_LOG_WIDEST;
constexpr unsigned kReduceFanIn = 16;        // the ones' sum
constexpr unsigned kPartialsPerThread = 16;  // accumulation levels after the first
constexpr unsigned kMergePieces = 8;         // merge_partials_kernel: longer runs go to the levels
constexpr uint32_t kGapKey = 0xffffffffu;    // no entry (keys are below 2^31)
constexpr unsigned kMinWindowBits = 2, kMaxWindowBits = 28;

// A paced run (cuda/pacer.hpp) issues its level-1 accumulation and its ones' sum in
// launches of about this many entries, ~2 ms each on the H200 (G1 adds ~2.2 G mixed
// additions/s; a G2 addition costs ~4 times as much), with a pacer boundary between them.
template <class G>
constexpr size_t paced_slice_entries() {
  return sizeof(typename G::Base) <= 48 ? size_t(1) << 22 : size_t(1) << 20;
}

inline unsigned floor_log2(size_t x) {
  unsigned r = 0;
  while (x >>= 1) ++r;
  return r;
}
inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
inline unsigned blocks_for(size_t threads) { return unsigned(ceil_div(threads, kThreads)); }

// Window layout for m points of `bits`-bit scalars. The width depends on m only through
// floor(log2 m), so scratch_bytes() can bound every run of up to n points.
struct Plan {
  size_t m = 0;
  unsigned c = 0, windows = 0, group = 0;
  size_t nb = 0;         // buckets per window, 2^(c-1); slot nb collects zero digits
  bool shared = false;   // precomputed bases: every window adds into one bucket set
  size_t stride = 0;     // precomputed bases: points per copy (window w reads copy w)
  unsigned log_l1 = 0;   // log2 of the first reduction level's chunk
  size_t group_cap = 0;  // entries per window group instead of the default (0; tests)
  size_t bucket_rows() const { return shared ? 1 : group; }
  size_t reduce_rows() const { return shared ? 1 : windows; }
  size_t first_chunks() const { return nb >> log_l1; }  // per reduced row
  size_t group_entries() const { return group_cap != 0 ? group_cap : shared ? kSharedGroupEntries : kGroupEntries; }
  // Entries of the largest window group over at most m_hi points.
  size_t max_group_entries(size_t m_hi) const {
    return std::min(size_t(windows) * m_hi, std::max(m_hi, group_entries()));
  }
};

// Mixed additions a bucket costs in the reduction, beside the one per point per window:
// two full additions (~1.4 mixed each) in the first level, the memset and the writes.
constexpr double kBucketCost = 3.2;

inline unsigned windows_for(unsigned c, size_t bits) { return unsigned(ceil_div(bits + 1, c)); }

inline unsigned choose_window(size_t m, size_t bits, double bucket_cost = kBucketCost) {
  const double m_eff = double(size_t(1) << floor_log2(m)) * 1.4;
  unsigned best = 2;
  double best_cost = 1e300;
  // Up to 22 bits: the model picks 22 from 2^26 points on (12 windows instead of 13).
  for (unsigned c = 2; c <= 22; ++c) {
    double cost = double(windows_for(c, bits)) * (m_eff + bucket_cost * double(size_t(1) << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Entries per thread in the first accumulation level: a power of two, more threads for
// small groups. The thread count stays below max(2^18, entries / 64).
inline size_t first_per_thread(size_t entries) {
  size_t q = entries >> 17;
  size_t pt = q == 0 ? 1 : size_t(1) << floor_log2(q);
  return std::clamp<size_t>(pt, 4, 64);
}
inline size_t first_partials_bound(size_t entries) {
  size_t t = std::max(std::min(ceil_div(entries, 4), size_t(1) << 18), ceil_div(entries, 64));
  return 2 * t;
}

// Blocks per SM the accumulation kernels are compiled for (level 1 and the ones' sum).
// BLS12-381 G1: 3 (168 registers; 7ca247e, products inlined: ~3% ahead of the compiler's
// choice; with the products out of line, 4 blocks in 128 registers spill a little and ran
// 0-1.5% slower). BN254 G1: 4 (128 registers, no spills; 2.2-4.9% faster than the compiler's
// 3 blocks at 142). G2: the compiler's choice (BLS12-381 G2 at 4 blocks: 20% slower; at 3 its
// level 1 spills ~2.9 KB a thread). BENCHMARKS.md, "Level 1 at four blocks per SM" and "Three
// device-code variants timed".
template <class G>
constexpr int accumulate_min_blocks() {
  constexpr bool g2 = requires(typename G::Base b) { b.c1; };
  if constexpr (g2) return 1;
  return sizeof(typename G::Base) == 48 ? 3 : 4;
}

// Carves one device allocation into aligned pieces; with a null base it only measures.
class Carver {
 public:
  explicit Carver(uint8_t* base) : base_(base) {}
  template <class T>
  T* take(size_t count) {
    size_t at = (used_ + 255) & ~size_t(255);
    used_ = at + count * sizeof(T);
    return base_ ? reinterpret_cast<T*>(base_ + at) : nullptr;
  }
  size_t used() const { return used_; }

 private:
  uint8_t* base_;
  size_t used_ = 0;
};

// Scratch of the split and of the ones' sum, for n points.
template <class G>
struct SplitScratch {
  using P = ec::Xyzz<G>;
  uint32_t *one_idx, *rest_idx, *counts;
  void* temp;
  size_t temp_bytes;
  P *results, *ones_part, *ones_red;  // results: [0] the ones' sum, [1 + w] window w
  SplitScratch(uint8_t* base, size_t n, size_t& total) {
    Carver cv(base);
    one_idx = cv.take<uint32_t>(n);
    rest_idx = cv.take<uint32_t>(n);
    counts = cv.take<uint32_t>(2);
    temp_bytes = classify_temp_bytes(n);
    temp = cv.take<uint8_t>(temp_bytes);
    results = cv.take<P>(1 + kMaxWindows);
    const size_t parts = std::min(n, kOnesPartials);
    ones_part = cv.take<P>(parts);
    ones_red = cv.take<P>(2 * (ceil_div(parts, kReduceFanIn) + 1));
    total = cv.used();
  }
};

// Scratch of Pippenger: one window group's `entries` sorted pairs and `buckets_n`
// buckets, and the reduction's levels for all `rows` reduced rows of `chunks` first-level
// chunks each (level 1 into z_a/q_a, then the levels alternate with z_b/q_b).
template <class G>
struct GroupScratch {
  using P = ec::Xyzz<G>;
  uint32_t *keys_in, *vals_in, *keys_out, *vals_out;
  void* sort_temp;
  size_t sort_temp_bytes;
  P* buckets;
  P* total;  // precomputed bases: the run's one bucket set (null otherwise)
  uint32_t *pkeys_a, *pkeys_b;
  P *pvals_a, *pvals_b;
  uint32_t* pkeys_m;    // the level-2 partials' keys after merge_partials_kernel, and later levels'
  uint32_t* long_runs;  // set by merge_partials_kernel when a run spans over kMergePieces partials
  P *z_a, *q_a, *z_b, *q_b;
  GroupScratch(uint8_t* base, size_t entries, size_t buckets_n, size_t total_n, size_t sort_m, unsigned c, size_t rows,
               size_t chunks, bool shared, size_t& total_bytes) {
    Carver cv(base);
    keys_in = cv.take<uint32_t>(entries);
    vals_in = cv.take<uint32_t>(entries);
    keys_out = cv.take<uint32_t>(entries);
    vals_out = cv.take<uint32_t>(entries);
    sort_temp_bytes = shared ? msm_detail::shared_digits_temp_bytes(sort_m, c) : msm_detail::sort_temp_bytes(sort_m, c);
    sort_temp = cv.take<uint8_t>(sort_temp_bytes);
    buckets = cv.take<P>(buckets_n);
    total = total_n != 0 ? cv.take<P>(total_n) : nullptr;
    const size_t pa = first_partials_bound(entries);
    const size_t pb = 2 * ceil_div(pa, kPartialsPerThread);
    pkeys_a = cv.take<uint32_t>(pa);
    pvals_a = cv.take<P>(pa);
    pkeys_b = cv.take<uint32_t>(pb);
    pvals_b = cv.take<P>(pb);
    pkeys_m = cv.take<uint32_t>(pb);
    long_runs = cv.take<uint32_t>(1);
    const size_t half = rows * ceil_div(chunks, 2);
    z_a = cv.take<P>(rows * chunks);
    q_a = cv.take<P>(rows * chunks);
    z_b = cv.take<P>(half);
    q_b = cv.take<P>(half);
    total_bytes = cv.used();
  }
  GroupScratch(uint8_t* base, const Plan& p, size_t m_hi, size_t& total_bytes)
      : GroupScratch(base, p.max_group_entries(m_hi), p.bucket_rows() * (p.nb + 1), p.shared ? p.nb + 1 : 0,
                     p.shared ? p.max_group_entries(m_hi) : m_hi, p.c, p.reduce_rows(), p.first_chunks(), p.shared,
                     total_bytes) {}
};

template <class G>
constexpr bool kOutlinedProducts = requires {
  typename G::Base::Fq;
};
// BLS12-381 G1 (over 48-byte Fq), which several of the choices below single out.
template <class G>
constexpr bool kBls12381G1 = !kOutlinedProducts<G> && sizeof(typename G::Base) == 48;

// BLS12-381 G2 with its products out of line: its additions got twice as fast, its bucket
// reduction (full additions, doublings) less so. Swept on the H200 at 2^22, c = 16 / 17 /
// 18 / 19 took 91.5 / 97.3 / 97.2 / 99.4 ms; 4.5 picks 16 there (3.2 picked 19) and keeps
// 16 at 2^20 (30.7 ms against 31.9 at 17). BN254 G2 (not swept) keeps the common figure.
constexpr double kBucketCostBls12381G2 = 4.5;
template <class G>
constexpr double bucket_cost() {
  return kOutlinedProducts<G> && sizeof(typename G::Base) == 96 ? kBucketCostBls12381G2 : kBucketCost;
}

// log2 of the first reduction level's chunk for c-bit windows of G. 32 buckets a thread from
// 22 bits for BLS12-381 G1: 2^21 buckets a row still give 2^16 threads, whose first level
// keeps pace, and the pair levels after it lose one (2^24 points at c = 22: tail 1.06 ->
// 0.78 ms, MSM -0.1 to -0.3 ms; at c = 20, 2^14 threads, it lost 0.2 ms). BN254 G1's
// additions are ~2.3 times cheaper: its first level at 2^16 threads went from 1.08 to 1.36
// ms for a tail 0.12 ms shorter, so it keeps 16; G2 was not measured at such widths
// (BENCHMARKS.md, "The first reduction level's chunk" and "32 buckets a thread from 22 bits").
template <class G>
constexpr unsigned first_chunk_log(unsigned c) {
  if (c < kWideWindowBits) return std::min(kFirstChunkLog, c - 1);
  return kBls12381G1<G> && c >= kWidestWindowBits ? kFirstChunkLogWidest : kFirstChunkLogWide;
}

template <class G>
Plan finish_plan(Plan p) {
  p.group = unsigned(std::clamp<size_t>(p.group_entries() / std::max<size_t>(p.m, 1), 1, p.windows));
  p.nb = size_t(1) << (p.c - 1);
  p.log_l1 = first_chunk_log<G>(p.c);
  return p;
}

template <class G>
Plan make_plan(size_t m, unsigned force_c = 0, size_t group_cap = 0) {
  constexpr size_t bits = G::Scalar::BITS;
  Plan p;
  p.m = m;
  p.group_cap = group_cap;
  p.c = force_c != 0 ? force_c : choose_window(m, bits, bucket_cost<G>());
  p.windows = windows_for(p.c, bits);  // Booth digits need one bit above the top
  return finish_plan<G>(p);
}

template <class G>
Plan make_shared_plan(size_t m, unsigned c, unsigned windows, size_t stride, size_t group_cap = 0) {
  Plan p;
  p.m = m;
  p.group_cap = group_cap;
  p.c = c;
  p.windows = windows;
  p.shared = true;
  p.stride = stride;
  return finish_plan<G>(p);
}

// The accumulation's acc += p (in registers; only the products are calls over Fq2, and
// over Fq where the level 1 of BLS12-381 G1 asks for it below).
template <class G, bool Outlined = kOutlinedProducts<G>>
__device__ __forceinline__ void accumulate_add(ec::Xyzz<G>& acc, const ec::Affine<G>& p) {
  if constexpr (Outlined) {
    using F = typename G::Base;
    ec::madd_in_place<std::conditional_t<kOutlinedProducts<G>, OutlinedMul<F>, OutlinedMulSub<F>>>(acc, p);
  } else {
    acc += p;
  }
}

// The level-1 accumulation of BLS12-381 G1 takes its products out of line too. Its mixed
// addition inlined is ~10 Fq products of ~600 instructions each: the warps of a
// multiprocessor drift apart over it as over G2's, and out of line its accumulation ran
// 13-14% faster (H200, 2^24 with 22-bit precomputed windows 91.2 -> 78.7 ms; BENCHMARKS.md
// "BLS12-381 G1 products out of line"). BN254 G1 (8-word products) ran 5-7% slower that way
// and stays inlined; staging the next base in shared memory (cp.async) gained under 1%.
template <class G>
constexpr bool kOutlinedLevel1 = kOutlinedProducts<G> || kBls12381G1<G>;

// BLS12-381's level 1 keeps its accumulator lazy (LazyFp2 for G2, LazyFp for G1: coordinates
// in [0, 2p), no final subtractions in the products), brought below p where a run's sum is
// stored. On the H200 G2's level 1 (latency-bound: two warps per scheduler, each on its own
// carry chains) ran 2.4% faster, G1's (near its multiply-add pipe) ~1.1% (BENCHMARKS.md,
// "The levels after the accumulation"). BN254's Fq (8p > 2^256) has no room for it.
template <class G>
constexpr bool lazy_level1() {
  if constexpr (kOutlinedProducts<G>) {
    return kLazyBase<typename G::Base::Fq>;
  } else {
    return kOutlinedLevel1<G> && kLazyBase<typename G::Base>;
  }
}
template <class G>
constexpr bool kLazyLevel1 = lazy_level1<G>();

#if defined(__CUDA_ARCH__)
template <class G, bool kKaratsuba = false>
using Level1Lazy =
    std::conditional_t<kOutlinedProducts<G>, LazyFp2<typename G::Base>, LazyFp<typename G::Base, kKaratsuba>>;
#endif

// Level 1's acc += p, and what a run's sum stores.
template <class G>
__device__ __forceinline__ void level1_add(ec::Xyzz<G>& acc, const ec::Affine<G>& p) {
#if defined(__CUDA_ARCH__)
  if constexpr (kLazyLevel1<G>) {
    madd_lazy_in_place<Level1Lazy<G>>(acc, p);
    return;
  }
#endif
  accumulate_add<G, kOutlinedLevel1<G>>(acc, p);
}
template <class G>
__device__ __forceinline__ ec::Xyzz<G> level1_finish(const ec::Xyzz<G>& acc) {
#if defined(__CUDA_ARCH__)
  if constexpr (kLazyLevel1<G>) return Level1Lazy<G>::canonical(acc);
#endif
  return acc;
}

template <class G>
__device__ __noinline__ ec::Xyzz<G> add_full(const ec::Xyzz<G>& a, const ec::Xyzz<G>& b) {
  if constexpr (kOutlinedProducts<G>) {
    ec::Xyzz<G> r = a;
    ec::add_in_place<OutlinedMul<typename G::Base>>(r, b);
    return r;
  } else {
    return a + b;
  }
}
template <class G>
__device__ __noinline__ ec::Xyzz<G> dbl_full(const ec::Xyzz<G>& a) {
  return a.dbl();
}

// The reduction's levels are latency-bound: each thread a chain of full additions, fourteen
// products each, one after another. A quad of lanes can take each thread's part
// (cuda/msm/quad_ops.cuh: an addition in four steps of one product a lane): four times the
// lanes and some shuffles for a chain a third as long. With CUZK_MSM_COOP_REDUCE non-zero (the
// default; 0 turns it off) the pair levels of at most kQuadPairItems items run so. On an H200
// (BENCHMARKS.md "The pair levels' quads on by default"), same call against one lane an item:
// BLS12-381 G1 2^22 points in 20-bit precomputed windows 22.19-22.20 -> 22.07-22.09 ms (tail
// 0.60 -> 0.45 ms), 2^24 in 22-bit ones 79.63-79.69 -> 79.45-79.50, plain Pippenger 2^22 / 2^24
// no slower (tail 1.38 -> 1.26 / 2.12 -> 1.98 ms). Large levels keep one lane an item: on an
// H100 all pair levels on quads cost plain Pippenger +0.35 ms at 2^22 and +1.0 at 2^24 (~2^17
// items at the first pair level, where four lanes an item cost more work than they save
// latency), and the first level on quads lost 0.2-1.4 ms (it fills the card already). 3 (the
// default): BLS12-381 G1 and BN254 G1 (on an H100, same call, BN254 2^22 plain tail 0.99 ->
// 0.93 ms, MSM 14.74 -> 14.65; 2^24 in 22-bit windows 40.91 -> 40.82); 2: BLS12-381 G1 only.
// G2 stays on one lane an item: its products are calls.
#ifndef CUZK_MSM_COOP_REDUCE
#define CUZK_MSM_COOP_REDUCE 3
#endif
template <class G>
constexpr bool kCoopPairLevels = CUZK_MSM_COOP_REDUCE != 0 &&
                                 (kBls12381G1<G> || (CUZK_MSM_COOP_REDUCE == 3 && !kOutlinedProducts<G>));
constexpr size_t kQuadPairItems = size_t(1) << 14;  // 2^22 pre 20's first pair level: 2^14 items

// Who computes one item of a pair level: a thread alone (add_full, dbl_full), or a quad
// of lanes (add_quad, dbl_quad: every lane gets the result, lane `part` of the quad stores
// result number `part`).
template <class G>
struct OneLane {
  static constexpr unsigned kWidth = 1;
  __device__ static OneLane mine() { return {}; }
  __device__ ec::Xyzz<G> add(const ec::Xyzz<G>& a, const ec::Xyzz<G>& b) const { return add_full<G>(a, b); }
  __device__ ec::Xyzz<G> dbl(const ec::Xyzz<G>& a) const { return dbl_full<G>(a); }
  __device__ bool stores(unsigned) const { return true; }
};
template <class G>
struct QuadLanes {
  static constexpr unsigned kWidth = 4;
  Quad quad;
  __device__ static QuadLanes mine() { return {Quad::mine()}; }
  __device__ ec::Xyzz<G> add(const ec::Xyzz<G>& a, const ec::Xyzz<G>& b) const { return add_quad<G>(a, b, quad); }
  __device__ ec::Xyzz<G> dbl(const ec::Xyzz<G>& a) const { return dbl_quad<G>(a, quad); }
  __device__ bool stores(unsigned part) const { return quad.g == part; }
};

// Batched-affine rounds before level 1 (cuda/msm/msm_affine.hpp) for a window group of
// `entries` entries over `distinct` keys, of an MSM of m points: 0 for the XYZZ level 1.
// Over Fq2 (G2) they are not built.
template <class G>
constexpr bool kAffineCapable = !kOutlinedProducts<G>;
template <class G>
bool affine_wanted(size_t m, unsigned pick) {
  if constexpr (!kAffineCapable<G>) {
    return false;
  } else {
    Accumulation a = Accumulation(pick);
    if (a == Accumulation::kChoice) a = accumulation_from_env();
    if (a == Accumulation::kChoice) return AffineAccumulation<G>::chosen(m);
    return a == Accumulation::kAffine;
  }
}
template <class G>
unsigned affine_rounds(size_t entries, size_t distinct) {
  if constexpr (!kAffineCapable<G>) {
    return 0;
  } else {
    return std::max(1u, AffineAccumulation<G>::rounds_for(entries, distinct));
  }
}
template <class G>
size_t affine_scratch_bytes(size_t entries, size_t distinct) {
  if constexpr (!kAffineCapable<G>) {
    return 0;
  } else {
    return AffineAccumulation<G>::scratch_bytes(entries, distinct);
  }
}

__device__ __forceinline__ size_t slot_of(uint32_t key, unsigned c, size_t nb) {
  return size_t(key >> c) * (nb + 1) + (key & ((uint32_t(1) << c) - 1));
}
// Whether a key is a window's zero-digit slot nb (window_digits: bucket 2^(c-1) = nb).
__device__ __forceinline__ bool is_zero_digit(uint32_t key, unsigned c, size_t nb) {
  return (key & ((uint32_t(1) << c) - 1)) == nb;
}

// A value in shared memory, one a thread, padded by 16 bytes: for the values here (192 and 96
// bytes, BLS12-381 G1's running sum and two temporaries) the 8 threads of a 16-byte access
// phase then start on 8 different 4-bank groups (no bank conflicts), where unpadded they
// would share 2 or 4.
template <class T>
struct alignas(16) Padded {
  T v;
  uint32_t pad[4];
};

// One thread sums `per_thread` consecutive sorted entries, run by run (a run = one
// bucket). A run that begins and ends inside the chunk is the whole bucket: it is stored.
// The first and the last run may continue in the neighbouring chunks: they go out as
// partial sums, two per chunk (the second infinity when the chunk is one run), in key
// order, for the next level. On the last level (one chunk) every run is stored. A launch
// runs threads [t0, t1) of the level (the same outputs as one launch of them all).
//
// With kSkipGaps (the levels after merge_partials_kernel) entries keyed kGapKey are not
// there: a chunk of gaps only gives two gaps. With kSkipZeroDigits (level 1) a zero digit's
// run (bucket nb, which the reduction never reads) adds nothing and sums to infinity: a
// witness's small values have zero digits in every window above their top bit (the demo
// circuit's 32-bit words in 10 of 12 windows: ~14% of an MSM's entries). Checked once a
// run, not once an entry: the per-entry test cost uniform scalars ~1% (BENCHMARKS.md).
//
// finish(acc) is what a run's sum stores (the lazy level 1 brings it below p there).
//
// kSharedAcc keeps the running sum in shared memory instead of registers (BLS12-381 G1's
// level 1, CUZK_MSM_SHARED_ACC below).
template <class G, bool kSkipGaps, bool kSkipZeroDigits, bool kSharedAcc = false, class AddEntry,
          class Finish = std::identity>
__device__ __forceinline__ void accumulate_chunk(const uint32_t* keys, size_t count, size_t per_thread, size_t t0,
                                                 size_t t1, unsigned c, size_t nb, ec::Xyzz<G>* buckets,
                                                 uint32_t* out_keys, ec::Xyzz<G>* out_vals, bool last_level,
                                                 AddEntry add_entry, Finish finish = {}) {
  using P = ec::Xyzz<G>;
  const size_t t = t0 + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t i0 = t * per_thread;
  if (t >= t1 || i0 >= count) return;
  const size_t i1 = min(count, i0 + per_thread);
  uint32_t cur = kSkipGaps ? kGapKey : keys[i0];
  bool zero_run = kSkipZeroDigits && is_zero_digit(cur, c, nb);
  P acc_in_registers;
  P* acc_slot = &acc_in_registers;
  if constexpr (kSharedAcc) {
    __shared__ Padded<P> slots[kThreads];
    acc_slot = &slots[threadIdx.x].v;
  }
  P& acc = *acc_slot;
  acc = P::infinity();
  bool head = true;
  for (size_t i = i0; i < i1; ++i) {
    const uint32_t k = keys[i];
    if (kSkipGaps && k == kGapKey) continue;
    if (k != cur) {
      if (kSkipGaps && cur == kGapKey) {
        // The chunk's first entry.
      } else if (head && !last_level) {
        out_keys[2 * t] = cur;
        out_vals[2 * t] = finish(acc);
        head = false;
      } else {
        buckets[slot_of(cur, c, nb)] = finish(acc);
        head = false;
      }
      acc = P::infinity();
      cur = k;
      if constexpr (kSkipZeroDigits) zero_run = is_zero_digit(k, c, nb);
    }
    if (kSkipZeroDigits && zero_run) continue;
    add_entry(i, acc);
  }
  if (kSkipGaps && cur == kGapKey) {
    if (!last_level) {
      out_keys[2 * t] = out_keys[2 * t + 1] = kGapKey;
      out_vals[2 * t] = out_vals[2 * t + 1] = P::infinity();
    }
    return;
  }
  if (last_level) {
    buckets[slot_of(cur, c, nb)] = finish(acc);
    return;
  }
  if (head) {
    out_keys[2 * t] = cur;
    out_vals[2 * t] = finish(acc);
    acc = P::infinity();
  }
  out_keys[2 * t + 1] = cur;
  out_vals[2 * t + 1] = finish(acc);
}

// BLS12-381 G1's level 1 keeps each thread's running sum and two of its addition's
// temporaries in shared memory (madd_lazy_parked; 320 bytes a thread with the padding, 40 KiB
// a block), which frees the registers they held across the out-of-line products, and runs
// four blocks per multiprocessor instead of three: 2.2% faster at 2^22 and 2^24 (H100, same-call
// A/B, BENCHMARKS.md "Four variants timed"). -DCUZK_MSM_SHARED_ACC=0 builds the register-resident
// level 1 for a comparison.
#ifndef CUZK_MSM_SHARED_ACC
#define CUZK_MSM_SHARED_ACC 1
#endif
#ifndef CUZK_MSM_SHARED_ACC_BLOCKS
#define CUZK_MSM_SHARED_ACC_BLOCKS 4  // at 5 (96 registers) ptxas spills ~350 bytes a thread
#endif
template <class G>
constexpr bool kSharedLevel1Acc = CUZK_MSM_SHARED_ACC != 0 && kBls12381G1<G>;
template <class G>
constexpr int level1_min_blocks() {
  return kSharedLevel1Acc<G> ? CUZK_MSM_SHARED_ACC_BLOCKS : accumulate_min_blocks<G>();
}

// CUZK_MSM_KARATSUBA=1: with precomputed bases (one bucket set), BLS12-381 G1's level 1 takes
// its products and mul_sub by one level of Karatsuba (LazyFp's kKaratsuba; plain Pippenger
// keeps the interleaved products). Same-call A/B on an H100 (BENCHMARKS.md "Three variants on
// an H100"): 2^22 in 20-bit precomputed windows 22.29-22.33 -> 22.02-22.07 ms, 2^24 in 22-bit
// ones 80.25-80.26 -> 79.27-79.32, 2^24 in 20-bit ones 83.06-83.10 -> 81.14-81.23; for every
// MSM, plain Pippenger ran 0.35 ms (2^22) and 0.85 ms (2^24) slower, hence precomputed only.
// On (1) by default since its gpu-check (BENCHMARKS.md "Karatsuba level 1, BN254's quads and
// BLS12-381 Fr's sparse low words on"; same call on an H100: 2^22 pre 20 22.20-22.26 ->
// 21.93-21.99 ms); 0 turns it off.
#ifndef CUZK_MSM_KARATSUBA
#define CUZK_MSM_KARATSUBA 1
#endif
template <class G>
constexpr bool kKaratsubaSharedLevel1 = CUZK_MSM_KARATSUBA != 0 && kSharedLevel1Acc<G>;

template <class G, bool kKaratsuba = false>
__global__ void __launch_bounds__(kThreads, level1_min_blocks<G>())
    accumulate_points_kernel(const ec::Affine<G>* bases, const uint32_t* keys, const uint32_t* vals, size_t count,
                             size_t per_thread, size_t t0, size_t t1, unsigned c, size_t nb, ec::Xyzz<G>* buckets,
                             uint32_t* out_keys, ec::Xyzz<G>* out_vals, bool last_level) {
  accumulate_chunk<G, false, true, kSharedLevel1Acc<G>>(
      keys, count, per_thread, t0, t1, c, nb, buckets, out_keys, out_vals, last_level,
      [&](size_t i, ec::Xyzz<G>& acc) {
        const uint32_t v = vals[i];
        ec::Affine<G> p = bases[v & 0x7fffffffu];
        if (v >> 31) p.y = -p.y;  // -(0, 0) is (0, 0)
        if constexpr (kSharedLevel1Acc<G>) {
#if defined(__CUDA_ARCH__)
          __shared__ Padded<typename G::Base[2]> park[kThreads];
          madd_lazy_parked<Level1Lazy<G, kKaratsuba>>(acc, p, park[threadIdx.x].v);
#endif
        } else {
          level1_add<G>(acc, p);
        }
      },
      [](const ec::Xyzz<G>& acc) { return level1_finish<G>(acc); });
}

// A level over partial sums: level 2 over level 1's (kSkipGaps false), and the levels
// after merge_partials_kernel, which run only where it left a long run (*long_runs).
template <class G, bool kSkipGaps>
__global__ void __launch_bounds__(kThreads)
    accumulate_partials_kernel(const uint32_t* keys, const ec::Xyzz<G>* vals, size_t count, size_t per_thread,
                               unsigned c, size_t nb, ec::Xyzz<G>* buckets, uint32_t* out_keys, ec::Xyzz<G>* out_vals,
                               bool last_level, const uint32_t* long_runs) {
  if (kSkipGaps && *long_runs == 0) return;
  accumulate_chunk<G, kSkipGaps, false>(keys, count, per_thread, 0, SIZE_MAX, c, nb, buckets, out_keys, out_vals,
                                        last_level,
                                        [&](size_t i, ec::Xyzz<G>& acc) { acc = add_full<G>(acc, vals[i]); });
}

// After levels 1 and 2 the partial sums are two per chunk of level 2, its first and its
// last run, in key order; the pieces of one run sit next to each other. A run of at most
// kMergePieces pieces is summed by the thread of its first piece and stored (one addition
// for uniform scalars, whose runs rarely span a whole chunk of level 2). The keys go to
// out_keys: kGapKey for every piece so taken. A longer run (skewed scalars) keeps its
// pieces, the first kMergePieces folded into the last of them (in vals, which no other
// thread reads there), for the levels after (accumulate_partials_kernel), which run only if
// there is one. Before this every level after level 2 took chains of 16 partials, ~5
// launches of few threads each, latency-bound: with level 2 ~1.5 ms of a 2^22 BLS12-381 G1
// MSM with precomputed bases, ~3.7 ms of G2's (H200). Right after level 1 (one thread a
// slot, half of them idle) it was slower than level 2, whose threads all do the same work.
template <class G>
__global__ void __launch_bounds__(kThreads)
    merge_partials_kernel(const uint32_t* keys, ec::Xyzz<G>* vals, size_t count, unsigned c, size_t nb,
                          ec::Xyzz<G>* buckets, uint32_t* out_keys, uint32_t* long_runs) {
  using P = ec::Xyzz<G>;
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count) return;
  const uint32_t k = keys[s];
  if (is_zero_digit(k, c, nb)) {  // level 1 added nothing there: no run to finish
    out_keys[s] = kGapKey;
    return;
  }
  // The piece's place in its run, up to kMergePieces.
  unsigned pos = 0;
  while (pos < kMergePieces && pos < s && keys[s - pos - 1] == k) ++pos;
  const bool more = s + 1 < count && keys[s + 1] == k;  // the run goes on after this piece
  if (pos == 0) {
    size_t e = s + 1;
    while (e < count && e - s <= kMergePieces && keys[e] == k) ++e;
    if (e - s <= kMergePieces) {
      P acc = vals[s];
      for (size_t i = s + 1; i < e; ++i) acc = add_full<G>(acc, vals[i]);
      buckets[slot_of(k, c, nb)] = acc;
    }
    out_keys[s] = kGapKey;
  } else if (pos + 1 < kMergePieces || (pos + 1 == kMergePieces && !more)) {
    out_keys[s] = kGapKey;  // taken by the run's first piece, or folded below
  } else if (pos + 1 == kMergePieces) {
    P acc = vals[s - pos];
    for (size_t i = s - pos + 1; i <= s; ++i) acc = add_full<G>(acc, vals[i]);
    vals[s] = acc;
    out_keys[s] = k;
    *long_runs = 1;
  } else {
    out_keys[s] = k;
  }
}

// total[b] += group[b] for the n buckets of one set (precomputed bases: each window group
// accumulates into its own set, then folds it into the run's one set).
template <class G>
__global__ void __launch_bounds__(kThreads)
    fold_buckets_kernel(const ec::Xyzz<G>* group, size_t n, ec::Xyzz<G>* total) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  total[t] = add_full<G>(total[t], group[t]);
}

// The bucket reduction works on rows of items: row r holds a list z_0 .. z_{k-1} and,
// after the first level, a list q; the row's answer is sum(q) + M·sum_j j·z_j for a power
// of two M. A level takes chunks of 2^log_l items [lo, hi) to
//   q'_t = sum_{j in t} q_j + 2^shift_w · sum_{j in t} (j - lo + one_based)·z_j,
//   z'_t = 2^shift_z · sum_{j in t} z_j,
// which keeps the answer with M' = M·2^log_l / 2^shift_z. Outputs are laid out
// [rows][chunks]; z_out may be null on the last level.
//
// The first level: the buckets (row r at z + r·z_stride, weights j + 1: one-based, M = 1,
// no q), 2^log_l per thread, with running sums (two full additions a bucket).
template <class G>
__global__ void __launch_bounds__(kThreads)
    reduce_level_kernel(const ec::Xyzz<G>* z, size_t z_stride, size_t rows, size_t k, unsigned log_l,
                        ec::Xyzz<G>* z_out, ec::Xyzz<G>* q_out) {
  using P = ec::Xyzz<G>;
  const size_t chunks = (k + (size_t(1) << log_l) - 1) >> log_l;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * chunks) return;
  const size_t r = t / chunks, lo = (t % chunks) << log_l, hi = min(k, lo + (size_t(1) << log_l));
  const P* zr = z + r * z_stride;
  P run = P::infinity(), w = P::infinity();
  for (size_t j = hi; j-- > lo;) {
    run = add_full<G>(run, zr[j]);
    w = add_full<G>(w, run);  // sum over i >= 1 of the suffix sums
  }
  q_out[t] = w;
  if (z_out != nullptr) z_out[t] = run;
}

// The levels after the first: chunks of two items (zero-based), j = 2u and j + 1,
//   q'_u = q_j + q_{j+1} + 2^shift_w·z_{j+1},  z'_u = 2^shift_z·(z_j + z_{j+1}),
// each pair by two warps at once: warp 2v computes z' of pairs 32v .. 32v + 31, warp 2v + 1
// their q' (warps of 32 items: with quads, of four hardware warps). These levels are
// latency-bound (few threads, one chain of full additions each): split so, a thread's chain is
// two operations (and the doublings) instead of four.
template <class G, class Lanes>
__global__ void __launch_bounds__(kThreads)
    reduce_pairs_kernel(const ec::Xyzz<G>* z, const ec::Xyzz<G>* q, size_t rows, size_t k, unsigned shift_w,
                        unsigned shift_z, ec::Xyzz<G>* z_out, ec::Xyzz<G>* q_out) {
  using P = ec::Xyzz<G>;
  const Lanes lanes = Lanes::mine();
  const size_t kout = (k + 1) / 2;
  const size_t t = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / Lanes::kWidth;
  const size_t warp = t / 32;
  const size_t u = (warp >> 1) * 32 + t % 32;
  if (u >= rows * kout) return;
  const size_t r = u / kout, j = 2 * (u % kout);
  const bool pair = j + 1 < k;
  const P* zr = z + r * k;
  const P* qr = q + r * k;
  if (warp & 1) {
    P acc = qr[j];
    if (pair) {
      acc = lanes.add(acc, qr[j + 1]);
      P w = zr[j + 1];
      for (unsigned i = 0; i < shift_w; ++i) w = lanes.dbl(w);
      acc = lanes.add(acc, w);
    }
    if (lanes.stores(0)) q_out[u] = acc;
  } else if (z_out != nullptr) {
    P acc = zr[j];
    if (pair) acc = lanes.add(acc, zr[j + 1]);
    for (unsigned i = 0; i < shift_z; ++i) acc = lanes.dbl(acc);
    if (lanes.stores(0)) z_out[u] = acc;
  }
}

// out[r][j] = sum of in[r][j·f .. j·f + f) over rows of k elements.
template <class G>
__global__ void __launch_bounds__(kThreads)
    sum_rows_kernel(const ec::Xyzz<G>* in, size_t rows, size_t k, unsigned f, ec::Xyzz<G>* out) {
  using P = ec::Xyzz<G>;
  const size_t kout = (k + f - 1) / f;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * kout) return;
  const size_t r = t / kout, j = t % kout;
  const size_t lo = j * f, hi = min(k, lo + f);
  P acc = P::infinity();
  for (size_t i = lo; i < hi; ++i) acc = add_full<G>(acc, in[r * k + i]);
  out[r * kout + j] = acc;
}

// out[t] = sum of bases[idx[i]] over i = lo + t, lo + t + threads, ... below hi; with
// kAddTo, added to out[t] instead (a paced run's later slices).
template <class G, bool kAddTo = false>
__global__ void __launch_bounds__(kThreads, accumulate_min_blocks<G>())
    sum_ones_kernel(const ec::Affine<G>* bases, const uint32_t* idx, size_t lo, size_t hi, size_t threads,
                    ec::Xyzz<G>* out) {
  using P = ec::Xyzz<G>;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  P acc = P::infinity();
  for (size_t i = lo + t; i < hi; i += threads) accumulate_add<G>(acc, bases[idx[i]]);
  if constexpr (kAddTo) {
    out[t] = add_full<G>(out[t], acc);
  } else {
    out[t] = acc;
  }
}

// Threads of `kernel` (blocks of kThreads) resident on the current device at once; 0 if the
// query failed.
template <class Kernel>
size_t resident_threads(Kernel kernel) {
  int device = 0, sms = 0, blocks = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0) != cudaSuccess || blocks <= 0) {
    return 0;
  }
  return size_t(sms) * size_t(blocks) * kThreads;
}

template <class G>
size_t level1_resident_threads() {
  static const size_t resident = resident_threads(accumulate_points_kernel<G>);
  return resident;
}

// Entries per thread of level 1. A large group is spread over level1_waves<G>() full waves
// of resident threads, each the same count: fewer, longer chunks than first_per_thread's at
// most 64 leave fewer boundaries, whose partial sums level 2 adds up (at 2^24 points in 12
// precomputed windows, 64 a thread left 6.3 M partials and ~3.5 ms of full additions to
// level 2), but level 1 itself runs slower with fewer waves. On the H200 (BENCHMARKS.md,
// "The levels after the accumulation"), BLS12-381 G1 2^24 with 22-bit precomputed windows
// took 84.99 / 83.94 / 85.11 / 87.44 ms at 64 a thread / 8 / 4 / 2 waves, its G2 2^22 with
// 20-bit windows 71.39 / 70.49 / 70.32 / 70.41 ms. G1's count was chosen when both G1 level-1
// kernels ran three blocks a multiprocessor; at four (since) 8 waves are a third more threads
// and chunks a quarter shorter, so the count is a CUDA define for an A/B
// (-DCUZK_MSM_LEVEL1_WAVES_G1=N).
#ifndef CUZK_MSM_LEVEL1_WAVES_G1
#define CUZK_MSM_LEVEL1_WAVES_G1 8
#endif
template <class G>
constexpr size_t level1_waves() {
  return kOutlinedProducts<G> ? 4 : CUZK_MSM_LEVEL1_WAVES_G1;
}
template <class G>
size_t level1_per_thread(size_t entries) {
  const size_t resident = level1_resident_threads<G>();
  const size_t pt = first_per_thread(entries);
  return resident == 0 ? pt : std::max(pt, ceil_div(entries, level1_waves<G>() * resident));
}

// Threads for the ones' sum: one full wave of the device (every thread then does the same
// number of additions), at most kOnesPartials.
template <class G>
size_t ones_threads() {
  static const size_t threads = [] {
    const size_t resident = resident_threads(sum_ones_kernel<G, false>);
    // If the query failed: a size that fills an H200 several times.
    return resident == 0 ? kOnesPartials / 2 : std::min(kOnesPartials, resident);
  }();
  return threads;
}

// Reduces each of `rows` rows of k points to one, into dest[0 .. rows), through the two
// temporaries (each holding rows·ceil(k / fan-in) points).
template <class G>
Status reduce_rows(const ec::Xyzz<G>* in, size_t rows, size_t k, ec::Xyzz<G>* tmp_a, ec::Xyzz<G>* tmp_b,
                   ec::Xyzz<G>* dest, cudaStream_t s) {
  ec::Xyzz<G>* tmp[2] = {tmp_a, tmp_b};
  int next = 0;
  do {
    const size_t kout = ceil_div(k, kReduceFanIn);
    ec::Xyzz<G>* out = kout == 1 ? dest : tmp[next];
    sum_rows_kernel<G><<<blocks_for(rows * kout), kThreads, 0, s>>>(in, rows, k, kReduceFanIn, out);
    CUZK_RETURN_IF_ERROR(check_launch("msm.sum_rows_kernel"));
    in = out;
    k = kout;
    next ^= 1;
  } while (k > 1);
  return Status::ok();
}

// The first reduction level over `rows` bucket rows (stride nb + 1): chunks of 2^log_l1
// buckets into z/q (rows·first_chunks each), or, when one chunk covers the row, the
// row's answer straight into dest.
template <class G>
Status reduce_first_level(const Plan& p, const ec::Xyzz<G>* buckets, size_t rows, ec::Xyzz<G>* z, ec::Xyzz<G>* q,
                          ec::Xyzz<G>* dest, cudaStream_t s) {
  const size_t chunks = p.first_chunks();
  const bool last = chunks == 1;
  reduce_level_kernel<G><<<blocks_for(rows * chunks), kThreads, 0, s>>>(buckets, p.nb + 1, rows, p.nb, p.log_l1,
                                                                        last ? nullptr : z, last ? dest : q);
  return check_launch("msm.reduce_level_kernel");
}

// The levels after the first, for all rows at once: pairs of items, until one is left,
// whose q is the row's sum_j (j + 1)·B_j, written to dest[row].
template <class G>
Status reduce_tail(const Plan& p, size_t rows, GroupScratch<G>& gs, ec::Xyzz<G>* dest, cudaStream_t s) {
  using P = ec::Xyzz<G>;
  size_t k = p.first_chunks();
  if (k == 1) return Status::ok();  // the first level finished every row
  P* zs[2] = {gs.z_a, gs.z_b};
  P* qs[2] = {gs.q_a, gs.q_b};
  int cur = 0;
  bool first = true;
  while (k > 1) {
    const size_t kout = ceil_div(k, 2);
    const bool last = kout == 1;
    // After the first level M = 2^log_l1; the second level brings it back to 1, and every
    // later level keeps it there by doubling its plain sums.
    const unsigned shift_w = first ? p.log_l1 : 0, shift_z = first ? p.log_l1 + 1 : 1;
    auto launch = [&]<class Lanes>(Lanes) {
      reduce_pairs_kernel<G, Lanes><<<blocks_for(Lanes::kWidth * 64 * ceil_div(rows * kout, 32)), kThreads, 0, s>>>(
          zs[cur], qs[cur], rows, k, shift_w, shift_z, last ? nullptr : zs[cur ^ 1], last ? dest : qs[cur ^ 1]);
    };
    if constexpr (kCoopPairLevels<G>) {
      if (rows * kout <= kQuadPairItems) {
        launch(QuadLanes<G>{});
      } else {
        launch(OneLane<G>{});
      }
    } else {
      launch(OneLane<G>{});
    }
    CUZK_RETURN_IF_ERROR(check_launch("msm.reduce_pairs_kernel"));
    cur ^= 1;
    k = kout;
    first = false;
  }
  return Status::ok();
}

// Events between the stages of one run, when MsmStats::profile asks for them.
class StageTimer {
 public:
  enum Stage { kSplit, kOnes, kSort, kAccumulate, kPartials, kReduce, kReduceTail, kStages };
  StageTimer(bool on, cudaStream_t s) : on_(on), s_(s) { mark(kStages); }
  void mark(Stage finished) {
    if (!on_) return;
    cudaEvent_t e = nullptr;
    if (cudaEventCreate(&e) != cudaSuccess || cudaEventRecord(e, s_) != cudaSuccess) {
      on_ = false;
      return;
    }
    marks_.push_back({finished, e});
  }
  // After the stream has finished: milliseconds per stage.
  void collect(MsmStats& st) {
    float* out[kStages] = {&st.split_ms,    &st.ones_ms,   &st.sort_ms,       &st.accumulate_ms,
                           &st.partials_ms, &st.reduce_ms, &st.reduce_tail_ms};
    for (size_t i = 1; on_ && i < marks_.size(); ++i) {
      float ms = 0;
      if (cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second) == cudaSuccess) {
        *out[marks_[i].first] += ms;
      }
    }
    // The sub-stages stay inside their stages' totals.
    st.accumulate_ms += st.partials_ms;
    st.reduce_ms += st.reduce_tail_ms;
  }
  ~StageTimer() {
    for (auto& m : marks_) (void)cudaEventDestroy(m.second);
  }

 private:
  bool on_;
  cudaStream_t s_;
  std::vector<std::pair<Stage, cudaEvent_t>> marks_;
};

// c doublings of kShiftGroup consecutive points per thread, then their affine forms with
// one inversion (Montgomery's trick): out[i] = 2^c·in[i].
constexpr unsigned kShiftGroup = 16;

template <class G>
__global__ void __launch_bounds__(kThreads)
    shift_bases_kernel(const ec::Affine<G>* in, size_t n, unsigned c, ec::Affine<G>* out) {
  using Jac = ec::Jacobian<G>;
  using Base = typename G::Base;
  const size_t lo = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * kShiftGroup;
  if (lo >= n) return;
  const unsigned count = unsigned(min(size_t(kShiftGroup), n - lo));
  Jac p[kShiftGroup];
  for (unsigned j = 0; j < count; ++j) {
    Jac x = Jac::from_affine(in[lo + j]);
    for (unsigned i = 0; i < c; ++i) x = x.dbl();
    p[j] = x;
  }
  Base prefix[kShiftGroup];
  Base acc = Base::one();
  for (unsigned j = 0; j < count; ++j) {
    prefix[j] = acc;
    if (!p[j].is_infinity()) acc = acc * p[j].z;
  }
  Base inv = acc.inverse();
  for (unsigned j = count; j-- > 0;) {
    if (p[j].is_infinity()) {
      out[lo + j] = ec::Affine<G>::infinity();
      continue;
    }
    const Base zi = inv * prefix[j];
    inv = inv * p[j].z;
    const Base zi2 = zi.square();
    out[lo + j] = {p[j].x * zi2, p[j].y * zi2 * zi};
  }
}

template <class G>
size_t group_bytes_bound(const Plan& p_lo, size_t m_hi) {
  size_t total = 0;
  GroupScratch<G>(nullptr, p_lo, m_hi, total);
  return total;
}

}  // namespace cuzk::cuda::msm_detail

namespace cuzk::cuda {

template <class G>
unsigned PrecomputedBases<G>::windows_for(unsigned window_bits) {
  return msm_detail::windows_for(window_bits, G::Scalar::BITS);
}

template <class G>
unsigned PrecomputedBases<G>::choose_window_bits(size_t n) {
  // One bucket set: per point one addition per window, per bucket ~kBucketCost once.
  // Up to 24 bits: wider windows were once capped at 20 because their MSMs ran slower, which
  // was the folds of the window groups' bucket sets (kSharedGroupEntries), not the
  // accumulation: at 2^24 its rate is the same at 20, 22 and 24 bits (H200).
  using namespace msm_detail;
  const double m = double(std::max<size_t>(n, 1));
  unsigned best = 8;
  double best_cost = 1e300;
  for (unsigned c = 8; c <= 24; ++c) {
    const double cost = double(windows_for(c)) * m + kBucketCost * double(size_t(1) << (c - 1));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

template <class G>
size_t PrecomputedBases<G>::bytes(size_t n, unsigned window_bits) {
  if (window_bits < 8 || window_bits > msm_detail::kMaxWindowBits) return 0;
  return size_t(windows_for(window_bits)) * n * sizeof(AffinePoint);
}

template <class G>
Result<PrecomputedBases<G>> PrecomputedBases<G>::build(const AffinePoint* d_bases, size_t n, unsigned window_bits,
                                                       const Stream& stream, Reservation* from) {
  using namespace msm_detail;
  if (window_bits < 8 || window_bits > kMaxWindowBits) {
    return invalid_argument("msm: precomputed bases with " + std::to_string(window_bits) + "-bit windows; 8 .. " +
                            std::to_string(kMaxWindowBits) + " are supported");
  }
  const unsigned windows = windows_for(window_bits);
  if (n == 0 || size_t(windows) * n >= (size_t(1) << 31)) {
    return invalid_argument("msm: precomputed bases for " + std::to_string(n) + " points in " +
                            std::to_string(windows) + " windows; 1 .. 2^31 / windows points are supported");
  }
  PrecomputedBases pre;
  pre.n_ = n;
  pre.c_ = window_bits;
  pre.windows_ = windows;
  CUZK_ASSIGN_OR_RETURN(pre.table_,
                        DeviceBuffer<AffinePoint>::allocate(size_t(windows) * n, "msm precomputed bases", from));
  const cudaStream_t s = stream.get();
  CUZK_RETURN_IF_ERROR(copy_async(pre.table_.data(), d_bases, n * sizeof(AffinePoint), cudaMemcpyDeviceToDevice, s,
                                  "msm.precomputed_copy0"));
  const unsigned blocks = blocks_for(ceil_div(n, kShiftGroup));
  for (unsigned j = 1; j < windows; ++j) {
    AffinePoint* out = pre.table_.data() + size_t(j) * n;
    shift_bases_kernel<G><<<blocks, kThreads, 0, s>>>(out - n, n, window_bits, out);
    CUZK_RETURN_IF_ERROR(check_launch("msm.shift_bases_kernel"));
  }
  CUZK_RETURN_IF_ERROR(stream.synchronize());
  return Result<PrecomputedBases>(std::move(pre));
}

template <class G>
size_t Msm<G>::scratch_bytes(size_t n) {
  using namespace msm_detail;
  if (n == 0) return 0;
  size_t split = 0;
  SplitScratch<G>(nullptr, n, split);
  // The window width is constant on [2^k, 2^(k+1)): bound each such range at its ends.
  size_t group = 0;
  for (unsigned k = 0; k <= floor_log2(n); ++k) {
    const size_t lo = size_t(1) << k, hi = std::min(n, (size_t(2) << k) - 1);
    const Plan p = make_plan<G>(lo);
    size_t bytes = group_bytes_bound<G>(p, hi);
    if (affine_wanted<G>(hi, 0)) {
      const size_t entries = p.max_group_entries(hi);
      bytes += affine_scratch_bytes<G>(entries, p.bucket_rows() * (p.nb + 1));
    }
    group = std::max(group, bytes);
  }
  return split + group;
}

template <class G>
size_t Msm<G>::scratch_bytes(size_t n, const PrecomputedBases<G>& pre) {
  using namespace msm_detail;
  if (n == 0) return 0;
  size_t split = 0;
  SplitScratch<G>(nullptr, n, split);
  // The width is fixed; the largest group (at m = 1) and the most entries (at m = n).
  const Plan p = make_shared_plan<G>(1, pre.window_bits(), pre.windows(), pre.points());
  size_t bytes = group_bytes_bound<G>(p, n);
  if (affine_wanted<G>(n, 0)) {
    bytes += affine_scratch_bytes<G>(p.max_group_entries(n), p.nb + 1);
  }
  return split + bytes;
}

template <class G>
Result<ec::Jacobian<G>> Msm<G>::run(const AffinePoint* d_bases, const ScalarInt* d_scalars, size_t n,
                                    const Stream& stream, Reservation* scratch_from, MsmStats* stats,
                                    PhasePauses* pauses) {
  return run_with(d_bases, nullptr, d_scalars, n, stream, scratch_from, stats, pauses);
}

template <class G>
Result<ec::Jacobian<G>> Msm<G>::run(const PrecomputedBases<G>& pre, const ScalarInt* d_scalars, size_t n,
                                    const Stream& stream, Reservation* scratch_from, MsmStats* stats,
                                    PhasePauses* pauses) {
  if (n > pre.points()) {
    return invalid_argument("msm: " + std::to_string(n) + " scalars against precomputed bases of " +
                            std::to_string(pre.points()) + " points");
  }
  return run_with(pre.table(), &pre, d_scalars, n, stream, scratch_from, stats, pauses);
}

template <class G>
Result<ec::Jacobian<G>> Msm<G>::run_with(const AffinePoint* d_bases, const PrecomputedBases<G>* pre,
                                         const ScalarInt* d_scalars, size_t n, const Stream& stream,
                                         Reservation* scratch_from, MsmStats* stats, PhasePauses* pauses) {
  using namespace msm_detail;
  using P = ec::Xyzz<G>;
  static_assert(sizeof(ScalarInt) == kScalarLimbs * sizeof(uint64_t), "scalars are four 64-bit limbs");
  const bool profile = stats != nullptr && stats->profile;
  const unsigned force_c = stats != nullptr ? stats->force_window_bits : 0;
  const size_t force_slice = stats != nullptr ? stats->paced_slice_entries : 0;
  const size_t group_cap = stats != nullptr ? stats->group_entries : 0;
  const unsigned pick = stats != nullptr ? stats->accumulation : 0;
  if (stats != nullptr) {
    *stats = MsmStats{};
    stats->profile = profile;
    stats->force_window_bits = force_c;
    stats->paced_slice_entries = force_slice;
    stats->group_entries = group_cap;
    stats->accumulation = pick;
  }
  if (pick > unsigned(Accumulation::kAffine)) {
    return invalid_argument("msm: accumulation " + std::to_string(pick) + "; 0 (choice), 1 (XYZZ), 2 (affine)");
  }
  if (n == 0) return ec::Jacobian<G>::infinity();
  if (n >= (size_t(1) << 31)) {
    return invalid_argument("msm: " + std::to_string(n) + " points; at most 2^31 - 1 are supported");
  }
  if (pre == nullptr && force_c != 0 && (force_c < kMinWindowBits || force_c > kMaxWindowBits)) {
    return invalid_argument("msm: forced window of " + std::to_string(force_c) + " bits; " +
                            std::to_string(kMinWindowBits) + " .. " + std::to_string(kMaxWindowBits) +
                            " are supported");
  }
  const cudaStream_t s = stream.get();
  StageTimer timer(profile, s);
  const uint64_t* scalars = reinterpret_cast<const uint64_t*>(d_scalars);
  // With pauses, the long launches are cut into slices with a pacer boundary between them.
  Pacer pace(pauses, stream);
  const size_t slice = force_slice != 0 ? force_slice : paced_slice_entries<G>();
  size_t boundaries = 0;
  auto boundary = [&]() -> Status {
    ++boundaries;
    return pace.boundary();
  };

  size_t split_bytes = 0;
  SplitScratch<G>(nullptr, n, split_bytes);
  CUZK_ASSIGN_OR_RETURN(auto split_buf,
                        DeviceBuffer<uint8_t>::allocate(split_bytes, "msm scratch (split)", scratch_from));
  SplitScratch<G> sp(split_buf.data(), n, split_bytes);
  CUZK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(sp.results, 0, (1 + kMaxWindows) * sizeof(P), s),
                            "msm: clearing the window sums");
  CUZK_RETURN_IF_ERROR(classify(scalars, n, sp.one_idx, sp.rest_idx, sp.counts, sp.temp, sp.temp_bytes, s));
  uint32_t counts[2] = {0, 0};
  CUZK_RETURN_IF_ERROR(copy_async(counts, sp.counts, sizeof(counts), cudaMemcpyDeviceToHost, s, "msm.counts"));
  CUZK_RETURN_IF_ERROR(stream.synchronize());
  const size_t ones = counts[0], m = counts[1];
  timer.mark(StageTimer::kSplit);

  // The ones' sum needs nothing from Pippenger: unless profiling, it runs beside it on a
  // stream of its own (the split is complete, the host has waited for it).
  const bool beside = ones != 0 && m != 0 && !profile && !pace.active();
  std::optional<Stream> side;
  std::optional<Event> ones_done;
  if (beside) {
    CUZK_ASSIGN_OR_RETURN(Stream st, Stream::create());
    side.emplace(std::move(st));
    CUZK_ASSIGN_OR_RETURN(Event ev, Event::create(false));
    ones_done.emplace(std::move(ev));
  }
  if (ones != 0) {
    const cudaStream_t so = beside ? side->get() : s;
    // Paced: slices of `slice` scalars, at least 16 additions per thread in each (so the
    // slices' joins cost little).
    size_t threads = std::min(ones, ones_threads<G>());
    if (pace.active()) threads = std::clamp<size_t>(slice / 16, 1, threads);
    const size_t ones_slice = pace.active() ? slice : ones;
    for (size_t lo = 0; lo < ones; lo += ones_slice) {
      const size_t hi = std::min(ones, lo + ones_slice);
      if (lo == 0) {
        sum_ones_kernel<G><<<blocks_for(threads), kThreads, 0, so>>>(d_bases, sp.one_idx, 0, hi, threads, sp.ones_part);
      } else {
        CUZK_RETURN_IF_ERROR(boundary());
        sum_ones_kernel<G, true>
            <<<blocks_for(threads), kThreads, 0, so>>>(d_bases, sp.one_idx, lo, hi, threads, sp.ones_part);
      }
      CUZK_RETURN_IF_ERROR(check_launch("msm.sum_ones_kernel"));
    }
    const size_t half = ceil_div(threads, kReduceFanIn) + 1;
    CUZK_RETURN_IF_ERROR(reduce_rows<G>(sp.ones_part, 1, threads, sp.ones_red, sp.ones_red + half, sp.results, so));
    if (beside) CUZK_RETURN_IF_ERROR(ones_done->record(*side));
    timer.mark(StageTimer::kOnes);
  }

  Plan plan;
  DeviceBuffer<uint8_t> group_buf;
  if (m != 0) {
    plan = pre != nullptr ? make_shared_plan<G>(m, pre->window_bits(), pre->windows(), pre->points(), group_cap)
                          : make_plan<G>(m, force_c, group_cap);
    size_t group_bytes = 0;
    GroupScratch<G>(nullptr, plan, m, group_bytes);
    CUZK_ASSIGN_OR_RETURN(group_buf,
                          DeviceBuffer<uint8_t>::allocate(group_bytes, "msm scratch (window group)", scratch_from));
    GroupScratch<G> gs(group_buf.data(), plan, m, group_bytes);
    // Batched-affine rounds (G1; never in a paced run, whose level 1 goes out in slices).
    const bool affine = !pace.active() && affine_wanted<G>(m, pick);
    const size_t distinct = plan.bucket_rows() * (plan.nb + 1);
    DeviceBuffer<uint8_t> affine_buf;
    if (affine) {
      const size_t max_entries = size_t(std::min(plan.group, plan.windows)) * m;
      CUZK_ASSIGN_OR_RETURN(affine_buf, DeviceBuffer<uint8_t>::allocate(affine_scratch_bytes<G>(max_entries, distinct),
                                                                        "msm scratch (affine rounds)", scratch_from));
    }
    // With precomputed bases, d_bases is the table: window w's digits index copy w.
    if (plan.shared) {
      CUZK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(gs.total, 0, (plan.nb + 1) * sizeof(P), s),
                                "msm: clearing the buckets");
    }

    for (unsigned w0 = 0; w0 < plan.windows; w0 += plan.group) {
      // Between groups the caller may give the device up (after this stream's queued work).
      if (w0 != 0) CUZK_RETURN_IF_ERROR(boundary());
      const unsigned wg = std::min(plan.group, plan.windows - w0);
      const size_t entries = size_t(wg) * m;
      if (plan.shared) {
        // One bucket set: the group's pairs sort together.
        CUZK_RETURN_IF_ERROR(sort_shared_digits(scalars, sp.rest_idx, m, plan.c, w0, wg, plan.stride, gs.keys_in,
                                                gs.vals_in, gs.keys_out, gs.vals_out, gs.sort_temp, gs.sort_temp_bytes,
                                                s));
      } else {
        CUZK_RETURN_IF_ERROR(
            window_digits(scalars, sp.rest_idx, m, plan.c, w0, wg, false, plan.stride, gs.keys_in, gs.vals_in, s));
        for (unsigned wl = 0; wl < wg; ++wl) {
          const size_t off = size_t(wl) * m;
          if (wl != 0 && m >= slice) CUZK_RETURN_IF_ERROR(boundary());
          CUZK_RETURN_IF_ERROR(sort_window(gs.keys_in + off, gs.keys_out + off, gs.vals_in + off, gs.vals_out + off, m,
                                           plan.c, gs.sort_temp, gs.sort_temp_bytes, s));
        }
      }
      // With precomputed bases the first group accumulates straight into the run's one set
      // (cleared above); later groups into a set of their own, folded into it afterwards.
      P* const buckets = plan.shared && w0 == 0 ? gs.total : gs.buckets;
      if (buckets != gs.total) {
        CUZK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(gs.buckets, 0, plan.bucket_rows() * (plan.nb + 1) * sizeof(P), s),
                                  "msm: clearing the buckets");
      }
      timer.mark(StageTimer::kSort);

      // Level 1 over the sorted points, then levels over the partial sums until one chunk.
      // A paced run keeps short chunks: its level 1 goes out in slices of `slice` entries,
      // and with the waves' long chunks a slice was a few thousand threads, each a long
      // chain (the 2^24 daemon stream ran 0.38 s/proof instead of 0.24 on the H200).
      size_t per_thread = pace.active() ? first_per_thread(entries) : level1_per_thread<G>(entries);
      size_t threads = ceil_div(entries, per_thread);
      bool last = threads == 1;
      const size_t slice_threads = pace.active() ? std::max<size_t>(1, slice / per_thread) : threads;
      if constexpr (kAffineCapable<G>) {
        if (affine) {
          const unsigned rounds = affine_rounds<G>(entries, distinct);
          // keys_in / vals_in are free once sorted: the rounds' keys go there.
          CUZK_ASSIGN_OR_RETURN(
              threads, AffineAccumulation<G>::run(d_bases, gs.keys_out, gs.vals_out, entries, distinct, rounds, plan.c,
                                                  plan.nb, buckets, gs.pkeys_a, gs.pvals_a, gs.keys_in, gs.vals_in,
                                                  affine_buf.data(), s));
          last = threads == 1;
          if (stats != nullptr) stats->affine_rounds = rounds;
        }
      }
      for (size_t t0 = 0; !affine && t0 < threads; t0 += slice_threads) {
        if (t0 != 0) CUZK_RETURN_IF_ERROR(boundary());
        const size_t t1 = std::min(threads, t0 + slice_threads);
        auto launch = [&](auto kernel) {
          kernel<<<blocks_for(t1 - t0), kThreads, 0, s>>>(d_bases, gs.keys_out, gs.vals_out, entries, per_thread, t0,
                                                          t1, plan.c, plan.nb, buckets, gs.pkeys_a, gs.pvals_a, last);
        };
        if constexpr (kKaratsubaSharedLevel1<G>) {
          if (plan.shared) {
            launch(accumulate_points_kernel<G, true>);
          } else {
            launch(accumulate_points_kernel<G>);
          }
        } else {
          launch(accumulate_points_kernel<G>);
        }
        CUZK_RETURN_IF_ERROR(check_launch("msm.accumulate_points_kernel"));
      }
      timer.mark(StageTimer::kAccumulate);
      // Level 2 (a -> b), the merge of what it left (its keys b -> m, folds into pvals_b), then
      // the levels for long runs if the merge found any (m, pvals_b -> a -> m, pvals_b ...).
      size_t count = 2 * threads;
      if (!last) {
        threads = ceil_div(count, kPartialsPerThread);
        last = threads == 1;
        accumulate_partials_kernel<G, false>
            <<<blocks_for(threads), kThreads, 0, s>>>(gs.pkeys_a, gs.pvals_a, count, kPartialsPerThread, plan.c,
                                                      plan.nb, buckets, gs.pkeys_b, gs.pvals_b, last, nullptr);
        CUZK_RETURN_IF_ERROR(check_launch("msm.accumulate_partials_kernel"));
        count = 2 * threads;
      }
      if (!last) {
        CUZK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(gs.long_runs, 0, sizeof(uint32_t), s), "msm: clearing a flag");
        merge_partials_kernel<G><<<blocks_for(count), kThreads, 0, s>>>(gs.pkeys_b, gs.pvals_b, count, plan.c, plan.nb,
                                                                        buckets, gs.pkeys_m, gs.long_runs);
        CUZK_RETURN_IF_ERROR(check_launch("msm.merge_partials_kernel"));
      }
      uint32_t* keys_io[2] = {gs.pkeys_m, gs.pkeys_a};
      P* vals_io[2] = {gs.pvals_b, gs.pvals_a};
      int cur = 0;
      while (!last) {
        threads = ceil_div(count, kPartialsPerThread);
        last = threads == 1;
        accumulate_partials_kernel<G, true><<<blocks_for(threads), kThreads, 0, s>>>(
            keys_io[cur], vals_io[cur], count, kPartialsPerThread, plan.c, plan.nb, buckets, keys_io[cur ^ 1],
            vals_io[cur ^ 1], last, gs.long_runs);
        CUZK_RETURN_IF_ERROR(check_launch("msm.accumulate_partials_kernel"));
        cur ^= 1;
        count = 2 * threads;
      }
      timer.mark(StageTimer::kPartials);

      if (plan.shared) {
        if (buckets != gs.total) {
          fold_buckets_kernel<G><<<blocks_for(plan.nb), kThreads, 0, s>>>(gs.buckets, plan.nb, gs.total);
          CUZK_RETURN_IF_ERROR(check_launch("msm.fold_buckets_kernel"));
        }
      } else {
        const size_t off = size_t(w0) * plan.first_chunks();
        CUZK_RETURN_IF_ERROR(
            reduce_first_level<G>(plan, gs.buckets, wg, gs.z_a + off, gs.q_a + off, sp.results + 1 + w0, s));
      }
      timer.mark(StageTimer::kReduce);
    }
    if (plan.shared) CUZK_RETURN_IF_ERROR(reduce_first_level<G>(plan, gs.total, 1, gs.z_a, gs.q_a, sp.results + 1, s));
    timer.mark(StageTimer::kReduce);
    CUZK_RETURN_IF_ERROR(reduce_tail<G>(plan, plan.reduce_rows(), gs, sp.results + 1, s));
    timer.mark(StageTimer::kReduceTail);
  }

  if (beside) CUZK_RETURN_IF_ERROR(stream.wait(*ones_done));
  const size_t sums_n = m == 0 ? 0 : plan.reduce_rows();
  std::vector<P> sums(1 + sums_n);
  CUZK_RETURN_IF_ERROR(
      copy_async(sums.data(), sp.results, sums.size() * sizeof(P), cudaMemcpyDeviceToHost, s, "msm.window_sums"));
  CUZK_RETURN_IF_ERROR(stream.synchronize());

  // sum_w 2^(c·w)·S_w (one sum with precomputed bases), plus the ones'.
  const ec::Jacobian<G> total = combine_window_sums<G>(std::span<const P>(sums), plan.shared ? 0 : plan.c);
  if (stats != nullptr) {
    timer.collect(*stats);
    stats->ones = ones;
    stats->rest = m;
    stats->window_bits = plan.c;
    stats->windows = plan.windows;
    stats->windows_per_group = plan.group;
    stats->paced_boundaries = pace.active() ? boundaries : 0;
    stats->precomputed = pre != nullptr;
  }
  return total;
}

}  // namespace cuzk::cuda

#define CUZK_INSTANTIATE_MSM(G)                   \
  template class cuzk::cuda::PrecomputedBases<G>; \
  template class cuzk::cuda::Msm<G>
