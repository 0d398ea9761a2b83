// Variable-base scalar multiplication shared by every projective point type.
#pragma once

#include <cstddef>

#include "core/hd.hpp"
#include "ff/bigint.hpp"

namespace cuzk::ec::detail {

// [k]P with a fixed 4-bit window: 15 table additions, then per window four doublings and
// at most one addition. Point needs infinity(), dbl() and operator+.
template <class Point, size_t M>
CUZK_HD constexpr Point window_mul(const Point& p, const ff::BigInt<M>& k) {
  constexpr unsigned W = 4;
  Point table[1u << W];
  table[0] = Point::infinity();
  table[1] = p;
  for (unsigned i = 2; i < (1u << W); ++i) table[i] = (i & 1) ? table[i - 1] + p : table[i / 2].dbl();
  Point acc = Point::infinity();
  size_t windows = (k.num_bits() + W - 1) / W;
  for (size_t w = windows; w-- > 0;) {
    for (unsigned j = 0; j < W; ++j) acc = acc.dbl();
    unsigned digit = 0;
    for (unsigned j = 0; j < W; ++j) {
      size_t bit = w * W + j;
      if (bit < 64 * M && k.bit(bit)) digit |= 1u << j;
    }
    if (digit != 0) acc = acc + table[digit];
  }
  return acc;
}

}  // namespace cuzk::ec::detail
