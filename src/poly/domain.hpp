// Radix-2 evaluation domains and the number-theoretic transform over a scalar field.
//
// A domain of size n = 2^k is <omega> with omega the primitive n-th root of unity of a
// chosen root convention (ff/roots.hpp). Element i is omega^i, in natural order, as in
// the snarkjs file formats. Every transform takes and returns natural order; the
// bit-reversal is internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "ff/roots.hpp"
#include "poly/ntt_lanes.hpp"

namespace cuzk::poly {

namespace detail {

inline uint64_t reverse_bits(uint64_t x, unsigned bits) {
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
  x = __builtin_bswap64(x);
  return bits == 0 ? 0 : x >> (64 - bits);
}

// Below this many elements a loop is not worth handing to other threads.
inline constexpr size_t kMinParallel = 1 << 12;

// Whether F's transforms run in AVX-512 IFMA lanes now (poly/ntt_lanes.hpp).
template <class F>
bool use_lanes() {
  if constexpr (lanes::kSupported<F>) {
    return ff::lanes::enabled();
  } else {
    return false;
  }
}

}  // namespace detail

template <class F>
class EvaluationDomain {
 public:
  // Stages up to this block size run per block while the block stays in L2.
  static constexpr unsigned kLocalLog = 12;

  static Result<EvaluationDomain> create(size_t log_n, ff::RootConvention conv = ff::RootConvention::kSnarkjs) {
    if (log_n > F::S) {
      return invalid_argument("poly: domain of size 2^" + std::to_string(log_n) + " exceeds the field's 2-adicity 2^" +
                              std::to_string(F::S));
    }
    if (log_n > 40) return invalid_argument("poly: domain of size 2^" + std::to_string(log_n) + " is too large");
    return EvaluationDomain(log_n, conv);
  }

  size_t size() const { return n_; }
  unsigned log_size() const { return log_n_; }
  ff::RootConvention convention() const { return conv_; }
  const F& omega() const { return omega_; }
  const F& omega_inv() const { return omega_inv_; }
  const F& size_inv() const { return n_inv_; }
  // omega^i for i in [0, n).
  F element(size_t i) const { return omega_.pow(uint64_t(i)); }

  // Coefficients -> evaluations at omega^i.
  void ntt(std::span<F> a, ThreadPool& pool) const {
    bit_reverse(a, pool);
    butterflies(a, pool);
  }

  // Evaluations at omega^i -> coefficients.
  void intt(std::span<F> a, ThreadPool& pool) const {
    ntt(a, pool);
    reverse_and_scale(a, n_inv_, F::one(), pool);
  }

  // Coefficients -> evaluations at shift * omega^i.
  void coset_ntt(std::span<F> a, const F& shift, ThreadPool& pool) const {
    scale_by_powers(a, F::one(), shift, pool);
    ntt(a, pool);
  }

  // Evaluations at shift * omega^i -> coefficients.
  void coset_intt(std::span<F> a, const F& shift, ThreadPool& pool) const { coset_intt_scaled(a, shift, F::one(), pool); }

  // Evaluations at shift * omega^i -> coefficients times `factor` (a free scaling).
  void coset_intt_scaled(std::span<F> a, const F& shift, const F& factor, ThreadPool& pool) const {
    ntt(a, pool);
    reverse_and_scale(a, n_inv_ * factor, shift.inverse(), pool);
  }

  // Evaluations at omega^i -> evaluations at shift * omega^i, with one permutation pass
  // between the two transforms instead of three (intt's reversal and scaling, the coset
  // scaling, and ntt's bit reversal).
  void shift_evaluations(std::span<F> a, const F& shift, ThreadPool& pool) const {
    ntt(a, pool);
    reverse_and_scale(a, n_inv_, shift, pool);
    ntt(a, pool);
  }

  // a[j] *= c * g^j, in parallel.
  void scale_by_powers(std::span<F> a, const F& c, const F& g, ThreadPool& pool) const {
    const bool in_lanes = detail::use_lanes<F>();
    pool.parallel_for(
        0, a.size(),
        [&](size_t lo, size_t hi) {
          F p = c * g.pow(uint64_t(lo));
          if constexpr (lanes::kSupported<F>) {
            if (in_lanes) {
              lanes::scale_run(a.data() + lo, hi - lo, p, g);
              return;
            }
          }
          for (size_t j = lo; j < hi; ++j) {
            a[j] = a[j] * p;
            p = p * g;
          }
        },
        detail::kMinParallel);
  }

 private:
  EvaluationDomain(size_t log_n, ff::RootConvention conv)
      : log_n_(unsigned(log_n)), n_(size_t(1) << log_n), conv_(conv) {
    omega_ = ff::two_adic_root<F>(log_n, conv);
    omega_inv_ = omega_.inverse();
    n_inv_ = F::from_u64(n_).inverse();
    auto table = std::make_shared<std::vector<F>>(std::max<size_t>(1, n_ / 2));
    auto& t = *table;
    t[0] = F::one();
    // Chunked so each chunk can start from its own power (pool-free here: domains are
    // built once per circuit and reused).
    constexpr size_t kChunk = 1 << 10;
    for (size_t lo = 0; lo < t.size(); lo += kChunk) {
      F p = omega_.pow(uint64_t(lo));
      for (size_t j = lo; j < std::min(t.size(), lo + kChunk); ++j) {
        t[j] = p;
        p = p * omega_;
      }
    }
    twiddles_ = std::move(table);
  }

  void bit_reverse(std::span<F> a, ThreadPool& pool) const {
    unsigned bits = log_n_;
    pool.parallel_for(
        0, n_,
        [&](size_t lo, size_t hi) {
          for (size_t i = lo; i < hi; ++i) {
            size_t r = detail::reverse_bits(i, bits);
            if (i < r) std::swap(a[i], a[r]);
          }
        },
        detail::kMinParallel);
  }

  // a[j] <- a[-j mod n] * c * g^j: turns a forward transform into an inverse one
  // (c = 1/n), optionally followed by a coset scaling (g = shift or shift^-1).
  void reverse_and_scale(std::span<F> a, const F& c, const F& g, ThreadPool& pool) const {
    if (n_ == 1) {
      a[0] = a[0] * c;
      return;
    }
    // Pairs (j, n-j) for j in [1, n/2] are swapped by the same thread; n/2 pairs with itself.
    size_t half = n_ / 2;
    bool plain = g.is_one();
    const bool in_lanes = detail::use_lanes<F>();
    pool.parallel_for(
        1, half + 1,
        [&](size_t lo, size_t hi) {
          if constexpr (lanes::kSupported<F>) {
            if (in_lanes) {
              lanes::reverse_scale_run(a.data(), n_, lo, hi, c, g, plain);
              return;
            }
          }
          F gj = plain ? c : c * g.pow(uint64_t(lo));
          F gnj = plain ? c : c * g.pow(uint64_t(n_ - lo));
          F ginv = plain ? F::one() : g.inverse();
          for (size_t j = lo; j < hi; ++j) {
            size_t k = n_ - j;
            F x = a[j], y = a[k];
            if (j == k) {
              a[j] = x * gj;
            } else {
              a[j] = y * gj;
              a[k] = x * gnj;
            }
            if (!plain) {
              gj = gj * g;
              gnj = gnj * ginv;
            }
          }
        },
        detail::kMinParallel / 2);
    a[0] = a[0] * c;
  }

  // Stages of a decimation-in-time transform on bit-reversed input.
  void butterflies(std::span<F> a, ThreadPool& pool) const {
    const F* tw = twiddles_->data();
    if constexpr (lanes::kSupported<F>) {
      if (log_n_ >= lanes::kMinLog && detail::use_lanes<F>()) {
        lanes::butterflies(a.data(), log_n_, tw, pool);
        return;
      }
    }
    unsigned local = std::min<unsigned>(log_n_, kLocalLog);
    size_t block = size_t(1) << local;
    // First stages: each block of 2^local elements is independent.
    pool.parallel_for(0, n_ / block, [&](size_t lo, size_t hi) {
      for (size_t b = lo; b < hi; ++b) {
        F* x = a.data() + b * block;
        for (unsigned s = 1; s <= local; ++s) {
          size_t half = size_t(1) << (s - 1);
          size_t stride = n_ >> s;  // twiddle for index j is omega_len^j = omega^(j*n/len)
          for (size_t base = 0; base < block; base += 2 * half) stage_run(x + base, half, 0, half, tw, stride);
        }
      }
    });
    // Remaining stages: one parallel pass per stage over all n/2 butterflies.
    for (unsigned s = local + 1; s <= log_n_; ++s) {
      size_t half = size_t(1) << (s - 1);
      size_t stride = n_ >> s;
      pool.parallel_for(
          0, n_ / 2,
          [&](size_t lo, size_t hi) {
            while (lo < hi) {
              size_t grp = lo / half, j = lo % half;
              size_t end = std::min(hi - grp * half, half);
              stage_run(a.data() + grp * 2 * half, half, j, end, tw, stride);
              lo = grp * half + end;
            }
          },
          detail::kMinParallel / 2);
    }
  }

  // Butterflies j in [j0, j1) of one group whose halves start at x and x + half.
  static inline void stage_run(F* x, size_t half, size_t j0, size_t j1, const F* tw, size_t stride) {
    F* y = x + half;
    size_t j = j0;
    if (j == 0 && j < j1) {
      F u = x[0], v = y[0];
      x[0] = u + v;
      y[0] = u - v;
      ++j;
    }
    for (; j < j1; ++j) {
      F u = x[j];
      F v = y[j] * tw[j * stride];
      x[j] = u + v;
      y[j] = u - v;
    }
  }

  unsigned log_n_;
  size_t n_;
  ff::RootConvention conv_;
  F omega_, omega_inv_, n_inv_;
  // omega^i for i < n/2, shared by copies of the domain.
  std::shared_ptr<const std::vector<F>> twiddles_;
};

}  // namespace cuzk::poly
