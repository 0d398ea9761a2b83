// Multi-scalar multiplication on the CPU: sum_i k_i·P_i for affine bases P_i and canonical
// scalars k_i (standard form, little-endian limbs, < r).
//
// As supraseal does it, scalars are first sorted into three kinds: 0 (skipped), 1 (summed
// by plain mixed additions: circom witnesses are full of bits) and the rest, which go to
// Pippenger's bucket method with signed (Booth) digits of at most c bits, windows of
// balanced widths (WindowLayout), each digit computed per window from width + 1 bits of the
// scalar, so a window of c bits needs only 2^(c-1) buckets and a negative digit adds
// -P = (x, -y). On G1 (both curves) and up to kGlvMaxPoints, the scalars are first split by
// GLV (msm/glv.hpp). Bucket additions are batched affine additions sharing one
// (variable-time) inversion; a point whose bucket is already queued waits for the next
// batch, and XYZZ overflows take the cases a batch cannot (see BatchAffineBuckets);
// buckets are reduced by a running sum. Each thread owns one bucket set and claims whole
// windows. Where the CPU has AVX-512 IFMA, the batches and the bucket sums run eight at a
// time in SIMD lanes (msm/lanes.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/thread_pool.hpp"
#include "ec/points.hpp"
#include "ff/bigint.hpp"
#include "ff/inverse.hpp"
#include "msm/glv.hpp"
#include "msm/lanes.hpp"

namespace cuzk::msm {

namespace detail {

// Bits [offset, offset + width) of k, width <= 32.
template <size_t N>
inline uint32_t bits_at(const ff::BigInt<N>& k, size_t offset, unsigned width) {
  size_t limb = offset / 64, shift = offset % 64;
  if (limb >= N) return 0;
  uint64_t v = k.limb[limb] >> shift;
  if (shift + width > 64 && limb + 1 < N) v |= k.limb[limb + 1] << (64 - shift);
  return uint32_t(v & ((uint64_t(1) << width) - 1));
}

inline bool is_zero4(const ff::BigInt<4>& k) { return (k.limb[0] | k.limb[1] | k.limb[2] | k.limb[3]) == 0; }
inline bool is_one4(const ff::BigInt<4>& k) { return k.limb[0] == 1 && (k.limb[1] | k.limb[2] | k.limb[3]) == 0; }

// Affine additions batched per bucket array before one shared inversion; 0 disables
// batching (small windows: too few buckets to fill a batch without collisions).
inline size_t batch_size(unsigned c) {
  size_t half = size_t(1) << (c - 1);
  size_t b = std::min<size_t>(1024, half / 4);
  return b < 64 ? 0 : b;
}

// Window width for m scalars of `bits` bits, minimising a cost model in field
// multiplications: per window, m bucket additions (6 per batched affine addition plus a
// share of the batch's inversion, about 300 multiplications; 10 for a mixed XYZZ addition
// when batching is off) plus 2^(c-1) buckets to sum (one mixed and one full XYZZ
// addition, about 24, plus cache misses).
inline unsigned choose_window(size_t m, size_t bits) {
  unsigned best = 1;
  double best_cost = 1e300;
  for (unsigned c = 1; c <= 20; ++c) {
    double windows = double((bits + 1 + c - 1) / c);
    double buckets = double(uint64_t(1) << (c - 1));
    double per_add = batch_size(c) ? 6.0 + 300.0 / double(batch_size(c)) : 10.0;
    double cost = windows * (double(m) * per_add + 28.0 * buckets);
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// One window's buckets. Bucket j holds an affine point plus an XYZZ overflow. Additions
// into a bucket are queued and done in affine form, batch_size at a time, sharing one field
// inversion (Montgomery's trick): about 6 multiplications each instead of 10 for a mixed
// XYZZ addition. A point whose bucket already has a queued addition waits for the next
// batch (deferred; at most batch_size wait, beyond that it goes to the overflow). A point
// whose x equals the bucket's (doubling or cancellation) goes to the XYZZ overflow, which
// handles every case; so does everything when batching is off.
template <class C>
class BatchAffineBuckets {
 public:
  using A = ec::Affine<C>;
  using P = ec::Xyzz<C>;
  using Base = typename C::Base;

  BatchAffineBuckets(size_t buckets, size_t batch)
      : batch_(batch),
        capacity_(batch),
        point_(batch ? buckets : 0),
        filled_(batch ? buckets : 0, 0),
        queued_(batch ? buckets : 0, 0),
        overflow_(buckets, P::infinity()) {
    pending_bucket_.reserve(batch);
    pending_point_.reserve(batch);
    den_.reserve(batch);
    prefix_.reserve(batch);
    deferred_.reserve(batch);
    retry_.reserve(batch);
  }

  // Batches of `batch` from now on (at most the constructor's; 0: every addition goes to
  // the XYZZ overflow). Only between windows, when the buckets are empty.
  void set_batch(size_t batch) { batch_ = std::min(batch, capacity_); }

  void add(uint32_t j, const A& p) {
    place(j, p);
    if (pending_bucket_.size() == batch_ && batch_ != 0) flush_and_retry();
  }

  // sum_j (j+1)·bucket_j, by a running sum from the top bucket down. Leaves every bucket
  // empty, so one object serves window after window (its arrays are allocated and
  // faulted in once per thread, not once per window).
  P weighted_sum() {
    drain();
    if constexpr (lanes::kSupported<Base>) {
      if (lanes_ && batch_ != 0) {
        P total = lanes::weighted_bucket_sum<C>(point_.data(), filled_.data(), filled_.size());
        std::fill(filled_.begin(), filled_.end(), uint8_t(0));
        return total + sparse_overflow_sum();
      }
    }
    P running = P::infinity(), total = P::infinity();
    for (size_t j = overflow_.size(); j-- > 0;) {
      if (batch_ && filled_[j]) {
        running += point_[j];
        filled_[j] = 0;
      }
      if (!overflow_[j].is_infinity()) {
        running += overflow_[j];
        overflow_[j] = P::infinity();
      }
      total += running;
    }
    return total;
  }

 private:
  struct Deferred {
    uint32_t bucket;
    A point;
  };
  // sum_j (j+1)·overflow_j, emptying them. Overflows are few when batching is on, so the
  // running sum skips the empty ones: between two non-empty buckets it is constant, and
  // is added once, times the gap.
  P sparse_overflow_sum() {
    P running = P::infinity(), total = P::infinity();
    size_t above = 0;  // the last non-empty bucket seen, plus one (0: none yet)
    for (size_t j = overflow_.size(); j-- > 0;) {
      if (overflow_[j].is_infinity()) continue;
      if (above != 0) total += times(running, above - 1 - j);
      running += overflow_[j];
      overflow_[j] = P::infinity();
      above = j + 1;
    }
    if (above != 0) total += times(running, above);
    return total;
  }

  // k·p for a small k >= 1, by doubling and adding from the top bit.
  static P times(const P& p, size_t k) {
    P r = p;
    for (int bit = 62 - __builtin_clzll(uint64_t(k)); bit >= 0; --bit) {
      r = r.dbl();
      if ((k >> bit) & 1) r += p;
    }
    return r;
  }

  // Below this many deferred points a last batch is not worth its inversion.
  static constexpr size_t kMinFinalBatch = 32;

  // Queues, stores, defers or overflows one addition; never flushes, so the queue stays
  // within batch_ as long as the caller flushes when it is full.
  void place(uint32_t j, const A& p) {
    if (batch_ == 0) {
      overflow_[j] += p;
      return;
    }
    if (!filled_[j]) {
      point_[j] = p;
      filled_[j] = 1;
      return;
    }
    if (queued_[j]) {
      if (deferred_.size() < batch_) {
        deferred_.push_back({j, p});
      } else {
        overflow_[j] += p;
      }
      return;
    }
    if (point_[j].x == p.x) {
      overflow_[j] += p;
      return;
    }
    queued_[j] = 1;
    pending_bucket_.push_back(j);
    pending_point_.push_back(p);
    den_.push_back(p.x - point_[j].x);
  }

  // Runs the full batch, then re-places the points that waited for it (which may fill
  // the batch again: at most batch_ of them wait).
  void flush_and_retry() {
    do {
      flush();
      retry_.swap(deferred_);
      for (const auto& d : retry_) place(d.bucket, d.point);
      retry_.clear();
    } while (pending_bucket_.size() == batch_);
  }

  // Empties the queue and the deferred points, for the bucket sums.
  void drain() {
    flush();
    while (!deferred_.empty()) {
      if (deferred_.size() < kMinFinalBatch) {
        for (const auto& d : deferred_) overflow_[d.bucket] += d.point;
        deferred_.clear();
        break;
      }
      retry_.swap(deferred_);
      for (const auto& d : retry_) place(d.bucket, d.point);
      retry_.clear();
      flush();
    }
  }

  // Montgomery's trick over the queued additions, run as two interleaved chains (first
  // and second half of the queue): each chain of products is serial, and a field
  // multiplication's latency is about twice its throughput, so two chains keep the
  // multiplier busy. One inversion serves both.
  void flush() {
    const size_t n = pending_bucket_.size();
    if (n == 0) return;
    if constexpr (lanes::kSupported<Base>) {
      if (n >= lanes::kMinBatch && lanes_) {
        static_assert(sizeof(A) == 2 * sizeof(Base), "lanes read affine points as (x, y) pairs");
        lanes::batch_affine_add(&point_[0].x, pending_bucket_.data(), &pending_point_[0].x, den_.data(), n,
                                lane_scratch_);
        for (uint32_t j : pending_bucket_) queued_[j] = 0;
        pending_bucket_.clear();
        pending_point_.clear();
        den_.clear();
        return;
      }
    }
    const size_t h = (n + 1) / 2;  // chain 0: [0, h), chain 1: [h, n)
    prefix_.resize(n);
    Base acc0 = Base::one(), acc1 = Base::one();
    for (size_t i = 0; i < h; ++i) {
      prefix_[i] = acc0;
      acc0 = acc0 * den_[i];
      if (h + i < n) {
        prefix_[h + i] = acc1;
        acc1 = acc1 * den_[h + i];
      }
    }
    const Base inv_both = ff::inverse_vartime(acc0 * acc1);  // public data
    Base inv0 = inv_both * acc1, inv1 = inv_both * acc0;
    size_t i = h;
    if (n % 2 == 1) apply(--i, inv0);  // chain 0 is one longer: its last element alone
    while (i-- > 0) apply_pair(i, inv0, h + i, inv1);
    pending_bucket_.clear();
    pending_point_.clear();
    den_.clear();
  }

  // Queued addition i, given inv = 1/(den_0 ... den_i) over its chain; steps inv back by one.
  void apply(size_t i, Base& inv) {
    const Base dinv = inv * prefix_[i];
    inv = inv * den_[i];
    finish(i, dinv);
  }

  // Two queued additions from different chains, statement by statement: the two
  // dependency chains then sit close together in the instruction stream, where the
  // out-of-order core overlaps them (one addition alone is a chain of serial products).
  void apply_pair(size_t i, Base& inv_i, size_t k, Base& inv_k) {
    const Base dinv_i = inv_i * prefix_[i];
    const Base dinv_k = inv_k * prefix_[k];
    inv_i = inv_i * den_[i];
    inv_k = inv_k * den_[k];
    A& bi = point_[pending_bucket_[i]];
    A& bk = point_[pending_bucket_[k]];
    const A& qi = pending_point_[i];
    const A& qk = pending_point_[k];
    const Base li = (qi.y - bi.y) * dinv_i;
    const Base lk = (qk.y - bk.y) * dinv_k;
    const Base xi = li.square() - bi.x - qi.x;
    const Base xk = lk.square() - bk.x - qk.x;
    bi.y = li * (bi.x - xi) - bi.y;
    bk.y = lk * (bk.x - xk) - bk.y;
    bi.x = xi;
    bk.x = xk;
    queued_[pending_bucket_[i]] = 0;
    queued_[pending_bucket_[k]] = 0;
  }

  // The affine addition bucket += queued point, given dinv = 1/(x_q − x_bucket).
  void finish(size_t i, const Base& dinv) {
    const uint32_t j = pending_bucket_[i];
    const A& q = pending_point_[i];
    A& b = point_[j];
    const Base lambda = (q.y - b.y) * dinv;
    const Base x3 = lambda.square() - b.x - q.x;
    b.y = lambda * (b.x - x3) - b.y;
    b.x = x3;
    queued_[j] = 0;
  }

  size_t batch_, capacity_;
  std::vector<A> point_;
  std::vector<uint8_t> filled_, queued_;
  std::vector<P> overflow_;
  std::vector<uint32_t> pending_bucket_;
  std::vector<A> pending_point_;
  std::vector<Base> den_, prefix_;
  std::vector<Deferred> deferred_, retry_;
  bool lanes_ = lanes::enabled();  // AVX-512 IFMA batches (msm/lanes.hpp)
  std::vector<uint64_t> lane_scratch_;
};

// Signed digit d of one window packed as |d| << 1 | (d < 0); 0 means "no bucket".
using Digit = uint32_t;

// How the bits + 1 bits of a scalar (one more than its width: see booth_digit) split into
// windows of at most c bits: ceil((bits + 1)/c) windows whose widths differ by at most one
// (the wider ones first), so no window is left with only a few bits. A narrow top window
// would send every point into a handful of buckets, where batches cannot fill.
struct WindowLayout {
  size_t windows;
  unsigned narrow;  // the width of the narrower windows
  size_t wide;      // how many windows (the lowest) are one bit wider

  WindowLayout(size_t bits, unsigned c) {
    windows = (bits + 1 + c - 1) / c;
    narrow = unsigned((bits + 1) / windows);
    wide = (bits + 1) % windows;
  }
  unsigned width(size_t w) const { return narrow + (w < wide ? 1 : 0); }
  size_t offset(size_t w) const { return w * narrow + std::min(w, wide); }
};

// The signed (Booth) digit of k for the window of `width` bits at bit `lo`:
// d = v + b_{lo-1} − 2^width·b_{lo+width-1}, with v = bits [lo, lo + width) of k and b_i
// bit i (b_{-1} = 0). Over windows that tile the bits, the sum of d·2^lo telescopes back
// to k as long as the top window's high bit is 0 (so bits + 1 bits are tiled). Each d
// lies in [−2^(width−1), 2^(width−1)] and, unlike a carry-propagating recoding, depends
// only on width + 1 bits of k: every window computes its own digits and no table of
// digits is stored.
template <size_t N>
inline Digit booth_digit(const ff::BigInt<N>& k, size_t lo, unsigned width) {
  uint32_t v = bits_at(k, lo, width);
  const uint32_t below = lo == 0 ? 0 : bits_at(k, lo - 1, 1);
  const uint32_t top = v >> (width - 1);
  v += below;
  if (top) return v == (uint32_t(1) << width) ? 0 : (((uint32_t(1) << width) - v) << 1 | 1);
  return v << 1;
}

template <class C>
ec::Xyzz<C> sum_ones(std::span<const ec::Affine<C>> bases, std::span<const uint32_t> idx, ThreadPool& pool) {
  using P = ec::Xyzz<C>;
  size_t chunks = std::max<size_t>(1, std::min(pool.size() * 4, idx.size() / 256));
  std::vector<P> part(chunks, P::infinity());
  pool.run(chunks, [&](size_t t) {
    size_t lo = idx.size() * t / chunks, hi = idx.size() * (t + 1) / chunks;
    P acc = P::infinity();
    for (size_t i = lo; i < hi; ++i) acc += bases[idx[i]];
    part[t] = acc;
  });
  P acc = P::infinity();
  for (const auto& p : part) acc += p;
  return acc;
}

// The bucket method over m terms of at most `bits` bits: term k is scalar_at(k) times
// point_at(k), negated where negate_at(k). `window` forces c (0: cost model).
template <class C, class ScalarAt, class PointAt, class NegateAt>
ec::Xyzz<C> bucket_method(size_t m, size_t bits, ScalarAt scalar_at, PointAt point_at, NegateAt negate_at,
                          ThreadPool& pool, unsigned window) {
  using P = ec::Xyzz<C>;
  if (m == 0) return P::infinity();
  const unsigned c = window ? window : choose_window(m, bits);
  const WindowLayout layout(bits, c);
  const unsigned widest = layout.width(0);

  // Each thread owns one set of buckets and claims windows until none are left.
  std::vector<P> window_sum(layout.windows, P::infinity());
  std::atomic<size_t> next_window{0};
  pool.run(std::min(pool.size(), layout.windows), [&](size_t) {
    BatchAffineBuckets<C> buckets(size_t(1) << (widest - 1), batch_size(widest));
    for (size_t w; (w = next_window.fetch_add(1, std::memory_order_relaxed)) < layout.windows;) {
      const size_t lo = layout.offset(w);
      const unsigned width = layout.width(w);
      buckets.set_batch(batch_size(width));
      for (size_t k = 0; k < m; ++k) {
        const Digit d = booth_digit(scalar_at(k), lo, width);
        if (d == 0) continue;
        const ec::Affine<C>& b = point_at(k);
        const bool negative = ((d & 1) != 0) != negate_at(k);
        buckets.add((d >> 1) - 1, negative ? ec::Affine<C>{b.x, -b.y} : b);
      }
      window_sum[w] = buckets.weighted_sum();
    }
  });

  P acc = P::infinity();
  for (size_t w = layout.windows; w-- > 0;) {
    for (unsigned i = 0; i < layout.width(w); ++i) acc = acc.dbl();
    acc += window_sum[w];
  }
  return acc;
}

// The bucket method over the full scalars at positions idx.
template <class C>
ec::Xyzz<C> pippenger(std::span<const ec::Affine<C>> bases, std::span<const ff::BigInt<4>> scalars,
                      std::span<const uint32_t> idx, ThreadPool& pool, unsigned window = 0) {
  return bucket_method<C>(
      idx.size(), C::Scalar::BITS, [&](size_t k) -> const ff::BigInt<4>& { return scalars[idx[k]]; },
      [&](size_t k) -> const ec::Affine<C>& { return bases[idx[k]]; }, [](size_t) { return false; }, pool, window);
}

// Above this many points msm() runs the plain bucket method even where GLV exists.
inline constexpr size_t kGlvMaxPoints = size_t(1) << 17;

// The same sum through the GLV split (msm/glv.hpp): 2m terms of 128 bits, term k < m
// being k1·P and term m + k being k2·phi(P) for the point P at idx[k]. Needs phi(P)
// for each point (one product, kept for the duration) and the split scalars.
template <class C>
ec::Xyzz<C> pippenger_glv(std::span<const ec::Affine<C>> bases, std::span<const ff::BigInt<4>> scalars,
                          std::span<const uint32_t> idx, ThreadPool& pool, unsigned window = 0) {
  using G = Glv<C>;
  const size_t m = idx.size();
  std::vector<ff::BigInt<2>> half_scalar(2 * m);
  std::vector<uint8_t> negate(2 * m);
  std::vector<ec::Affine<C>> phi(m);
  const auto beta = G::beta();
  const GlvLattice& lattice = G::lattice();
  pool.parallel_for(
      0, m,
      [&](size_t lo, size_t hi) {
        for (size_t k = lo; k < hi; ++k) {
          const GlvSplit s = glv_split(scalars[idx[k]], lattice);
          half_scalar[k] = s.k1;
          half_scalar[m + k] = s.k2;
          negate[k] = s.neg1;
          negate[m + k] = s.neg2;
          const auto& p = bases[idx[k]];
          phi[k] = {p.x * beta, p.y};
        }
      },
      1024);
  return bucket_method<C>(
      2 * m, G::kBits, [&](size_t k) -> const ff::BigInt<2>& { return half_scalar[k]; },
      [&](size_t k) -> const ec::Affine<C>& { return k < m ? bases[idx[k]] : phi[k - m]; },
      [&](size_t k) { return negate[k] != 0; }, pool, window);
}

}  // namespace detail

// sum_i scalars[i]·bases[i]. Bases at infinity (0, 0) and zero scalars contribute nothing;
// scalars must be canonical (< r). The two spans must have the same length (the shorter
// length is used otherwise); indices are 32-bit, so at most 2^32 − 1 points.
template <class C>
ec::Jacobian<C> msm(std::span<const ec::Affine<C>> bases, std::span<const ff::BigInt<4>> scalars, ThreadPool& pool) {
  static_assert(C::Scalar::N == 4, "scalars are four 64-bit limbs");
  using P = ec::Xyzz<C>;
  const size_t n = std::min(bases.size(), scalars.size());

  // Split indices by scalar kind, per chunk so it parallelises, then concatenate.
  size_t chunks = std::max<size_t>(1, std::min(pool.size() * 4, n / 4096));
  std::vector<std::vector<uint32_t>> ones(chunks), rest(chunks);
  pool.run(chunks, [&](size_t t) {
    size_t lo = n * t / chunks, hi = n * (t + 1) / chunks;
    for (size_t i = lo; i < hi; ++i) {
      if (detail::is_zero4(scalars[i]) || bases[i].is_infinity()) continue;
      (detail::is_one4(scalars[i]) ? ones[t] : rest[t]).push_back(uint32_t(i));
    }
  });
  auto concat = [](std::vector<std::vector<uint32_t>>& parts) {
    std::vector<uint32_t> all;
    size_t total = 0;
    for (auto& p : parts) total += p.size();
    all.reserve(total);
    for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
  };
  std::vector<uint32_t> one_idx = concat(ones), rest_idx = concat(rest);

  P acc = detail::sum_ones<C>(bases, one_idx, pool);
  if constexpr (Glv<C>::kEnabled) {
    // GLV saves bucket sums but not additions, and only when its window count (129/c
    // rounded up, over 2m points) is half the plain one (255/c, over m): at 2^16 points
    // (c = 13: 10 windows against 20) it was ~10% faster on BN254 G1; at 2^18 the plain
    // method's best width (c = 15: 17 windows × m additions) beat GLV's (9 × 2m) by ~10%.
    // So GLV runs up to 2^17 points.
    if (rest_idx.size() <= detail::kGlvMaxPoints) {
      acc += detail::pippenger_glv<C>(bases, scalars, rest_idx, pool);
    } else {
      acc += detail::pippenger<C>(bases, scalars, rest_idx, pool);
    }
  } else {
    acc += detail::pippenger<C>(bases, scalars, rest_idx, pool);
  }
  return acc.to_jacobian();
}

}  // namespace cuzk::msm
