// Device fast paths for Fp<P> (ff/fp.hpp): Montgomery multiplication, squaring, addition
// and subtraction on 32-bit words with PTX carry chains. Included by ff/fp.hpp only when
// nvcc compiles device code; the host and constant evaluation keep the portable code.
//
// The GPU multiplies 32x32 bits natively (IMAD) and emulates every 64-bit product with
// several of them, so the 64-bit limbs are read here as twice as many 32-bit words (the same
// little-endian value). The results are fully reduced (< p), exactly what the portable code
// returns, so device and host stay bit-identical.
//
// Products are accumulated in two word arrays, `even` and `odd`: row i adds a[j]*b[i] into
// `even` for even j and into `odd` (one word higher) for odd j, so each array takes an
// uninterrupted chain of mad.lo.cc/madc.hi.cc pairs with no carry word between the pairs.
// A Montgomery step then shifts the accumulator down one word, which swaps the two arrays'
// roles: the old `odd` array is now word-aligned, the old `even` array one word off.
//
// Requirements (asserted by Fp): p odd, p < 2^(64N - 1) (a spare top bit), so every
// intermediate sum below fits its words and the result of the interleaved product is < 2p.
//
// The host model (CUZK_FP_CUDA_HOST_MODEL, tests/ff/fp_cuda_model_test.cpp): the same code
// compiled for the host, each PTX instruction below replaced by C++ with an explicit carry
// flag, so that CI (no GPU) checks these algorithms' carry chains against the host field.
#pragma once

#include <cstddef>
#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <cstdio>
#include <cstdlib>
#endif

#include "ff/bigint.hpp"

#if defined(__CUDA_ARCH__) && defined(CUZK_CUDA_CHECK_ONLY)
#define CUZK_FP_CUDA_FN __device__ inline  // a build only to check (core/hd.hpp)
#elif defined(__CUDA_ARCH__)
#define CUZK_FP_CUDA_FN __device__ __forceinline__
#elif defined(CUZK_FP_CUDA_HOST_MODEL)
#define CUZK_FP_CUDA_FN inline
#else
#error "ff/fp_cuda.hpp is device code: include ff/fp.hpp instead"
#endif

namespace cuzk::ff::cuda_fp {

#if defined(__CUDA_ARCH__)
// One PTX instruction each. The condition code (CC.CF) lives between consecutive calls: the
// volatile statements keep their order, and nothing nvcc emits between them touches CC.
#define CUZK_FP_CUDA_OP(name, insn)                               \
  CUZK_FP_CUDA_FN uint32_t name(uint32_t a, uint32_t b) {         \
    uint32_t r;                                                   \
    asm volatile(insn " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); \
    return r;                                                     \
  }
#define CUZK_FP_CUDA_MAD(name, insn)                                          \
  CUZK_FP_CUDA_FN uint32_t name(uint32_t a, uint32_t b, uint32_t c) {         \
    uint32_t r;                                                               \
    asm volatile(insn " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); \
    return r;                                                                 \
  }
CUZK_FP_CUDA_OP(add_cc, "add.cc.u32")
CUZK_FP_CUDA_OP(addc_cc, "addc.cc.u32")
CUZK_FP_CUDA_OP(addc, "addc.u32")
CUZK_FP_CUDA_OP(sub_cc, "sub.cc.u32")
CUZK_FP_CUDA_OP(subc_cc, "subc.cc.u32")
CUZK_FP_CUDA_OP(subc, "subc.u32")
CUZK_FP_CUDA_MAD(mad_lo_cc, "mad.lo.cc.u32")
CUZK_FP_CUDA_MAD(madc_lo_cc, "madc.lo.cc.u32")
CUZK_FP_CUDA_MAD(madc_hi_cc, "madc.hi.cc.u32")
CUZK_FP_CUDA_MAD(madc_hi, "madc.hi.u32")
#undef CUZK_FP_CUDA_OP
#undef CUZK_FP_CUDA_MAD

CUZK_FP_CUDA_FN uint32_t umulhi(uint32_t a, uint32_t b) { return __umulhi(a, b); }

// One word of a carry chain (add.cc when first, addc when last, else addc.cc) that runs only
// where mask != 0: the chain's every word takes the same mask, so the carry stays consistent.
// setp writes no CC.
CUZK_FP_CUDA_FN uint32_t add_cc_if(uint32_t a, uint32_t b, uint32_t mask, bool first, bool last) {
  if (first) {
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; @q add.cc.u32 %0, %0, %2; }" : "+r"(a) : "r"(mask), "r"(b));
  } else if (last) {
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; @q addc.u32 %0, %0, %2; }" : "+r"(a) : "r"(mask), "r"(b));
  } else {
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; @q addc.cc.u32 %0, %0, %2; }" : "+r"(a) : "r"(mask), "r"(b));
  }
  return a;
}
#else
// The host model: PTX's semantics with CC.CF as a variable. `.cc` writes it; `c` (addc,
// subc, madc) reads it: a carry for additions, a borrow for subtractions (a - b - CF).
// A carry read as a borrow, or a borrow as a carry, stops the model: PTX documents sub.cc's
// CC.CF as the borrow, but ptxas hands it to a following addc as the machine's carry flag,
// the borrow's complement (seen in the sm_90 code of nvcc 13.0), so such a chain would
// compute one thing here and another on the device.
inline thread_local uint32_t model_cf = 0;
inline thread_local bool model_cf_borrow = false;  // the last writer was a subtraction

inline void model_read_cf(bool borrow) {
  if (model_cf_borrow != borrow) {
    std::fputs(borrow ? "fp_cuda model: a carry read as a borrow\n" : "fp_cuda model: a borrow read as a carry\n",
               stderr);
    std::abort();
  }
}
inline uint32_t model_add(uint64_t sum, bool write) {
  if (write) {
    model_cf = uint32_t(sum >> 32);
    model_cf_borrow = false;
  }
  return uint32_t(sum);
}
inline uint32_t model_sub(uint32_t a, uint32_t b, uint32_t borrow, bool write) {
  const uint64_t d = uint64_t(a) - b - borrow;
  if (write) {
    model_cf = uint32_t(d >> 63);  // 1 when it borrowed
    model_cf_borrow = true;
  }
  return uint32_t(d);
}
inline uint32_t model_carry() {
  model_read_cf(false);
  return model_cf;
}
inline uint32_t model_borrow() {
  model_read_cf(true);
  return model_cf;
}
inline uint64_t model_mul(uint32_t a, uint32_t b) { return uint64_t(a) * b; }

inline uint32_t add_cc(uint32_t a, uint32_t b) { return model_add(uint64_t(a) + b, true); }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { return model_add(uint64_t(a) + b + model_carry(), true); }
inline uint32_t addc(uint32_t a, uint32_t b) { return model_add(uint64_t(a) + b + model_carry(), false); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) { return model_sub(a, b, 0, true); }
inline uint32_t subc_cc(uint32_t a, uint32_t b) { return model_sub(a, b, model_borrow(), true); }
inline uint32_t subc(uint32_t a, uint32_t b) { return model_sub(a, b, model_borrow(), false); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  return model_add(uint64_t(uint32_t(model_mul(a, b))) + c, true);
}
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  return model_add(uint64_t(uint32_t(model_mul(a, b))) + c + model_carry(), true);
}
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  return model_add((model_mul(a, b) >> 32) + c + model_carry(), true);
}
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
  return model_add((model_mul(a, b) >> 32) + c + model_carry(), false);
}
inline uint32_t umulhi(uint32_t a, uint32_t b) { return uint32_t(model_mul(a, b) >> 32); }
// A predicated instruction that does not run leaves CC as it was.
inline uint32_t add_cc_if(uint32_t a, uint32_t b, uint32_t mask, bool first, bool last) {
  if (mask == 0) return a;
  if (first) return add_cc(a, b);
  return last ? addc(a, b) : addc_cc(a, b);
}
#endif

// Word j (32 bits) of a multi-limb integer; constant-folded for constant x and j.
template <size_t N>
CUZK_FP_CUDA_FN constexpr uint32_t word(const BigInt<N>& x, size_t j) {
  return uint32_t(x.limb[j / 2] >> (32 * (j % 2)));
}

// Word j of K·p, K = 1 or 2 (every field here has a spare bit, so 2p fits the words).
template <class P, unsigned K>
CUZK_FP_CUDA_FN constexpr uint32_t multiple_word(size_t j) {
  static_assert(K == 1 || K == 2);
  constexpr BigInt<P::N> p = P::MODULUS;
  if constexpr (K == 1) return word(p, j);
  return (word(p, j) << 1) | (j == 0 ? 0u : word(p, j - 1) >> 31);
}

template <size_t N>
CUZK_FP_CUDA_FN void to_words(const BigInt<N>& x, uint32_t* w) {
#pragma unroll
  for (size_t i = 0; i < N; ++i) {
    w[2 * i] = uint32_t(x.limb[i]);
    w[2 * i + 1] = uint32_t(x.limb[i] >> 32);
  }
}

template <size_t N>
CUZK_FP_CUDA_FN BigInt<N> from_words(const uint32_t* w) {
  BigInt<N> x;
#pragma unroll
  for (size_t i = 0; i < N; ++i) x.limb[i] = (uint64_t(w[2 * i + 1]) << 32) | w[2 * i];
  return x;
}

// acc[j..j+1] = a[j] * b for j = 0, 2, ..., n-2 (no carries involved).
template <size_t n>
CUZK_FP_CUDA_FN void mul_pairs(uint32_t* acc, const uint32_t* a, uint32_t b) {
#pragma unroll
  for (size_t j = 0; j < n; j += 2) {
    acc[j] = a[j] * b;
    acc[j + 1] = umulhi(a[j], b);
  }
}

// acc[j0..n) += a[j] * b for j = j0, j0 + 2, ..., n-2, one carry chain that continues the
// one in CC (kContinue) or starts; leaves the carry out of acc[n-1] in CC.
template <size_t n, size_t j0, bool kContinue>
CUZK_FP_CUDA_FN void mad_pairs_from_cc(uint32_t* acc, const uint32_t* a, uint32_t b) {
  static_assert(j0 % 2 == 0 && j0 < n);
  acc[j0] = kContinue ? madc_lo_cc(a[j0], b, acc[j0]) : mad_lo_cc(a[j0], b, acc[j0]);
  acc[j0 + 1] = madc_hi_cc(a[j0], b, acc[j0 + 1]);
#pragma unroll
  for (size_t j = j0 + 2; j < n; j += 2) {
    acc[j] = madc_lo_cc(a[j], b, acc[j]);
    acc[j + 1] = madc_hi_cc(a[j], b, acc[j + 1]);
  }
}

// acc[0..n) += a[j] * b for j = 0, 2, ..., n-2, one carry chain; leaves the carry out of
// acc[n-1] in CC for the caller's next instruction.
template <size_t n>
CUZK_FP_CUDA_FN void mad_pairs_cc(uint32_t* acc, const uint32_t* a, uint32_t b) {
  mad_pairs_from_cc<n, 0, false>(acc, a, b);
}

// acc[j..j+1] = acc[j+2..j+3] + a[j] * b for j = j0, j0 + 2, ..., n-2 (acc[n..n+1] read as 0),
// continuing the carry chain in CC: the odd array's words moved down one Montgomery step
// (two places) while its next products go in. The last word takes no carry out.
template <size_t n, size_t j0>
CUZK_FP_CUDA_FN void madc_pairs_shift_down(uint32_t* acc, const uint32_t* a, uint32_t b) {
  static_assert(j0 % 2 == 0 && j0 + 2 <= n);
#pragma unroll
  for (size_t j = j0; j + 2 < n; j += 2) {
    acc[j] = madc_lo_cc(a[j], b, acc[j + 2]);
    acc[j + 1] = madc_hi_cc(a[j], b, acc[j + 3]);
  }
  acc[n - 2] = madc_lo_cc(a[n - 2], b, 0);
  acc[n - 1] = madc_hi(a[n - 2], b, 0);
}

constexpr uint32_t neg_inv32(uint32_t p0) {
  uint32_t inv = 1;
  for (int i = 0; i < 5; ++i) inv *= 2 - p0 * inv;
  return 0u - inv;
}

// Montgomery constants in 32-bit words.
template <class P>
struct Modulus {
  static constexpr size_t n = 2 * P::N;
  static constexpr uint32_t M0 = neg_inv32(uint32_t(P::MODULUS.limb[0]));  // -p^-1 mod 2^32
};

// CUZK_FP_CUDA_SPARSE_LOW: where p = 2^64 - 2^32 + 1 mod 2^64 (p's words 0 and 1 are 1 and
// 2^32 - 1, so M0 = 2^32 - 1 and m = -t; of the fields here only BLS12-381's Fr), a
// Montgomery step's multiplications that these words make trivial are left out.
//   1 (default): the whole step (sparse_low_step, redc_sparse_low_step): m = -t, and m·p's two
//      low words as carry-chain additions; 3 of a row's 17 multiplications fewer, for more
//      additions.
//   0: every step as for the other fields (montgomery_m's opaque M0).
// Static counts (scripts/sass-stats.sh, nvcc 13.0, sm_90) of BLS12-381's NTT pass kernel (in
// place), 0 -> 1: 5462 -> 5624 instructions, multiplications (IMAD, .WIDE, .HI) 2610 -> 2226,
// IADD3 1516 -> 1816, spills 0 -> 8 B. The passes are bound by the multiply pipe: on an H100,
// same call (BENCHMARKS.md "Karatsuba level 1, BN254's quads and BLS12-381 Fr's sparse low
// words on"), BLS12-381's forward NTT at 2^27 35.15 -> 33.66 ms. Only m = -t, with the word
// products as for 0, ran 35.08: dropped.
#ifndef CUZK_FP_CUDA_SPARSE_LOW
#define CUZK_FP_CUDA_SPARSE_LOW 1
#endif
template <class P>
constexpr bool kSparseLowField = 2 * P::N >= 4 && P::MODULUS.limb[0] == 0xffffffff00000001ull;
template <class P>
constexpr bool kSparseLow = CUZK_FP_CUDA_SPARSE_LOW != 0 && kSparseLowField<P>;

// 0 for sparse_m_h. On the device it comes from constant memory: a literal 0 would show
// ptxas m = -t, and it splits the step's word products as montgomery_m explains.
CUZK_FP_CUDA_FN uint32_t opaque_zero() {
#if defined(__CUDA_ARCH__)
  return kOpaqueZero;  // declared in ff/fp.hpp
#else
  return 0;
#endif
}

// Where p = 1 mod 2^32 (M0 = 2^32 - 1; of the fields here only BLS12-381's Fr), ptxas compiles
// a Montgomery step's m = t·M0 as a negation and then splits each of its word products m·p[j]
// into two instructions (IMAD.X + IMAD.HI.U32.X) instead of one IMAD.WIDE.U32.X: 25% more
// instructions a product than BN254's. So such a field reads M0 from constant memory, opaque
// to ptxas, and its product compiles to BN254's instruction mix (BENCHMARKS.md, "BLS12-381's Fr
// product" for the counts, "Three device-code variants timed" for the time); other fields
// are unaffected.
// m = t·M0 for the accumulator's low word t: the multiple of p that clears that word.
template <class P>
CUZK_FP_CUDA_FN uint32_t montgomery_m(uint32_t t) {
#if defined(__CUDA_ARCH__)
  if constexpr (Modulus<P>::M0 == 0xffffffffu) return t * kOpaqueM0;  // declared in ff/fp.hpp
#endif
  return t * Modulus<P>::M0;
}

// The two values a kSparseLow step takes from its low word t without a multiplication:
// m = -t and h = m - (t != 0), the high word of m·(2^32 - 1) (whose low word is t). One
// subtraction chain, 0 - t borrowing exactly when t != 0, with 0 opaque (opaque_zero). CC is
// left to the caller's next chain: its borrow is never read as a carry (see the host model).
CUZK_FP_CUDA_FN void sparse_m_h(uint32_t t, uint32_t& m, uint32_t& h) {
  m = sub_cc(opaque_zero(), t);
  h = subc(m, 0);
}

// CC.CF = (t != 0) as an addition's carry (t + 2^32 - 1 carries exactly then): the carry out
// of t + m into word 1 for m = -t.
CUZK_FP_CUDA_FN void carry_if_nonzero(uint32_t t) { add_cc(t, 0xffffffffu); }

// p's even words at p_even[0, 2, ...], its odd words at p_odd[0, 2, ...]: the layout that
// mad_pairs_cc reads (immediates after unrolling).
template <class P>
CUZK_FP_CUDA_FN void modulus_words(uint32_t* p_even, uint32_t* p_odd) {
  constexpr BigInt<P::N> p = P::MODULUS;
#pragma unroll
  for (size_t j = 0; j < 2 * P::N; ++j) {
    if (j % 2 == 0) {
      p_even[j] = word(p, j);
    } else {
      p_odd[j - 1] = word(p, j);
    }
  }
}

// mul_row's Montgomery step where kSparseLow<P>, with no carry pending in CC: T = E + O*2^32,
// its low word t = E[0], plus m·p for m = -t (M0 = 2^32 - 1), with p's two low words added
// as carry-chain words instead of products.
//   Word 0 of p is 1: t + m = c*2^32 for c = (t != 0), so word 0 clears and c carries into
//     word 1.
//   Word 1 of p is 2^32 - 1: m*(2^32 - 1) = m*2^32 - m has low word t (2^32 - m, or 0 when
//     m = 0) and high word h = m - c (0 when m = 0).
// So the odd chain (word 1 up) starts with O[0] + t + c (c its carry in) and O[1] + h, and
// the even chain starts at word 2 (E[1] takes nothing). As in mul_row the odd chain's carry
// out is zero (O's part of the sum never exceeds the accumulator, E's part being
// nonnegative), and the caller adds the even chain's to O[n-1].
template <class P>
CUZK_FP_CUDA_FN void sparse_low_step(uint32_t* E, uint32_t* O, const uint32_t* p_even, const uint32_t* p_odd) {
  constexpr size_t n = Modulus<P>::n;
  const uint32_t t = E[0];
  uint32_t m, h;
  sparse_m_h(t, m, h);
  carry_if_nonzero(t);
  O[0] = addc_cc(O[0], t);  // + t + c
  O[1] = addc_cc(O[1], h);
  mad_pairs_from_cc<n, 2, true>(O, p_odd, m);
  E[0] = 0;  // t + m mod 2^32 (not read again)
  mad_pairs_from_cc<n, 2, false>(E, p_even, m);
}

// One row of the interleaved product for word b of the multiplier, then one Montgomery
// step. On entry T = E + O*2^32 with E[0] already folded (see below); on exit E[0] == 0 and
// T/2^32 = O + E[1..n) is carried in the roles swapped for the next row.
//
// first: E and O are empty. Otherwise E is the previous row's O (word-aligned now) and O
// the previous row's E, whose word 1 is folded into E[0] here and whose words 2.. shift
// down two places while the odd products are added.
template <class P, bool kFirst>
CUZK_FP_CUDA_FN void mul_row(uint32_t* E, uint32_t* O, const uint32_t* a, uint32_t b) {
  constexpr size_t n = Modulus<P>::n;
  if constexpr (kFirst) {
    mul_pairs<n>(E, a, b);
    mul_pairs<n>(O, a + 1, b);
  } else {
    E[0] = add_cc(E[0], O[1]);
    madc_pairs_shift_down<n, 0>(O, a + 1, b);
    mad_pairs_cc<n>(E, a, b);
    O[n - 1] = addc(O[n - 1], 0);
  }
  uint32_t p_even[n], p_odd[n - 1];
  modulus_words<P>(p_even, p_odd);
  if constexpr (kSparseLow<P>) {
    sparse_low_step<P>(E, O, p_even, p_odd);
  } else {
    // m makes the accumulator divisible by 2^32; E[0] is the accumulator's whole low word.
    const uint32_t m = montgomery_m<P>(E[0]);
    // The odd chain's carry out is zero: O alone never exceeds the accumulator, < 2^(32(n+1)).
    mad_pairs_cc<n>(O, p_odd, m);
    mad_pairs_cc<n>(E, p_even, m);
  }
  O[n - 1] = addc(O[n - 1], 0);
}

// r = x - p if that does not borrow, else x (x < 2p).
template <class P>
CUZK_FP_CUDA_FN void final_sub(uint32_t* r) {
  constexpr size_t n = Modulus<P>::n;
  constexpr BigInt<P::N> p = P::MODULUS;
  uint32_t t[n];
  t[0] = sub_cc(r[0], word(p, 0));
#pragma unroll
  for (size_t j = 1; j < n; ++j) t[j] = subc_cc(r[j], word(p, j));
  const uint32_t borrow = subc(0, 0);
#pragma unroll
  for (size_t j = 0; j < n; ++j) r[j] = borrow ? r[j] : t[j];
}

// The interleaved product's words before the final subtraction: x y 2^(-64N) mod p plus 0
// or p, below x y 2^(-64N) + p, for x + p < 2^(64N) and any y of the words (the accumulator,
// n words and a carry the words drop, stays below x + p: after row i it is (x (y mod
// 2^(32(i+1))) + M p) / 2^(32(i+1)) with M < 2^(32(i+1))). Below 2p where x y < p 2^(64N): x < 4p
// and y < p where 5p < 2^(64N), or x < p and y < 2p (every field here: 2p < 2^(64N)).
template <class P>
CUZK_FP_CUDA_FN void mont_mul_words(const BigInt<P::N>& x, const BigInt<P::N>& y, uint32_t* X);

// a * b * 2^(-64N) mod p, fully reduced.
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> mont_mul(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t X[n];
  mont_mul_words<P>(x, y, X);
  final_sub<P>(X);
  return from_words<P::N>(X);
}

// Lazy reduction, where values may lie in [0, 2p) between steps (Harvey's NTT butterflies;
// ntt_pass.hpp): x y 2^(-64N) mod p in [0, 2p), for y < p and x < 4p where 5p < 2^(64N)
// (kLazyProducts, BN254's Fr; for BLS12-381's Fr x < 1.2p only), or for x < p and y < 2p in
// every field here (the lazy operand second).
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> mont_mul_lazy(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t X[n];
  mont_mul_words<P>(x, y, X);
  return from_words<P::N>(X);
}

template <class P>
CUZK_FP_CUDA_FN void mont_mul_words(const BigInt<P::N>& x, const BigInt<P::N>& y, uint32_t* X) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n], b[n];
  to_words(x, a);
  to_words(y, b);
  uint32_t Y[n];
  mul_row<P, true>(X, Y, a, b[0]);
  mul_row<P, false>(Y, X, a, b[1]);
#pragma unroll
  for (size_t i = 2; i < n; i += 2) {
    mul_row<P, false>(X, Y, a, b[i]);
    mul_row<P, false>(Y, X, a, b[i + 1]);
  }
  // The last (odd) row left E = Y, its low word zero, and O = X: the result is X + Y[1..n).
  X[0] = add_cc(X[0], Y[1]);
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) X[j] = addc_cc(X[j], Y[j + 1]);
  X[n - 1] = addc(X[n - 1], 0);
}

// One step of redc_wide where kSparseLow<P> (m = -t and p's two low words without products,
// as sparse_low_step), in the roles of redc_wide's E and O. O's words 1 and 2 take t and h,
// and the carry c = (t != 0) out of word 0 goes to E[1], ahead of the even chain from word 2:
// the odd chain may carry the fold's carry instead.
//   first: E is W's low half and O empty: O[0] = t, O[1] = h, no carries.
//   Otherwise word 0 is E[0] + O[1], whose carry (the fold) goes into the odd chain at word 1
//     as in redc_wide. CC holds one carry, so t, m and h come from that sum taken once more
//     without it, before the fold.
template <class P>
CUZK_FP_CUDA_FN void redc_sparse_low_step(uint32_t* E, uint32_t* O, const uint32_t* p_even, const uint32_t* p_odd,
                                          bool first) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t t, m, h;
  if (first) {
    t = E[0];
    sparse_m_h(t, m, h);
    O[0] = t;
    O[1] = h;
#pragma unroll
    for (size_t j = 2; j < n; j += 2) {
      O[j] = p_odd[j] * m;
      O[j + 1] = umulhi(p_odd[j], m);
    }
  } else {
    t = E[0] + O[1];
    sparse_m_h(t, m, h);
    E[0] = add_cc(E[0], O[1]);  // t; CC.CF = the fold's carry, into word 1
    O[0] = addc_cc(O[2], t);
    O[1] = addc_cc(O[3], h);
    madc_pairs_shift_down<n, 2>(O, p_odd, m);
  }
  carry_if_nonzero(t);
  E[0] = 0;  // t + m mod 2^32 (not read again)
  E[1] = addc_cc(E[1], 0);
  mad_pairs_from_cc<n, 2, true>(E, p_even, m);
  O[n - 1] = addc(O[n - 1], 0);
}

// REDC(W) = W * 2^(-64N) mod p, fully reduced, for a 2n-word W < p * 2^(64N): the low half
// reduced with two arrays as in mont_mul (the shift folded into the odd chain), then the
// high half added. REDC(W_lo) <= p and W_hi < p, so one final subtraction suffices.
// kLazy: without it, in [0, 2p) (below W 2^(-64N) + p).
template <class P, bool kLazy = false>
CUZK_FP_CUDA_FN BigInt<P::N> redc_wide(const uint32_t* W) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t p_even[n], p_odd[n - 1];
  modulus_words<P>(p_even, p_odd);
  uint32_t X[n], Y[n];
#pragma unroll
  for (size_t j = 0; j < n; ++j) X[j] = W[j];
#pragma unroll
  for (size_t k = 0; k < n; ++k) {
    uint32_t* E = (k % 2 == 0) ? X : Y;
    uint32_t* O = (k % 2 == 0) ? Y : X;
    if constexpr (kSparseLow<P>) {
      redc_sparse_low_step<P>(E, O, p_even, p_odd, k == 0);
    } else {
      uint32_t m;
      if (k == 0) {
        m = montgomery_m<P>(E[0]);
        mul_pairs<n>(O, p_odd, m);
      } else {
        E[0] = add_cc(E[0], O[1]);
        m = montgomery_m<P>(E[0]);
        madc_pairs_shift_down<n, 0>(O, p_odd, m);
      }
      mad_pairs_cc<n>(E, p_even, m);
      O[n - 1] = addc(O[n - 1], 0);
    }
  }
  // The last (odd) step left E = Y and O = X.
  X[0] = add_cc(X[0], Y[1]);
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) X[j] = addc_cc(X[j], Y[j + 1]);
  X[n - 1] = addc(X[n - 1], 0);
  X[0] = add_cc(X[0], W[n]);
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) X[j] = addc_cc(X[j], W[n + j]);
  X[n - 1] = addc(X[n - 1], W[2 * n - 1]);
  if constexpr (!kLazy) final_sub<P>(X);
  return from_words<P::N>(X);
}

// W = a * b (2n words), schoolbook. Row i's products a[j]*b[i] form two chains, even j
// and odd j, each a pair of words at position i+j kept (like mont_sqr's) in EV when the
// position is even and in OD when odd; the odd-j chain ends in two fresh words, which take
// the even-j chain's carry.
template <size_t n>
CUZK_FP_CUDA_FN void mul_wide(const uint32_t* a, const uint32_t* b, uint32_t* W) {
  uint32_t EV[2 * n], OD[2 * n];
#pragma unroll
  for (size_t j = 0; j < n; ++j) {
    uint32_t* w = (j % 2 == 0) ? EV : OD;
    w[j] = a[j] * b[0];
    w[j + 1] = umulhi(a[j], b[0]);
  }
#pragma unroll
  for (size_t i = 1; i < n; ++i) {
    uint32_t* top = ((i + 1) % 2 == 0) ? EV : OD;  // odd j
    uint32_t* other = (i % 2 == 0) ? EV : OD;      // even j
    top[i + 1] = mad_lo_cc(a[1], b[i], top[i + 1]);
    top[i + 2] = madc_hi_cc(a[1], b[i], top[i + 2]);
#pragma unroll
    for (size_t j = 3; j + 2 < n; j += 2) {
      top[i + j] = madc_lo_cc(a[j], b[i], top[i + j]);
      top[i + j + 1] = madc_hi_cc(a[j], b[i], top[i + j + 1]);
    }
    top[i + n - 1] = madc_lo_cc(a[n - 1], b[i], 0);
    top[i + n] = madc_hi(a[n - 1], b[i], 0);
    other[i] = mad_lo_cc(a[0], b[i], other[i]);
    other[i + 1] = madc_hi_cc(a[0], b[i], other[i + 1]);
#pragma unroll
    for (size_t j = 2; j + 1 < n; j += 2) {
      other[i + j] = madc_lo_cc(a[j], b[i], other[i + j]);
      other[i + j + 1] = madc_hi_cc(a[j], b[i], other[i + j + 1]);
    }
    top[i + n] = addc(top[i + n], 0);
  }
  // EV spans words 0..2n-1, OD words 1..2n-2.
  W[0] = EV[0];
  W[1] = add_cc(EV[1], OD[1]);
#pragma unroll
  for (size_t q = 2; q + 2 < 2 * n; ++q) W[q] = addc_cc(EV[q], OD[q]);
  W[2 * n - 2] = addc_cc(EV[2 * n - 2], OD[2 * n - 2]);
  W[2 * n - 1] = addc(EV[2 * n - 1], 0);
}

// W -= T over 2n words, plus p·2^(64N) when that borrowed (mont_mul_sub's difference of two
// products, each below p·2^(64N)).
template <class P>
CUZK_FP_CUDA_FN void sub_wide_mod(uint32_t* W, const uint32_t* T) {
  constexpr size_t n = Modulus<P>::n;
  constexpr BigInt<P::N> p = P::MODULUS;
  W[0] = sub_cc(W[0], T[0]);
#pragma unroll
  for (size_t q = 1; q < 2 * n; ++q) W[q] = subc_cc(W[q], T[q]);
  const uint32_t mask = subc(0, 0);
  W[n] = add_cc(W[n], word(p, 0) & mask);
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) W[n + j] = addc_cc(W[n + j], word(p, j) & mask);
  W[2 * n - 1] = addc(W[2 * n - 1], word(p, n - 1) & mask);
}

// (x y - u v) * 2^(-64N) mod p, fully reduced, with one reduction instead of two:
// W = x y - u v, plus p·2^(64N) when that is negative, lies in [0, p·2^(64N)) (both
// products are below p^2). XYZZ's Y3 = R·(Q - X3) - Y1·PPP takes it: on the H200 the
// BLS12-381 G1 mixed addition ran 6.6% faster, BN254's 4.4% (cuda_arith_bench).
// kLazy: operands and result in [0, 2p) (both products below 4p^2 < p·2^(64N) where
// 4p < 2^(64N), so W stays in [0, p·2^(64N)) and REDC(W) < 4p^2 2^(-64N) + p < 2p where
// 8p < 2^(64N)).
// Wide: the 2n-word product wide(a, b, W) (mul_wide, or ff/fp_cuda_karatsuba.hpp's).
template <class P, bool kLazy = false, class Wide>
CUZK_FP_CUDA_FN BigInt<P::N> mont_mul_sub_by(const BigInt<P::N>& x, const BigInt<P::N>& y, const BigInt<P::N>& u,
                                             const BigInt<P::N>& v, Wide wide) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n], b[n], W[2 * n], T[2 * n];
  to_words(x, a);
  to_words(y, b);
  wide(a, b, W);
  to_words(u, a);
  to_words(v, b);
  wide(a, b, T);
  sub_wide_mod<P>(W, T);
  return redc_wide<P, kLazy>(W);
}
template <class P, bool kLazy = false>
CUZK_FP_CUDA_FN BigInt<P::N> mont_mul_sub(const BigInt<P::N>& x, const BigInt<P::N>& y, const BigInt<P::N>& u,
                                          const BigInt<P::N>& v) {
  return mont_mul_sub_by<P, kLazy>(
      x, y, u, v, [](const uint32_t* a, const uint32_t* b, uint32_t* W) { mul_wide<Modulus<P>::n>(a, b, W); });
}

// (a0 + a1 u)(b0 + b1 u) in Fp[u]/(u^2 + 1), Karatsuba on unreduced products with two
// reductions instead of three: c0 = REDC(a0 b0 - a1 b1 (+ p 2^(64N) if negative)),
// c1 = REDC((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) = REDC(a0 b1 + a1 b0). The sums are not
// reduced (< 2p), so the products are exact: every REDC input is < p 2^(64N) (needs 4p <
// 2^(64N), which the spare bit gives).
//
// kLazy (kLazyFp2<P>): inputs and outputs in [0, 2p), no final subtractions. The sums are
// below 4p, c1's REDC input a0 b1 + a1 b0 < 8p^2 < p 2^(64N) and c0's below p 2^(64N) as
// before, so each output is below 8p^2 2^(-64N) + p < 2p.
template <class P>
constexpr bool kLazyFp2 = P::MODULUS.limb[P::N - 1] < 0x1fffffffffffffffull;  // 8p < 2^(64N)

template <class P, bool kLazy = false>
CUZK_FP_CUDA_FN void fp2_mul(const BigInt<P::N>& x0, const BigInt<P::N>& x1, const BigInt<P::N>& y0,
                             const BigInt<P::N>& y1, BigInt<P::N>& z0, BigInt<P::N>& z1) {
  static_assert(!kLazy || kLazyFp2<P>, "lazy Fp2 products need 8p < 2^(64N)");
  constexpr size_t n = Modulus<P>::n;
  constexpr BigInt<P::N> p = P::MODULUS;
  uint32_t a0[n], a1[n], b0[n], b1[n], sa[n], sb[n];
  to_words(x0, a0);
  to_words(x1, a1);
  to_words(y0, b0);
  to_words(y1, b1);
  sa[0] = add_cc(a0[0], a1[0]);
#pragma unroll
  for (size_t j = 1; j < n; ++j) sa[j] = addc_cc(a0[j], a1[j]);
  sb[0] = add_cc(b0[0], b1[0]);
#pragma unroll
  for (size_t j = 1; j < n; ++j) sb[j] = addc_cc(b0[j], b1[j]);
  uint32_t t0[2 * n], t1[2 * n], t2[2 * n];
  mul_wide<n>(a0, b0, t0);
  mul_wide<n>(a1, b1, t1);
  mul_wide<n>(sa, sb, t2);
  // t2 -= t0 + t1 (exact, never negative)
  t2[0] = sub_cc(t2[0], t0[0]);
#pragma unroll
  for (size_t q = 1; q < 2 * n; ++q) t2[q] = subc_cc(t2[q], t0[q]);
  t2[0] = sub_cc(t2[0], t1[0]);
#pragma unroll
  for (size_t q = 1; q < 2 * n; ++q) t2[q] = subc_cc(t2[q], t1[q]);
  z1 = redc_wide<P, kLazy>(t2);
  // t0 -= t1, plus p in the high half when that borrowed.
  t0[0] = sub_cc(t0[0], t1[0]);
#pragma unroll
  for (size_t q = 1; q < 2 * n; ++q) t0[q] = subc_cc(t0[q], t1[q]);
  const uint32_t mask = subc(0, 0);
  t0[n] = add_cc(t0[n], word(p, 0) & mask);
#pragma unroll
  for (size_t j = 1; j < n; ++j) t0[n + j] = addc_cc(t0[n + j], word(p, j) & mask);
  z0 = redc_wide<P, kLazy>(t0);
}

// x^2 * 2^(-64N) mod p, fully reduced: the cross products once, doubled, plus the squares
// (about a third fewer multiplications than mont_mul), then a separate Montgomery reduction.
// kLazy: x and the result in [0, 2p), where 8p < 2^(64N) (x^2 < 4p^2 < p·2^(64N)).
template <class P, bool kLazy = false>
CUZK_FP_CUDA_FN BigInt<P::N> mont_sqr(const BigInt<P::N>& x) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n];
  to_words(x, a);

  // Cross products a[i]*a[j], i < j, each a pair of words at position q = i+j: in EV when q
  // is even, in OD when odd (both indexed by position). Row i's products with odd j form
  // one chain, those with even j another; the odd-j chain ends in two words no earlier row
  // touched, and the even-j chain's carry lands in the odd-j chain's top word.
  uint32_t EV[2 * n], OD[2 * n];
#pragma unroll
  for (size_t j = 1; j < n; ++j) {
    uint32_t* w = (j % 2 == 0) ? EV : OD;
    w[j] = a[0] * a[j];
    w[j + 1] = umulhi(a[0], a[j]);
  }
#pragma unroll
  for (size_t i = 1; i + 1 < n; ++i) {
    uint32_t* top = ((i + 1) % 2 == 0) ? EV : OD;  // where the odd-j products go
    uint32_t* other = (i % 2 == 0) ? EV : OD;      // the even-j products
    const size_t j_odd = (i % 2 == 0) ? i + 1 : i + 2;
    const size_t j_even = (i % 2 == 0) ? i + 2 : i + 1;
    if (j_odd == n - 1) {
      top[i + n - 1] = a[i] * a[n - 1];
      top[i + n] = umulhi(a[i], a[n - 1]);
    } else {
      top[i + j_odd] = mad_lo_cc(a[i], a[j_odd], top[i + j_odd]);
      top[i + j_odd + 1] = madc_hi_cc(a[i], a[j_odd], top[i + j_odd + 1]);
#pragma unroll
      for (size_t j = j_odd + 2; j + 2 < n; j += 2) {
        top[i + j] = madc_lo_cc(a[i], a[j], top[i + j]);
        top[i + j + 1] = madc_hi_cc(a[i], a[j], top[i + j + 1]);
      }
      top[i + n - 1] = madc_lo_cc(a[i], a[n - 1], 0);
      top[i + n] = madc_hi(a[i], a[n - 1], 0);
    }
    if (j_even <= n - 2) {
      other[i + j_even] = mad_lo_cc(a[i], a[j_even], other[i + j_even]);
      other[i + j_even + 1] = madc_hi_cc(a[i], a[j_even], other[i + j_even + 1]);
#pragma unroll
      for (size_t j = j_even + 2; j + 1 < n; j += 2) {
        other[i + j] = madc_lo_cc(a[i], a[j], other[i + j]);
        other[i + j + 1] = madc_hi_cc(a[i], a[j], other[i + j + 1]);
      }
      top[i + n] = addc(top[i + n], 0);
    }
  }

  // W = 2 * (EV + OD) + sum a[i]^2 * 2^(64i): EV spans words 2..2n-3, OD words 1..2n-2.
  uint32_t W[2 * n];
  W[0] = 0;
  W[1] = OD[1];
  W[2] = add_cc(EV[2], OD[2]);
#pragma unroll
  for (size_t q = 3; q + 3 <= 2 * n; ++q) W[q] = addc_cc(EV[q], OD[q]);
  W[2 * n - 2] = addc_cc(OD[2 * n - 2], 0);
  W[2 * n - 1] = addc(0, 0);
  W[1] = add_cc(W[1], W[1]);
#pragma unroll
  for (size_t q = 2; q + 1 < 2 * n; ++q) W[q] = addc_cc(W[q], W[q]);
  W[2 * n - 1] = addc(W[2 * n - 1], W[2 * n - 1]);
  W[0] = a[0] * a[0];
  W[1] = add_cc(W[1], umulhi(a[0], a[0]));
#pragma unroll
  for (size_t i = 1; i + 1 < n; ++i) {
    W[2 * i] = madc_lo_cc(a[i], a[i], W[2 * i]);
    W[2 * i + 1] = madc_hi_cc(a[i], a[i], W[2 * i + 1]);
  }
  W[2 * n - 2] = madc_lo_cc(a[n - 1], a[n - 1], W[2 * n - 2]);
  W[2 * n - 1] = madc_hi(a[n - 1], a[n - 1], W[2 * n - 1]);

  return redc_wide<P, kLazy>(W);
}

// (x + y) mod p for x, y < p (2p < 2^(64N): the sum has no carry out).
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> mod_add(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n], b[n];
  to_words(x, a);
  to_words(y, b);
  a[0] = add_cc(a[0], b[0]);
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) a[j] = addc_cc(a[j], b[j]);
  a[n - 1] = addc(a[n - 1], b[n - 1]);
  final_sub<P>(a);
  return from_words<P::N>(a);
}

// (x - y) mod K·p for x, y < K·p: the difference, plus K·p when it borrowed (the carry out
// cancels the borrow).
template <class P, unsigned K>
CUZK_FP_CUDA_FN BigInt<P::N> sub_wrapped(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n], b[n];
  to_words(x, a);
  to_words(y, b);
  a[0] = sub_cc(a[0], b[0]);
#pragma unroll
  for (size_t j = 1; j < n; ++j) a[j] = subc_cc(a[j], b[j]);
  const uint32_t mask = subc(0, 0);
  // K·p added under a predicate: one instruction a word where `multiple & mask` takes two
  // (BENCHMARKS.md, "Predicated wraps").
#pragma unroll
  for (size_t j = 0; j < n; ++j) a[j] = add_cc_if(a[j], multiple_word<P, K>(j), mask, j == 0, j + 1 == n);
  return from_words<P::N>(a);
}

// (x - y) mod p for x, y < p.
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> mod_sub(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  return sub_wrapped<P, 1>(x, y);
}

// x - p if that does not borrow, else x: [0, 2p) -> [0, p).
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> reduce_once(const BigInt<P::N>& x) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n];
  to_words(x, a);
  final_sub<P>(a);
  return from_words<P::N>(a);
}

// Whether 4p < 2^(64N) (two spare bits), so that x + y and x - y + 2p of values below 2p
// fit the words.
template <class P>
constexpr bool kTwoSpareBits = P::MODULUS.limb[P::N - 1] < (uint64_t(1) << 62);

// Whether 5p < 2^(64N) (the top word below 2^64 / 5), so that mont_mul_lazy takes any x < 4p.
template <class P>
constexpr bool kLazyProducts = P::MODULUS.limb[P::N - 1] < 0x3333333333333333ull;

// (x + y) mod 2p for x, y < 2p, in [0, 2p). Without two spare bits the sum may carry out of
// the words: then it is at least 2^(64N) > 2p, and the difference below is the result.
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> add_lazy(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n], b[n], t[n];
  to_words(x, a);
  to_words(y, b);
  a[0] = add_cc(a[0], b[0]);
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) a[j] = addc_cc(a[j], b[j]);
  uint32_t carry = 0;
  if constexpr (kTwoSpareBits<P>) {
    a[n - 1] = addc(a[n - 1], b[n - 1]);
  } else {
    a[n - 1] = addc_cc(a[n - 1], b[n - 1]);
    carry = addc(0, 0);
  }
  t[0] = sub_cc(a[0], multiple_word<P, 2>(0));
#pragma unroll
  for (size_t j = 1; j < n; ++j) t[j] = subc_cc(a[j], multiple_word<P, 2>(j));
  // The borrow of carry:a - 2p (a word longer): all ones where it borrowed, i.e. a < 2p and
  // no carry out. A carry out implies the words' borrow (a < 4p - 2^(64N) < 2p), and then
  // the top word's 1 - 0 - 1 borrows nothing.
  const uint32_t keep = subc(carry, 0);
#pragma unroll
  for (size_t j = 0; j < n; ++j) a[j] = keep ? a[j] : t[j];
  return from_words<P::N>(a);
}

// x - y + 2p for x, y < 2p, in (0, 4p): no reduction (mont_mul_lazy takes it). Needs two
// spare bits.
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> sub_plus_2p(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  static_assert(kTwoSpareBits<P>, "x - y + 2p may not fit the words");
  constexpr size_t n = Modulus<P>::n;
  uint32_t a[n], b[n];
  to_words(x, a);
  to_words(y, b);
  a[0] = add_cc(a[0], multiple_word<P, 2>(0));
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) a[j] = addc_cc(a[j], multiple_word<P, 2>(j));
  a[n - 1] = addc(a[n - 1], multiple_word<P, 2>(n - 1));
  a[0] = sub_cc(a[0], b[0]);
#pragma unroll
  for (size_t j = 1; j + 1 < n; ++j) a[j] = subc_cc(a[j], b[j]);
  a[n - 1] = subc(a[n - 1], b[n - 1]);
  return from_words<P::N>(a);
}

// (x - y) mod 2p for x, y < 2p, in [0, 2p).
template <class P>
CUZK_FP_CUDA_FN BigInt<P::N> sub_lazy(const BigInt<P::N>& x, const BigInt<P::N>& y) {
  return sub_wrapped<P, 2>(x, y);
}

}  // namespace cuzk::ff::cuda_fp
