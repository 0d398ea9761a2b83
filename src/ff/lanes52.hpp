// Prime-field arithmetic eight elements at a time in AVX-512 IFMA lanes (vpmadd52luq /
// vpmadd52huq over 52-bit limbs), for the 4- and 6-limb fields (BN254 and BLS12-381).
//
// Include only from .cpp files: every function here is compiled for AVX-512 F + IFMA by
// its own target attribute, so the rest of the program stays portable, and callers must
// check ff::lanes::enabled() (ff/cpu_lanes.hpp) before calling any.
//
// Layout: L limbs of 52 bits, limb j of eight field elements in one register (L = 5 for a
// 256-bit Fp, 8 for a 384-bit one). Values are Fp's own Montgomery form (R = 2^(64N)):
// the product is Montgomery's, operand scanning (for each limb b_i: t += a·b_i, then
// q = t_0·(−p^-1) mod 2^52 and t = (t + q·p)/2^52), and since R is not a whole number of
// 52-bit steps, the last step reduces by the remaining bits only (48 for BN254, 20 for
// BLS12-381): q is taken mod 2^S and t divided by 2^S. So a lane product computes exactly
// what Fp's operator* does, and moving between Fp and lanes only regroups limbs. The
// product is below 2p whenever a·b < p·R (true for a, b < 2p: 4p < R for both moduli);
// additive helpers take explicit multiples of p to stay non-negative and reduce by
// conditional subtraction.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "ff/cpu_lanes.hpp"
#include "ff/fp.hpp"

namespace cuzk::ff::lanes52 {

#define CUZK_LANES __attribute__((target("avx512f,avx512ifma")))
// Forced inlining makes each kernel one straight function, as fast as the lanes go; it is
// left to the compiler in unoptimised builds (as CUZK_INLINE, core/hd.hpp) and in the
// sanitizer build (CMake CUZK_SANITIZE), where instrumenting those huge functions took
// clang minutes per kernel.
#if defined(__OPTIMIZE__) && !defined(CUZK_SANITIZE)
#define CUZK_LANES_INLINE __attribute__((target("avx512f,avx512ifma"), always_inline)) inline
#else
#define CUZK_LANES_INLINE __attribute__((target("avx512f,avx512ifma"))) inline
#endif

constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;

template <class F>
struct Shape {
  static constexpr int N = int(F::N);                   // 64-bit limbs
  static constexpr int L = (64 * N + 51) / 52;          // 52-bit limbs
  static constexpr int kLastBits = 64 * N - 52 * (L - 1);  // bits the last reduction step removes
  static_assert(kLastBits > 0 && kLastBits <= 52);
};

// An integer < 2^(64N) as L limbs of 52 bits.
template <class F>
std::array<uint64_t, Shape<F>::L> limbs52(const ff::BigInt<F::N>& x) {
  std::array<uint64_t, Shape<F>::L> out{};
  for (int k = 0; k < Shape<F>::L; ++k) {
    const int bit = 52 * k, lo = bit / 64, off = bit % 64;
    uint64_t v = x.limb[lo] >> off;
    if (off > 12 && lo + 1 < Shape<F>::N) v |= x.limb[lo + 1] << (64 - off);
    out[k] = v & kMask52;
  }
  return out;
}

// Eight field elements, limb-major.
template <int L>
struct V {
  __m512i l[L];
};

template <int L>
CUZK_LANES_INLINE void broadcast(V<L>& v, const std::array<uint64_t, L>& limbs) {
  for (int j = 0; j < L; ++j) v.l[j] = _mm512_set1_epi64(int64_t(limbs[j]));
}

// The modulus and the constants the lanes need, broadcast.
template <class F>
struct Consts {
  static constexpr int L = Shape<F>::L;
  V<L> p, two_p, four_p, one;
  __m512i neg_inv, mask, last_mask;

  CUZK_LANES Consts() {
    // k·p for k = 1, 2, 4, as 52-bit limbs.
    std::array<uint64_t, L> kp = limbs52<F>(F::MODULUS);
    V<L>* multiples[] = {&p, &two_p, &four_p};
    for (V<L>* m : multiples) {
      broadcast<L>(*m, kp);
      uint64_t carry = 0;
      for (int j = 0; j < L; ++j) {
        const uint64_t v = (kp[j] << 1) + carry;
        kp[j] = v & kMask52;
        carry = v >> 52;
      }
    }
    broadcast<L>(one, limbs52<F>(F::one().mont()));
    neg_inv = _mm512_set1_epi64(int64_t(F::INV & kMask52));  // F::INV = −p^-1 mod 2^64
    mask = _mm512_set1_epi64(int64_t(kMask52));
    last_mask = _mm512_set1_epi64(int64_t((uint64_t(1) << Shape<F>::kLastBits) - 1));
  }
};

// Shifts by constants; the masked forms avoid an uninitialised-source warning in GCC 12.
CUZK_LANES_INLINE __m512i srli(__m512i a, unsigned k) { return _mm512_maskz_srli_epi64(0xff, a, k); }
CUZK_LANES_INLINE __m512i slli(__m512i a, unsigned k) { return _mm512_maskz_slli_epi64(0xff, a, k); }
CUZK_LANES_INLINE __m512i srai(__m512i a, unsigned k) { return _mm512_maskz_srai_epi64(0xff, a, k); }

// mul's value with its limbs not yet carried: non-negative, each below 2^62, for a sum or
// difference that carries anyway (add, sub).
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> mul_lazy(const V<Shape<F>::L>& a, const V<Shape<F>::L>& b, const Consts<F>& c) {
  constexpr int L = Shape<F>::L, S = Shape<F>::kLastBits;
  const __m512i zero = _mm512_setzero_si512();
  __m512i t[L + 1];
#pragma GCC unroll 16
  for (int j = 0; j <= L; ++j) t[j] = zero;
#pragma GCC unroll 16
  for (int i = 0; i < L; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < L; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], a.l[j], b.l[i]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.l[j], b.l[i]);
    }
    // madd52lo leaves q below 2^52; only the last step's shorter q needs a mask.
    __m512i q = _mm512_madd52lo_epu64(zero, t[0], c.neg_inv);
    if (i + 1 == L) q = _mm512_and_si512(q, c.last_mask);
#pragma GCC unroll 16
    for (int j = 0; j < L; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], q, c.p.l[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], q, c.p.l[j]);
    }
    if (i + 1 < L) {
      // t_0 is 0 mod 2^52 now: drop it, carrying its high bits into t_1.
      const __m512i carry = srli(t[0], 52);
#pragma GCC unroll 16
      for (int j = 0; j < L; ++j) t[j] = t[j + 1];
      t[0] = _mm512_add_epi64(t[0], carry);
      t[L] = zero;
    }
  }
  // The last step: t is 0 mod 2^S; divide by 2^S.
  V<L> r;
  if constexpr (S >= 48) {
    // Each t_j < 2^57 (at most 4L additions of < 2^52), so t_j·2^(52−S) fits in 64 bits.
#pragma GCC unroll 16
    for (int j = 0; j < L; ++j) r.l[j] = slli(t[j + 1], 52 - S);
    r.l[0] = _mm512_add_epi64(r.l[0], srli(t[0], S));
  } else {
    // Normalise to 52-bit limbs first, then realign by S bits.
    __m512i carry = zero;
#pragma GCC unroll 16
    for (int j = 0; j <= L; ++j) {
      const __m512i v = _mm512_add_epi64(t[j], carry);
      t[j] = j < L ? _mm512_and_si512(v, c.mask) : v;
      carry = srli(v, 52);
    }
#pragma GCC unroll 16
    for (int j = 0; j < L; ++j) r.l[j] = _mm512_or_si512(srli(t[j], S), _mm512_and_si512(slli(t[j + 1], 52 - S), c.mask));
  }
  return r;
}

// a·b·2^(−64N) mod p, below 2p when a·b < p·2^(64N); inputs have limbs < 2^52.
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> mul(const V<Shape<F>::L>& a, const V<Shape<F>::L>& b, const Consts<F>& c) {
  constexpr int L = Shape<F>::L;
  V<L> r = mul_lazy<F>(a, b, c);
  __m512i carry = _mm512_setzero_si512();
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) {
    const __m512i v = _mm512_add_epi64(r.l[j], carry);
    r.l[j] = _mm512_and_si512(v, c.mask);
    carry = srli(v, 52);
  }
  return r;
}

// Limbs that may be negative or above 2^52 (a signed sum of normalised values) carried
// into 52-bit limbs; the value must be non-negative.
template <int L>
CUZK_LANES_INLINE void carry_signed(V<L>& v, __m512i mask) {
#pragma GCC unroll 16
  for (int j = 0; j + 1 < L; ++j) {
    const __m512i carry = srai(v.l[j], 52);
    v.l[j] = _mm512_and_si512(v.l[j], mask);
    v.l[j + 1] = _mm512_add_epi64(v.l[j + 1], carry);
  }
}

// a + k − b for a constant k (a multiple of p that keeps the result non-negative).
template <int L>
CUZK_LANES_INLINE V<L> sub(const V<L>& a, const V<L>& b, const V<L>& k, __m512i mask) {
  V<L> r;
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) r.l[j] = _mm512_sub_epi64(_mm512_add_epi64(a.l[j], k.l[j]), b.l[j]);
  carry_signed(r, mask);
  return r;
}

// a + k − b − d.
template <int L>
CUZK_LANES_INLINE V<L> sub2(const V<L>& a, const V<L>& b, const V<L>& d, const V<L>& k, __m512i mask) {
  V<L> r;
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j)
    r.l[j] = _mm512_sub_epi64(_mm512_sub_epi64(_mm512_add_epi64(a.l[j], k.l[j]), b.l[j]), d.l[j]);
  carry_signed(r, mask);
  return r;
}

// v − k where v ≥ k, else v.
template <int L>
CUZK_LANES_INLINE V<L> reduce(const V<L>& v, const V<L>& k, __m512i mask) {
  V<L> t;
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) t.l[j] = _mm512_sub_epi64(v.l[j], k.l[j]);
  carry_signed(t, mask);
  const __mmask8 below = _mm512_cmplt_epi64_mask(t.l[L - 1], _mm512_setzero_si512());
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) t.l[j] = _mm512_mask_blend_epi64(below, t.l[j], v.l[j]);
  return t;
}

// Lane i of the result is the field element whose 64-bit limbs start at qword
// base + idx_i (lanes outside `live` get `fill`'s limbs), as 52-bit limbs.
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> gather(const F* base, __m512i idx, __mmask8 live, const F& fill,
                                        const Consts<F>& c) {
  constexpr int N = Shape<F>::N, L = Shape<F>::L;
  const auto* q = reinterpret_cast<const long long*>(base);
  __m512i a[N];
#pragma GCC unroll 16
  for (int i = 0; i < N; ++i) {
    const __m512i src = _mm512_set1_epi64(int64_t(fill.mont().limb[i]));
    a[i] = _mm512_mask_i64gather_epi64(src, live, _mm512_add_epi64(idx, _mm512_set1_epi64(i)), q, 8);
  }
  V<L> r;
#pragma GCC unroll 16
  for (int k = 0; k < L; ++k) {
    const int bit = 52 * k, lo = bit / 64, off = bit % 64;
    __m512i v = srli(a[lo], unsigned(off));
    if (off > 12 && lo + 1 < N) v = _mm512_or_si512(v, slli(a[lo + 1], unsigned(64 - off)));
    r.l[k] = _mm512_and_si512(v, c.mask);
  }
  return r;
}

// Writes canonical lanes (limbs < 2^52, value < p) back as 64-bit limbs at qword
// base + idx_i, for the lanes in `live`.
template <class F>
CUZK_LANES_INLINE void scatter(F* base, __m512i idx, __mmask8 live, const V<Shape<F>::L>& v) {
  constexpr int N = Shape<F>::N, L = Shape<F>::L;
  auto* q = reinterpret_cast<long long*>(base);
#pragma GCC unroll 16
  for (int i = 0; i < N; ++i) {
    const int bit = 64 * i, k = bit / 52, off = bit % 52;
    __m512i w = srli(v.l[k], unsigned(off));
    for (int have = 52 - off, m = k + 1; have < 64 && m < L; have += 52, ++m) w = _mm512_or_si512(w, slli(v.l[m], unsigned(have)));
    _mm512_mask_i64scatter_epi64(q, live, _mm512_add_epi64(idx, _mm512_set1_epi64(i)), w, 8);
  }
}

// Qword offsets of eight consecutive field elements.
template <class F>
CUZK_LANES_INLINE __m512i lane_offsets() {
  constexpr int64_t n = F::N;
  return _mm512_set_epi64(7 * n, 6 * n, 5 * n, 4 * n, 3 * n, 2 * n, n, 0);
}

// Lanes to scalar field elements (values < 2p made canonical).
template <class F>
CUZK_LANES_INLINE void to_scalar(const V<Shape<F>::L>& v, F out[8]) {
  constexpr int N = Shape<F>::N;
  alignas(64) F tmp[8];
  static_assert(sizeof(F) == 8 * N);
  scatter<F>(tmp, lane_offsets<F>(), 0xff, v);
  for (int i = 0; i < 8; ++i) {
    ff::BigInt<F::N> x = tmp[i].mont();
    if (!x.less_than(F::MODULUS)) x.sub_in_place(F::MODULUS);
    out[i] = F::from_mont(x);
  }
}


template <class F>
CUZK_LANES_INLINE void store(uint64_t* at, const V<Shape<F>::L>& v) {
#pragma GCC unroll 16
  for (int j = 0; j < Shape<F>::L; ++j) _mm512_storeu_si512(at + 8 * j, v.l[j]);
}

template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> load(const uint64_t* at) {
  V<Shape<F>::L> v;
#pragma GCC unroll 16
  for (int j = 0; j < Shape<F>::L; ++j) v.l[j] = _mm512_loadu_si512(at + 8 * j);
  return v;
}

template <int L>
CUZK_LANES_INLINE V<L> blend(__mmask8 take, const V<L>& keep, const V<L>& with) {
  V<L> r;
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) r.l[j] = _mm512_mask_blend_epi64(take, keep.l[j], with.l[j]);
  return r;
}

// Lanes whose value (< 2p) is 0 mod p.
template <class F>
CUZK_LANES_INLINE __mmask8 is_zero(const V<Shape<F>::L>& v, const Consts<F>& c) {
  const V<Shape<F>::L> r = reduce(v, c.p, c.mask);
  __m512i any = r.l[0];
#pragma GCC unroll 16
  for (int j = 1; j < Shape<F>::L; ++j) any = _mm512_or_si512(any, r.l[j]);
  return _mm512_cmpeq_epi64_mask(any, _mm512_setzero_si512());
}

// a + b for non-negative a, b, limbs carried back below 2^52.
template <int L>
CUZK_LANES_INLINE V<L> add(const V<L>& a, const V<L>& b, __m512i mask) {
  V<L> r;
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) r.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  carry_signed(r, mask);
  return r;
}

// x − k where x's top limb exceeds k's, else x: below k + 2^(52(L−1)) for normalised
// x < 2k + 2^(52(L−1)), with limbs left signed (for add or sub, which carry, or
// carry_signed).
template <int L>
CUZK_LANES_INLINE V<L> sub_if_above(const V<L>& x, const V<L>& k) {
  const __mmask8 above = _mm512_cmpgt_epu64_mask(x.l[L - 1], k.l[L - 1]);
  V<L> r;
#pragma GCC unroll 16
  for (int j = 0; j < L; ++j) r.l[j] = _mm512_mask_sub_epi64(x.l[j], above, x.l[j], k.l[j]);
  return r;
}

// ---- Eight consecutive elements of a 4-limb field by plain loads and in-register
// transposes (cheaper than four gathers); values must be below 2^256. ----

// z_r holds elements 2r and 2r+1, four 64-bit limbs each; returns them as 52-bit lanes.
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> from_pairs(const __m512i z[4], const Consts<F>& c) {
  static_assert(Shape<F>::N == 4 && Shape<F>::L == 5);
  const __m512i low = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);     // limbs 0, 1 of four elements
  const __m512i high = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);  // limbs 2, 3
  const __m512i lo01 = _mm512_permutex2var_epi64(z[0], low, z[1]), hi01 = _mm512_permutex2var_epi64(z[0], high, z[1]);
  const __m512i lo23 = _mm512_permutex2var_epi64(z[2], low, z[3]), hi23 = _mm512_permutex2var_epi64(z[2], high, z[3]);
  // Masked forms here and below: the plain ones draw an uninitialised-source warning too.
  const __m512i w0 = _mm512_maskz_shuffle_i64x2(0xff, lo01, lo23, 0x44);
  const __m512i w1 = _mm512_maskz_shuffle_i64x2(0xff, lo01, lo23, 0xee);
  const __m512i w2 = _mm512_maskz_shuffle_i64x2(0xff, hi01, hi23, 0x44);
  const __m512i w3 = _mm512_maskz_shuffle_i64x2(0xff, hi01, hi23, 0xee);
  constexpr int kOrAnd = 0xa8;  // (a | b) & c
  V<5> r;
  r.l[0] = _mm512_and_si512(w0, c.mask);
  r.l[1] = _mm512_ternarylogic_epi64(srli(w0, 52), slli(w1, 12), c.mask, kOrAnd);
  r.l[2] = _mm512_ternarylogic_epi64(srli(w1, 40), slli(w2, 24), c.mask, kOrAnd);
  r.l[3] = _mm512_ternarylogic_epi64(srli(w2, 28), slli(w3, 36), c.mask, kOrAnd);
  r.l[4] = srli(w3, 16);
  return r;
}

// The inverse of from_pairs, for lanes with limbs < 2^52 and values < 2^256.
template <class F>
CUZK_LANES_INLINE void to_pairs(const V<Shape<F>::L>& v, __m512i z[4]) {
  static_assert(Shape<F>::N == 4 && Shape<F>::L == 5);
  const __m512i w0 = _mm512_or_si512(v.l[0], slli(v.l[1], 52));
  const __m512i w1 = _mm512_or_si512(srli(v.l[1], 12), slli(v.l[2], 40));
  const __m512i w2 = _mm512_or_si512(srli(v.l[2], 24), slli(v.l[3], 28));
  const __m512i w3 = _mm512_or_si512(srli(v.l[3], 36), slli(v.l[4], 16));
  const __m512i lo01 = _mm512_maskz_shuffle_i64x2(0xff, w0, w1, 0x44);
  const __m512i lo23 = _mm512_maskz_shuffle_i64x2(0xff, w0, w1, 0xee);
  const __m512i hi01 = _mm512_maskz_shuffle_i64x2(0xff, w2, w3, 0x44);
  const __m512i hi23 = _mm512_maskz_shuffle_i64x2(0xff, w2, w3, 0xee);
  const __m512i first = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);  // element 2r's limbs, then 2r+1's
  const __m512i second = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
  z[0] = _mm512_permutex2var_epi64(lo01, first, hi01);
  z[1] = _mm512_permutex2var_epi64(lo01, second, hi01);
  z[2] = _mm512_permutex2var_epi64(lo23, first, hi23);
  z[3] = _mm512_permutex2var_epi64(lo23, second, hi23);
}

// at[0..7] as lanes.
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> load8(const F* at, const Consts<F>& c) {
  const auto* q = reinterpret_cast<const uint64_t*>(at);
  const __m512i z[4] = {_mm512_loadu_si512(q), _mm512_loadu_si512(q + 8), _mm512_loadu_si512(q + 16),
                        _mm512_loadu_si512(q + 24)};
  return from_pairs<F>(z, c);
}

// at[0], at[stride], ..., at[7·stride] as lanes (stride may be negative).
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> load8_strided(const F* at, ptrdiff_t stride, const Consts<F>& c) {
  __m512i z[4];
#pragma GCC unroll 4
  for (int r = 0; r < 4; ++r) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + 2 * r * stride));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + (2 * r + 1) * stride));
    z[r] = _mm512_maskz_inserti64x4(0xff, _mm512_castsi256_si512(a), b, 1);
  }
  return from_pairs<F>(z, c);
}

// Lanes (values < 2^256; canonical where F's code reads them) to at[0..7].
template <class F>
CUZK_LANES_INLINE void store8(F* at, const V<Shape<F>::L>& v) {
  __m512i z[4];
  to_pairs<F>(v, z);
  auto* q = reinterpret_cast<uint64_t*>(at);
#pragma GCC unroll 4
  for (int r = 0; r < 4; ++r) _mm512_storeu_si512(q + 8 * r, z[r]);
}

}  // namespace cuzk::ff::lanes52
