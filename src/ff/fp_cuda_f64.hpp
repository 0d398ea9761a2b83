// A Montgomery product for the device on the double-precision (FP64) pipe, beside
// ff/fp_cuda.hpp's 32-bit integer one: measured, not taken. Device code only; include
// after ff/fp.hpp.
//
// The idea: every field product runs on the integer multiply-add pipe (IMAD), while the
// H200's FP64 pipe (64 operations per clock per SM, as many as IMAD) sits idle. A double
// holds a 53-bit significand and a fused multiply-add rounds once, so two of them split the
// exact 96-bit product of two 48-bit limbs into its halves:
//
//   h = fma_rz(a, b, 2^100)            = 2^100 + H·2^48,  H = floor(a·b / 2^48)
//   l = fma_rn(a, b, 2^100 + 2^52 - h) = 2^52 + L,        L = a·b mod 2^48
//
// (in [2^100, 2^101) one unit in the last place is 2^48, so rounding toward zero keeps
// exactly the high half; the low half is below 2^48, so it is exact). Limbs: 8 of 48 bits
// for a 384-bit field (BLS12-381 Fq), so R = 2^384 as for the word product: the same
// Montgomery form, and the result, fully reduced, is bit-identical to Fp's operator*.
//
// Measured on the H200 (cuda_arith_bench, BENCHMARKS.md "FP64-pipe products, and mul_sub
// out of line"): this product 25.8 G/s against the IMAD product's 27.4 (the square 31.4
// against 33.1); a column form with integer sums 23.8. The two pipes do not issue side by
// side freely (tests/cuda/probes/pipe_rates.cu: DFMA beside IMAD 41 + 41 per clock per SM
// against 61 alone): warps alternating the two products reach 31.4 G/s (+14%), one thread
// interleaving them 28.6, and in the MSM's level-1 accumulation the FP64 products made
// BLS12-381 G1 9% slower alone and 40% slower in alternate warps (two product bodies in the
// instruction caches). So Fp keeps the IMAD product, and this stays for the benchmark.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"
#include "ff/fp_cuda.hpp"

#if !defined(__CUDA_ARCH__)
#error "ff/fp_cuda_f64.hpp is device code"
#endif

namespace cuzk::ff::cuda_f64 {

constexpr unsigned kLimbBits = 48;
constexpr uint64_t kLimbMask = (uint64_t(1) << kLimbBits) - 1;
constexpr double kTwo52 = 4503599627370496.0;                   // 2^52
constexpr double kTwo100 = 1267650600228229401496703205376.0;   // 2^100
constexpr double kLowBias = 1267650600228234005096330575872.0;  // 2^100 + 2^52
constexpr uint64_t kBits52 = uint64_t(1023 + 52) << 52;         // the bits of 2^52
constexpr uint64_t kBits100 = uint64_t(1023 + 100) << 52;       // the bits of 2^100

// 48-bit limbs of a 64N-bit integer: L = 64N/48 of them (N = 6: 8).
template <size_t N>
constexpr size_t limbs_for() {
  static_assert((64 * N) % kLimbBits == 0, "the limbs must tile the Montgomery radix exactly");
  return 64 * N / kLimbBits;
}

// Limb k (48 bits) of a multi-limb integer.
template <size_t N>
__host__ __device__ constexpr uint64_t limb48(const BigInt<N>& x, size_t k) {
  const size_t bit = kLimbBits * k, w = bit / 64, s = bit % 64;
  uint64_t v = x.limb[w] >> s;
  if (s + kLimbBits > 64 && w + 1 < N) v |= x.limb[w + 1] << (64 - s);
  return v & kLimbMask;
}

// -p^{-1} mod 2^48.
constexpr uint64_t neg_inv48(uint64_t p0) {
  uint64_t inv = 1;
  for (int i = 0; i < 6; ++i) inv *= 2 - p0 * inv;  // Newton: doubles the correct bits
  return (0 - inv) & kLimbMask;
}

// An integer below 2^52 as a double, exactly: its bits under 2^52's exponent, minus 2^52.
__device__ __forceinline__ double to_f64(uint64_t x) { return __longlong_as_double(int64_t(x | kBits52)) - kTwo52; }

// The columns of a schoolbook product, every sum on the FP64 pipe: the high halves
// accumulate in place, h_k = fma_rz(a, b, h_k) (h_k stays in [2^100, 2^101), a multiple of
// 2^48, so the rounding drops exactly the new low half), and the low half, a·b - (h_k' -
// h_k), is added to a second double per column, exact below 2^53. Four FP64 operations per
// limb product (a column's first takes three: its low half starts the column's sum) and no
// integer additions; sums in 64-bit integers of the two halves' bits (three FP64 operations
// and two integer additions per limb product) ran slower.
template <size_t L>
struct FpColumns {
  double hi[2 * L], lo[2 * L];  // hi[k]: 2^100 + (high halves of column k)·2^48; lo[k]: 2^52 + low halves
  bool started[2 * L] = {};     // compile-time after unrolling

  __device__ __forceinline__ void add(double u, double v, size_t k) {
    if (!started[k]) {
      hi[k] = __fma_rz(u, v, kTwo100);
      lo[k] = __fma_rn(u, v, __dsub_rn(kLowBias, hi[k]));
      started[k] = true;
      return;
    }
    const double h = __fma_rz(u, v, hi[k]);
    lo[k] = __dadd_rn(lo[k], __fma_rn(u, v, __dsub_rn(hi[k], h)));
    hi[k] = h;
  }
};

// Montgomery reduction of the columns of a product of two values below p: the result,
// fully reduced.
template <class P, size_t L>
__device__ __forceinline__ BigInt<P::N> reduce_fp(FpColumns<L>& c) {
  constexpr size_t N = P::N;
  constexpr BigInt<N> p = P::MODULUS;
  constexpr uint64_t pinv = neg_inv48(limb48(p, 0));
#pragma unroll
  for (size_t k = 0; k < 2 * L; ++k) {
    if (!c.started[k]) {
      c.hi[k] = kTwo100;
      c.lo[k] = kTwo52;
      c.started[k] = true;
    }
  }
  // Word by word: q_i = (column i mod 2^48)·(-p^-1) makes column i divisible by 2^48. The
  // low half of q_i·p_0 is then 2^48 - (column i mod 2^48) unless that is zero, so only its
  // high half is computed and the carry takes the low one. Column k's value is its low
  // halves, the high halves of column k - 1 and the carry.
  auto bits = [](double d, uint64_t bias) { return uint64_t(__double_as_longlong(d)) - bias; };
  uint64_t carry = 0;
#pragma unroll
  for (size_t i = 0; i < L; ++i) {
    const uint64_t col = bits(c.lo[i], kBits52) + (i > 0 ? bits(c.hi[i - 1], kBits100) : 0) + carry;
    const uint64_t v = col & kLimbMask;
    const double q = to_f64((v * pinv) & kLimbMask);
    constexpr double p0 = double(limb48(p, 0));
    c.hi[i] = __fma_rz(q, p0, c.hi[i]);
#pragma unroll
    for (size_t j = 1; j < L; ++j) c.add(q, double(limb48(p, j)), i + j);
    carry = (col >> kLimbBits) + (v != 0 ? 1 : 0);
  }
  uint64_t r48[L];
#pragma unroll
  for (size_t k = 0; k < L; ++k) {
    const uint64_t col = bits(c.lo[L + k], kBits52) + bits(c.hi[L + k - 1], kBits100) + carry;
    r48[k] = col & kLimbMask;
    carry = col >> kLimbBits;
  }
  BigInt<N> r;
#pragma unroll
  for (size_t w = 0; w < N; ++w) {
    const size_t bit = 64 * w, k = bit / kLimbBits, s = bit % kLimbBits;
    uint64_t v = r48[k] >> s;
    if (k + 1 < L) v |= r48[k + 1] << (kLimbBits - s);  // s + 64 <= 96: two limbs cover a word
    r.limb[w] = v;
  }
  uint32_t words[2 * N];
  cuda_fp::to_words(r, words);
  cuda_fp::final_sub<P>(words);
  return cuda_fp::from_words<N>(words);
}

template <size_t N, size_t L = limbs_for<N>()>
__device__ __forceinline__ void to_limbs(const BigInt<N>& x, double* a) {
#pragma unroll
  for (size_t k = 0; k < L; ++k) a[k] = to_f64(limb48(x, k));
}

// x·y·2^(-64N) mod p, fully reduced (x, y < p).
template <class P>
__device__ __forceinline__ BigInt<P::N> mont_mul_fp(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  constexpr size_t L = limbs_for<P::N>();
  double a[L], b[L];
  to_limbs(x, a);
  to_limbs(y, b);
  FpColumns<L> c;
#pragma unroll
  for (size_t i = 0; i < L; ++i) {
#pragma unroll
    for (size_t j = 0; j < L; ++j) c.add(a[i], b[j], i + j);
  }
  return reduce_fp<P>(c);
}

// x^2: the cross products once with one factor doubled (exact; the columns keep their
// bounds: at most four cross products of 97 bits per column), then the squares.
template <class P>
__device__ __forceinline__ BigInt<P::N> mont_sqr_fp(const BigInt<P::N>& x) {
  constexpr size_t L = limbs_for<P::N>();
  double a[L], a2[L];
  to_limbs(x, a);
#pragma unroll
  for (size_t k = 0; k < L; ++k) a2[k] = a[k] + a[k];
  FpColumns<L> c;
#pragma unroll
  for (size_t i = 0; i < L; ++i) {
    c.add(a[i], a[i], 2 * i);
#pragma unroll
    for (size_t j = i + 1; j < L; ++j) c.add(a2[i], a[j], i + j);
  }
  return reduce_fp<P>(c);
}

}  // namespace cuzk::ff::cuda_f64
