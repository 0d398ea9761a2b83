// Many scalar multiples of one fixed point (the dev setup's [x_i]·G), by a windowed table:
// with w-bit windows, T[k][d] = d·2^(wk)·G for d in [1, 2^w), so k·G costs one mixed
// addition per non-zero window and no doublings. Table rows are built in parallel and
// stored affine; results are batch-converted to affine per chunk (one inversion each).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/thread_pool.hpp"
#include "ec/batch_affine.hpp"
#include "ec/points.hpp"
#include "ff/bigint.hpp"

namespace cuzk::groth16 {

template <class Cfg>
class FixedBaseTable {
 public:
  using Affine = ec::Affine<Cfg>;
  using Jac = ec::Jacobian<Cfg>;
  using Scalar = typename Cfg::Scalar;
  static constexpr size_t kBits = Scalar::BITS;

  // A table sized for about `count` multiplications: the window minimises
  // windows·(2^w table points + count additions), capped to keep the table in memory.
  FixedBaseTable(const Affine& base, size_t count, ThreadPool& pool) {
    size_t best = ~size_t(0);
    for (unsigned w = 2; w <= 16; ++w) {
      size_t windows = (kBits + w - 1) / w;
      size_t cost = windows * ((size_t(1) << w) + count);
      if (cost < best) {
        best = cost;
        w_ = w;
      }
    }
    windows_ = (kBits + w_ - 1) / w_;
    const size_t row = (size_t(1) << w_) - 1;
    table_.resize(windows_ * row);
    std::vector<Jac> starts(windows_);
    Jac g = Jac::from_affine(base);
    for (size_t k = 0; k < windows_; ++k) {
      starts[k] = g;
      for (unsigned i = 0; i < w_; ++i) g = g.dbl();
    }
    pool.run(windows_, [&](size_t k) {
      std::vector<Jac> jr(row);
      jr[0] = starts[k];
      for (size_t d = 1; d < row; ++d) jr[d] = jr[d - 1] + starts[k];
      ec::batch_to_affine(jr.data(), row, table_.data() + k * row);
    });
  }

  // out[i] = scalars[i]·base. `on_chunk(done)` (may be empty) is called after each chunk
  // with the number of results finished so far, from whichever thread finished it.
  void mul_many(std::span<const Scalar> scalars, std::span<Affine> out, ThreadPool& pool,
                const std::function<void(size_t)>& on_chunk = {}) const {
    constexpr size_t kChunk = 2048;
    const size_t n = scalars.size();
    const size_t row = (size_t(1) << w_) - 1;
    std::atomic<size_t> done{0};
    pool.run((n + kChunk - 1) / kChunk, [&](size_t c) {
      size_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
      std::vector<Jac> acc(hi - lo, Jac::infinity());
      for (size_t i = lo; i < hi; ++i) {
        auto k = scalars[i].to_canonical();
        Jac a = Jac::infinity();
        for (size_t win = 0; win < windows_; ++win) {
          uint32_t d = digit(k, win * w_, w_);
          if (d != 0) a += table_[win * row + d - 1];
        }
        acc[i - lo] = a;
      }
      ec::batch_to_affine(acc.data(), acc.size(), out.data() + lo);
      size_t now = done.fetch_add(hi - lo) + (hi - lo);
      if (on_chunk) on_chunk(now);
    });
  }

  unsigned window() const { return w_; }

 private:
  // Bits [offset, offset + width) of k, width <= 16.
  template <size_t N>
  static uint32_t digit(const ff::BigInt<N>& k, size_t offset, unsigned width) {
    size_t limb = offset / 64, shift = offset % 64;
    uint64_t v = k.limb[limb] >> shift;
    if (shift + width > 64 && limb + 1 < N) v |= k.limb[limb + 1] << (64 - shift);
    return uint32_t(v & ((uint64_t(1) << width) - 1));
  }

  unsigned w_ = 2;
  size_t windows_ = 0;
  std::vector<Affine> table_;
};

}  // namespace cuzk::groth16
