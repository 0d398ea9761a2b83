// A one-level Karatsuba Montgomery product for the device, beside ff/fp_cuda.hpp's
// interleaved one. Device code only; include after ff/fp.hpp.
//
// The 32-bit multiply-add pipe bounds every field product on the GPU. The interleaved
// product of n words issues 2n^2 multiply-adds for a·b and 2n^2 for the reduction;
// Karatsuba takes a·b from three products of n/2 words (3n^2/2 multiply-adds) at the price
// of a few dozen additions. On the H200 (cuda_arith_bench, BENCHMARKS.md "Karatsuba and
// the shared reduction") a chain of products ran 3-7% faster, but the XYZZ mixed addition
// built on it ran 6-14% slower (more registers live: 186 against 153 for BLS12-381 G1), so
// Fp keeps the interleaved product. The benchmark shows the trade. The NTT's twiddle products
// took it once and ran 8% slower at 2^27 (H100, 35.16-35.20 -> 38.01 ms for BLS12-381's forward
// transform: spills at the passes' 80-register cap; BENCHMARKS.md "Three variants on an H100").
// BLS12-381 G1's out-of-line level-1 products can take it (cuda/msm/outlined_products.cuh,
// CUZK_MSM_KARATSUBA).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"

#if !defined(__CUDA_ARCH__)
#error "ff/fp_cuda_karatsuba.hpp is device code"
#endif

namespace cuzk::ff::cuda_fp {

// s = a + b over h words; returns the carry out (0 or 1).
template <size_t h>
__device__ __forceinline__ uint32_t add_words(const uint32_t* a, const uint32_t* b, uint32_t* s) {
  s[0] = add_cc(a[0], b[0]);
#pragma unroll
  for (size_t j = 1; j < h; ++j) s[j] = addc_cc(a[j], b[j]);
  return addc(0, 0);
}

// W = a * b (2n words) by one level of Karatsuba over halves of h = n/2 words:
// a·b = L + M'·2^(32h) + H·2^(64h) with L = a0 b0, H = a1 b1 and M' = (a0 + a1)(b0 + b1) - L - H.
// The half sums carry one bit each (ca, cb), so the middle product is taken over their low h
// words and corrected: (sa + ca 2^(32h))(sb + cb 2^(32h)) = sa sb + (ca sb + cb sa) 2^(32h) + ca cb 2^(64h).
template <size_t n>
__device__ __forceinline__ void mul_wide_karatsuba(const uint32_t* a, const uint32_t* b, uint32_t* W) {
  static_assert(n % 4 == 0, "halves of an even number of words");
  constexpr size_t h = n / 2;
  uint32_t sa[h], sb[h];
  const uint32_t ca = add_words<h>(a, a + h, sa);
  const uint32_t cb = add_words<h>(b, b + h, sb);
  uint32_t L[n], H[n], M[n];
  mul_wide<h>(a, b, L);
  mul_wide<h>(a + h, b + h, H);
  mul_wide<h>(sa, sb, M);
  const uint32_t ma = 0u - ca, mb = 0u - cb;
  // (M, top) = the full middle product, n + 1 words.
  M[h] = add_cc(M[h], sb[0] & ma);
#pragma unroll
  for (size_t j = 1; j < h; ++j) M[h + j] = addc_cc(M[h + j], sb[j] & ma);
  uint32_t top = addc(ca & cb, 0);
  M[h] = add_cc(M[h], sa[0] & mb);
#pragma unroll
  for (size_t j = 1; j < h; ++j) M[h + j] = addc_cc(M[h + j], sa[j] & mb);
  top = addc(top, 0);
  // M' = M - L - H = a0 b1 + a1 b0, never negative.
  M[0] = sub_cc(M[0], L[0]);
#pragma unroll
  for (size_t q = 1; q < n; ++q) M[q] = subc_cc(M[q], L[q]);
  top = subc(top, 0);
  M[0] = sub_cc(M[0], H[0]);
#pragma unroll
  for (size_t q = 1; q < n; ++q) M[q] = subc_cc(M[q], H[q]);
  top = subc(top, 0);
  // W = L + H·2^(32n) + (M', top)·2^(32h); a·b < 2^(64n), so the last carry is zero.
#pragma unroll
  for (size_t q = 0; q < h; ++q) W[q] = L[q];
  W[h] = add_cc(L[h], M[0]);
#pragma unroll
  for (size_t q = 1; q < h; ++q) W[h + q] = addc_cc(L[h + q], M[q]);
#pragma unroll
  for (size_t q = 0; q < h; ++q) W[n + q] = addc_cc(H[q], M[h + q]);
  W[n + h] = addc_cc(H[h], top);
#pragma unroll
  for (size_t q = h + 1; q + 1 < n; ++q) W[n + q] = addc_cc(H[q], 0);
  W[2 * n - 1] = addc(H[n - 1], 0);
}

// x * y * 2^(-64N) mod p, fully reduced: the wide product (Karatsuba), then REDC. kLazy:
// without REDC's final subtraction, below x y 2^(-64N) + p (redc_wide).
template <class P, bool kLazy = false>
__device__ __forceinline__ BigInt<P::N> mont_mul_karatsuba(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n], b[n], W[2 * n];
  to_words(x, a);
  to_words(y, b);
  mul_wide_karatsuba<n>(a, b, W);
  return redc_wide<P, kLazy>(W);
}

// (x y - u v) * 2^(-64N) mod p as mont_mul_sub (its contract, kLazy included) with both wide
// products by Karatsuba: 5n^2 multiply-adds instead of 6n^2.
template <class P, bool kLazy = false>
__device__ __forceinline__ BigInt<P::N> mont_mul_sub_karatsuba(const BigInt<P::N>& x, const BigInt<P::N>& y,
                                                               const BigInt<P::N>& u, const BigInt<P::N>& v) {
  return mont_mul_sub_by<P, kLazy>(x, y, u, v, [](const uint32_t* a, const uint32_t* b, uint32_t* W) {
    mul_wide_karatsuba<Modulus<P>::n>(a, b, W);
  });
}

}  // namespace cuzk::ff::cuda_fp
