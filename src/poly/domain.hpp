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
#include "ff/cpu_lanes.hpp"
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
    butterflies(a, false, pool);
  }

  // Evaluations at omega^i -> coefficients.
  void intt(std::span<F> a, ThreadPool& pool) const { interpolate(a, n_inv_, F::one(), pool); }

  // Coefficients -> evaluations at shift * omega^i.
  void coset_ntt(std::span<F> a, const F& shift, ThreadPool& pool) const {
    scale_by_powers(a, F::one(), shift, pool);
    ntt(a, pool);
  }

  // Evaluations at shift * omega^i -> coefficients.
  void coset_intt(std::span<F> a, const F& shift, ThreadPool& pool) const { coset_intt_scaled(a, shift, F::one(), pool); }

  // Evaluations at shift * omega^i -> coefficients times `factor` (a free scaling).
  void coset_intt_scaled(std::span<F> a, const F& shift, const F& factor, ThreadPool& pool) const {
    interpolate(a, n_inv_ * factor, shift.inverse(), pool);
  }

  // Evaluations at omega^i -> evaluations at shift * omega^i, with one scaling pass between
  // the two transforms (intt's 1/n and the coset's powers of shift together).
  void shift_evaluations(std::span<F> a, const F& shift, ThreadPool& pool) const {
    interpolate(a, n_inv_, shift, pool);
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
          if (g.is_one()) {
            for (size_t j = lo; j < hi; ++j) a[j] = a[j] * p;
            return;
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

  // In tiles of 8 x 8 elements: index bits (r: 3 | m | c: 3) go to (rev c | rev m | rev r),
  // so each tile's rows of eight consecutive elements (whole cache lines) land as rows of
  // its mirror tile rev m, which one thread swaps with it.
  void bit_reverse(std::span<F> a, ThreadPool& pool) const {
    constexpr unsigned kTileLog = 3;
    constexpr size_t kTile = size_t(1) << kTileLog;
    constexpr uint8_t kRev[kTile] = {0, 4, 2, 6, 1, 5, 3, 7};
    const unsigned bits = log_n_;
    if (bits < 2 * kTileLog) {
      for (size_t i = 0; i < n_; ++i) {
        size_t r = detail::reverse_bits(i, bits);
        if (i < r) std::swap(a[i], a[r]);
      }
      return;
    }
    const unsigned mid = bits - 2 * kTileLog;
    const size_t row = size_t(1) << (bits - kTileLog);  // between a tile's rows
    pool.parallel_for(
        0, size_t(1) << mid,
        [&](size_t lo, size_t hi) {
          F s[kTile][kTile], t[kTile][kTile];
          for (size_t m = lo; m < hi; ++m) {
            const size_t mr = detail::reverse_bits(m, mid);
            if (mr < m) continue;
            F* x = a.data() + (m << kTileLog);
            F* y = a.data() + (mr << kTileLog);
            for (size_t r = 0; r < kTile; ++r) {
              for (size_t c = 0; c < kTile; ++c) {
                s[r][c] = x[r * row + c];
                t[r][c] = y[r * row + c];
              }
            }
            for (size_t r = 0; r < kTile; ++r) {
              for (size_t c = 0; c < kTile; ++c) {
                y[r * row + c] = s[kRev[c]][kRev[r]];
                x[r * row + c] = t[kRev[c]][kRev[r]];
              }
            }
          }
        },
        detail::kMinParallel >> (2 * kTileLog));
  }

  // a <- c * g^j * (the transform of a by omega^-1): n * c * g^j times the coefficients
  // of the evaluations a.
  void interpolate(std::span<F> a, const F& c, const F& g, ThreadPool& pool) const {
    bit_reverse(a, pool);
    butterflies(a, true, pool);
    scale_by_powers(a, c, g, pool);
  }

  // Stages of a decimation-in-time transform by omega (by omega^-1 if `inverse`) on
  // bit-reversed input.
  void butterflies(std::span<F> a, bool inverse, ThreadPool& pool) const {
    const F* tw = twiddles_->data();
    if constexpr (lanes::kSupported<F>) {
      if (log_n_ >= lanes::kMinLog && detail::use_lanes<F>()) {
        lanes::butterflies(a.data(), log_n_, tw, inverse, pool);
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
          for (size_t base = 0; base < block; base += 2 * half) stage_run(x + base, half, 0, half, tw, stride, inverse);
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
              stage_run(a.data() + grp * 2 * half, half, j, end, tw, stride, inverse);
              lo = grp * half + end;
            }
          },
          detail::kMinParallel / 2);
    }
  }

  // Butterflies j in [j0, j1) of one group whose halves start at x and x + half. The
  // inverse transform's twiddle omega^(-j*stride) is -omega^(n/2 - j*stride): the same table
  // read backwards, with the sum and difference swapped.
  void stage_run(F* x, size_t half, size_t j0, size_t j1, const F* tw, size_t stride, bool inverse) const {
    F* y = x + half;
    const F* w = inverse ? tw + n_ / 2 : tw;
    const ptrdiff_t step = inverse ? -ptrdiff_t(stride) : ptrdiff_t(stride);
    size_t j = j0;
    if (j == 0 && j < j1) {
      F u = x[0], v = y[0];
      x[0] = u + v;
      y[0] = u - v;
      ++j;
    }
    for (; j < j1; ++j) {
      F u = x[j];
      F v = y[j] * w[ptrdiff_t(j) * step];
      F sum = u + v, diff = u - v;
      x[j] = inverse ? diff : sum;
      y[j] = inverse ? sum : diff;
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
