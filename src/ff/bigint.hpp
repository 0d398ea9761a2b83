// Fixed-width unsigned integers of N 64-bit limbs (little-endian limb order) and the
// carry-propagating primitives the field code is built from. Usable at compile time,
// on the host and on the device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.hpp"

namespace cuzk::ff {

// a + b + carry -> (sum, carry out)
CUZK_INLINE constexpr uint64_t adc(uint64_t a, uint64_t b, uint64_t& carry) {
  uint64_t s = a + carry;
  uint64_t c = s < carry;
  uint64_t r = s + b;
  carry = c + (r < s);
  return r;
}

// a - b - borrow -> (difference, borrow out)
CUZK_INLINE constexpr uint64_t sbb(uint64_t a, uint64_t b, uint64_t& borrow) {
  uint64_t d = a - b;
  uint64_t b1 = a < b;
  uint64_t r = d - borrow;
  borrow = b1 + (d < borrow);
  return r;
}

// a + b*c + carry -> (low word, carry out = high word)
CUZK_INLINE constexpr uint64_t mac(uint64_t a, uint64_t b, uint64_t c, uint64_t& carry) {
#if defined(__CUDA_ARCH__)
  if (!__builtin_is_constant_evaluated()) {
    uint64_t lo = b * c;
    uint64_t hi = __umul64hi(b, c);
    lo += a;
    hi += lo < a;
    lo += carry;
    hi += lo < carry;
    carry = hi;
    return lo;
  }
#endif
  unsigned __int128 t = (unsigned __int128)b * c + a + carry;
  carry = (uint64_t)(t >> 64);
  return (uint64_t)t;
}

template <size_t N>
struct BigInt {
  uint64_t limb[N];

  CUZK_INLINE constexpr bool operator==(const BigInt& o) const {
    uint64_t d = 0;
    for (size_t i = 0; i < N; ++i) d |= limb[i] ^ o.limb[i];
    return d == 0;
  }
  CUZK_INLINE constexpr bool is_zero() const {
    uint64_t d = 0;
    for (size_t i = 0; i < N; ++i) d |= limb[i];
    return d == 0;
  }
  CUZK_INLINE constexpr bool bit(size_t i) const { return (limb[i / 64] >> (i % 64)) & 1; }
  CUZK_HD constexpr size_t num_bits() const {
    for (size_t i = N; i-- > 0;) {
      if (limb[i] != 0) return i * 64 + 64 - __builtin_clzll(limb[i]);
    }
    return 0;
  }
  // Number of trailing zero bits; 0 for zero.
  CUZK_HD constexpr size_t trailing_zeros() const {
    for (size_t i = 0; i < N; ++i) {
      if (limb[i] != 0) return i * 64 + __builtin_ctzll(limb[i]);
    }
    return 0;
  }

  // this < o, compared as unsigned integers
  CUZK_INLINE constexpr bool less_than(const BigInt& o) const {
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) sbb(limb[i], o.limb[i], borrow);
    return borrow != 0;
  }
  // Returns the carry out.
  CUZK_INLINE constexpr uint64_t add_in_place(const BigInt& o) {
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) limb[i] = adc(limb[i], o.limb[i], carry);
    return carry;
  }
  // Returns the borrow out.
  CUZK_INLINE constexpr uint64_t sub_in_place(const BigInt& o) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) limb[i] = sbb(limb[i], o.limb[i], borrow);
    return borrow;
  }
  CUZK_HD constexpr void shr(unsigned k) {
    while (k >= 64) {
      for (size_t i = 0; i + 1 < N; ++i) limb[i] = limb[i + 1];
      limb[N - 1] = 0;
      k -= 64;
    }
    if (k == 0) return;
    for (size_t i = 0; i + 1 < N; ++i) limb[i] = (limb[i] >> k) | (limb[i + 1] << (64 - k));
    limb[N - 1] >>= k;
  }
  CUZK_HD static constexpr BigInt from_u64(uint64_t v) {
    BigInt r{};
    r.limb[0] = v;
    return r;
  }
};

// Parses a hexadecimal literal ("0x..." or bare digits) at compile time.
template <size_t N>
constexpr BigInt<N> bigint_from_hex(const char* s) {
  BigInt<N> r{};
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
  size_t len = 0;
  while (s[len] != '\0') ++len;
  size_t nibble = 0;
  for (size_t i = len; i-- > 0;) {
    char c = s[i];
    uint64_t v = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                 : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                                          : uint64_t(c - 'A' + 10);
    r.limb[nibble / 16] |= v << (4 * (nibble % 16));
    ++nibble;
  }
  return r;
}

}  // namespace cuzk::ff
