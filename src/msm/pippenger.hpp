// Multi-scalar multiplication on the CPU: sum_i k_i·P_i for affine bases P_i and canonical
// scalars k_i (standard form, little-endian limbs, < r).
//
// As supraseal does it, scalars are first sorted into three kinds: 0 (skipped), 1 (summed
// by plain mixed additions: circom witnesses are full of bits) and the rest, which go to
// Pippenger's bucket method with signed c-bit digits: digits lie in (-2^(c-1), 2^(c-1)],
// so each window needs only 2^(c-1) buckets and a negative digit adds -P = (x, -y). Bucket
// additions are batched affine additions sharing one inversion, with XYZZ buckets fed by
// mixed additions for the cases a batch cannot take (see BatchAffineBuckets); buckets are
// reduced by a running sum. Threads take whole windows; a window's buckets stay private to
// the thread that owns it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/thread_pool.hpp"
#include "ec/points.hpp"
#include "ff/bigint.hpp"

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
  size_t b = std::min<size_t>(512, half / 4);
  return b < 64 ? 0 : b;
}

// Window width for m scalars of `bits` bits, minimising a cost model in field
// multiplications: per window, m bucket additions (about 6.5 batched affine, 10 mixed
// XYZZ, and a batch of B spills about B/2^(c-1) of its points to XYZZ) plus 2^(c-1)
// buckets to sum (one mixed and one full XYZZ addition, about 24, plus cache misses).
inline unsigned choose_window(size_t m, size_t bits) {
  unsigned best = 1;
  double best_cost = 1e300;
  for (unsigned c = 1; c <= 20; ++c) {
    double windows = double((bits + 1 + c - 1) / c);
    double buckets = double(uint64_t(1) << (c - 1));
    double per_add = batch_size(c) ? 6.5 + 3.5 * double(batch_size(c)) / buckets : 10.0;
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
// inversion (Montgomery's trick): 6 multiplications each instead of 10 for a mixed XYZZ
// addition. A point whose bucket already has a queued addition, or whose x equals the
// bucket's (doubling or cancellation), goes to the XYZZ overflow instead, which handles
// every case; so does everything when batching is off.
template <class C>
class BatchAffineBuckets {
 public:
  using A = ec::Affine<C>;
  using P = ec::Xyzz<C>;
  using Base = typename C::Base;

  BatchAffineBuckets(size_t buckets, size_t batch)
      : batch_(batch), point_(batch ? buckets : 0), filled_(batch ? buckets : 0, 0), queued_(batch ? buckets : 0, 0),
        overflow_(buckets, P::infinity()) {
    pending_bucket_.reserve(batch);
    pending_point_.reserve(batch);
    den_.reserve(batch);
    prefix_.reserve(batch);
  }

  void add(uint32_t j, const A& p) {
    if (batch_ == 0) {
      overflow_[j] += p;
      return;
    }
    if (!filled_[j]) {
      point_[j] = p;
      filled_[j] = 1;
      return;
    }
    if (queued_[j] || point_[j].x == p.x) {
      overflow_[j] += p;
      return;
    }
    queued_[j] = 1;
    pending_bucket_.push_back(j);
    pending_point_.push_back(p);
    den_.push_back(p.x - point_[j].x);
    if (pending_bucket_.size() == batch_) flush();
  }

  // sum_j (j+1)·bucket_j, by a running sum from the top bucket down.
  P weighted_sum() {
    flush();
    P running = P::infinity(), total = P::infinity();
    for (size_t j = overflow_.size(); j-- > 0;) {
      if (batch_ && filled_[j]) running += point_[j];
      running += overflow_[j];
      total += running;
    }
    return total;
  }

 private:
  void flush() {
    size_t n = pending_bucket_.size();
    if (n == 0) return;
    prefix_.resize(n);
    Base acc = Base::one();
    for (size_t i = 0; i < n; ++i) {
      prefix_[i] = acc;
      acc = acc * den_[i];
    }
    Base inv = acc.inverse();
    for (size_t i = n; i-- > 0;) {
      Base dinv = inv * prefix_[i];
      inv = inv * den_[i];
      uint32_t j = pending_bucket_[i];
      const A& q = pending_point_[i];
      A& b = point_[j];
      Base lambda = (q.y - b.y) * dinv;
      Base x3 = lambda.square() - b.x - q.x;
      b.y = lambda * (b.x - x3) - b.y;
      b.x = x3;
      queued_[j] = 0;
    }
    pending_bucket_.clear();
    pending_point_.clear();
    den_.clear();
  }

  size_t batch_;
  std::vector<A> point_;
  std::vector<uint8_t> filled_, queued_;
  std::vector<P> overflow_;
  std::vector<uint32_t> pending_bucket_;
  std::vector<A> pending_point_;
  std::vector<Base> den_, prefix_;
};

// Signed digit d of one window packed as |d| << 1 | (d < 0); 0 means "no bucket".
using Digit = uint32_t;

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

// The bucket method over the scalars at positions idx; `window` forces c (0: cost model).
template <class C>
ec::Xyzz<C> pippenger(std::span<const ec::Affine<C>> bases, std::span<const ff::BigInt<4>> scalars,
                      std::span<const uint32_t> idx, ThreadPool& pool, unsigned window = 0) {
  using P = ec::Xyzz<C>;
  const size_t m = idx.size();
  if (m == 0) return P::infinity();
  constexpr size_t kBits = C::Scalar::BITS;
  const unsigned c = window ? window : choose_window(m, kBits);
  const size_t windows = (kBits + 1 + c - 1) / c;  // one spare bit absorbs the last carry
  const uint32_t half = uint32_t(1) << (c - 1);

  std::vector<Digit> digits(windows * m);
  pool.parallel_for(
      0, m,
      [&](size_t lo, size_t hi) {
        for (size_t k = lo; k < hi; ++k) {
          const auto& s = scalars[idx[k]];
          uint32_t carry = 0;
          for (size_t w = 0; w < windows; ++w) {
            uint32_t d = bits_at(s, w * c, c) + carry;
            Digit out;
            if (d > half) {
              uint32_t mag = (uint32_t(1) << c) - d;  // 0 when d = 2^c: only the carry remains
              out = mag == 0 ? 0 : (mag << 1 | 1);
              carry = 1;
            } else {
              out = d << 1;
              carry = 0;
            }
            digits[w * m + k] = out;
          }
        }
      },
      1024);

  std::vector<P> window_sum(windows, P::infinity());
  pool.run(windows, [&](size_t w) {
    BatchAffineBuckets<C> buckets(half, batch_size(c));
    const Digit* dw = digits.data() + w * m;
    for (size_t k = 0; k < m; ++k) {
      Digit d = dw[k];
      if (d == 0) continue;
      const auto& b = bases[idx[k]];
      buckets.add((d >> 1) - 1, (d & 1) ? ec::Affine<C>{b.x, -b.y} : b);
    }
    window_sum[w] = buckets.weighted_sum();
  });

  P acc = P::infinity();
  for (size_t w = windows; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    acc += window_sum[w];
  }
  return acc;
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
  acc += detail::pippenger<C>(bases, scalars, rest_idx, pool);
  return acc.to_jacobian();
}

}  // namespace cuzk::msm
