// Batched affine additions in AVX-512 IFMA lanes (see lanes.hpp).
//
// Field elements in lanes: L limbs of 52 bits, limb j of eight elements in one register
// (L = 5 for BN254's 254-bit Fq, 8 for BLS12-381's 381-bit Fq). Values are kept below
// 2p between products and made canonical (< p) before they are stored.
//
// The product is Montgomery's, operand scanning: for each limb b_i of b, t += a·b_i, then
// q = t_0·(−p^-1) mod 2^52 and t = (t + q·p) / 2^52. Fp's R is 2^(64N), which is not a
// multiple of 52 bits, so the last step reduces by the remaining bits only (48 for BN254,
// 20 for BLS12-381): q is taken mod 2^S and t divided by 2^S. The result is then
// a·b·2^(−64N) mod p, the same value Fp's operator* gives, below 2p whenever a·b < p·R
// (true for a, b < 2p, since 4p < R for both moduli).
#include "msm/lanes.hpp"

#include <immintrin.h>

#include <array>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace cuzk::msm::lanes {

namespace {

std::atomic<int> g_enabled{-1};  // -1: not decided yet

bool env_off() {
  const char* v = std::getenv("CUZK_CPU_LANES");
  return v != nullptr && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0);
}

}  // namespace

bool cpu_supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
}

bool enabled() {
  int e = g_enabled.load(std::memory_order_relaxed);
  if (e < 0) {
    e = cpu_supported() && !env_off() ? 1 : 0;
    g_enabled.store(e, std::memory_order_relaxed);
  }
  return e == 1;
}

void set_enabled(bool on) { g_enabled.store(on && cpu_supported() ? 1 : 0, std::memory_order_relaxed); }

namespace {

#define CUZK_LANES __attribute__((target("avx512f,avx512ifma")))
#define CUZK_LANES_INLINE __attribute__((target("avx512f,avx512ifma"), always_inline)) inline

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

// The modulus and the constants the lanes need, broadcast.
template <class F>
struct Consts {
  static constexpr int L = Shape<F>::L;
  V<L> p, two_p;
  __m512i neg_inv, mask, last_mask;

  CUZK_LANES Consts() {
    ff::BigInt<F::N> two = F::MODULUS;
    two.add_in_place(F::MODULUS);
    const auto p52 = limbs52<F>(F::MODULUS), two52 = limbs52<F>(two);
    for (int j = 0; j < L; ++j) {
      p.l[j] = _mm512_set1_epi64(int64_t(p52[j]));
      two_p.l[j] = _mm512_set1_epi64(int64_t(two52[j]));
    }
    neg_inv = _mm512_set1_epi64(int64_t(F::INV & kMask52));  // F::INV = −p^-1 mod 2^64
    mask = _mm512_set1_epi64(int64_t(kMask52));
    last_mask = _mm512_set1_epi64(int64_t((uint64_t(1) << Shape<F>::kLastBits) - 1));
  }
};

// Shifts by constants; the masked forms avoid an uninitialised-source warning in GCC 12.
CUZK_LANES_INLINE __m512i srli(__m512i a, unsigned k) { return _mm512_maskz_srli_epi64(0xff, a, k); }
CUZK_LANES_INLINE __m512i slli(__m512i a, unsigned k) { return _mm512_maskz_slli_epi64(0xff, a, k); }
CUZK_LANES_INLINE __m512i srai(__m512i a, unsigned k) { return _mm512_maskz_srai_epi64(0xff, a, k); }

// a·b·2^(−64N) mod p, below 2p when a·b < p·2^(64N); inputs have limbs < 2^52.
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> mul(const V<Shape<F>::L>& a, const V<Shape<F>::L>& b, const Consts<F>& c) {
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
    const __m512i q = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[0], c.neg_inv), i + 1 < L ? c.mask : c.last_mask);
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
  __m512i carry = zero;
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

// Chains run side by side: each is serial (every product needs the previous one), and a
// lane product's latency is about twice its throughput.
constexpr size_t kChains = 2;

template <class F>
CUZK_LANES void batch(F* bucket, const uint32_t* index, const F* point, const F* den, size_t n,
                      std::vector<uint64_t>& scratch) {
  constexpr int N = Shape<F>::N, L = Shape<F>::L;
  using Vec = V<L>;
  static const Consts<F> c;
  const size_t groups = (n + 7) / 8;                    // eight additions each
  const size_t per_chain = (groups + kChains - 1) / kChains;  // chain g: groups [g·per_chain, ...)
  const size_t stride = size_t(8) * L;                  // qwords per stored group value
  scratch.resize(2 * groups * stride);
  uint64_t* prefix = scratch.data();                 // product of the chain's denominators before the group
  uint64_t* dens = scratch.data() + groups * stride;  // the group's denominators, 52-bit limbs
  const F one = F::one();
  constexpr int64_t kPair = 2 * N;  // qwords per affine point
  const __m512i pair_offsets = _mm512_set_epi64(7 * kPair, 6 * kPair, 5 * kPair, 4 * kPair, 3 * kPair, 2 * kPair, kPair, 0);
  auto live_lanes = [&](size_t g) -> __mmask8 {
    const size_t left = n - 8 * g;
    return left >= 8 ? __mmask8(0xff) : __mmask8((1u << left) - 1);
  };

  Vec ones = gather<F>(&one, _mm512_setzero_si512(), 0, one, c), acc[kChains];
  for (auto& a : acc) a = ones;
  for (size_t k = 0; k < per_chain; ++k) {
#pragma GCC unroll 4
    for (size_t ch = 0; ch < kChains; ++ch) {
      const size_t g = ch * per_chain + k;
      if (g >= groups) continue;
      const __m512i at = _mm512_add_epi64(lane_offsets<F>(), _mm512_set1_epi64(int64_t(8 * g * N)));
      const Vec d = gather<F>(den, at, live_lanes(g), one, c);
      store<F>(prefix + g * stride, acc[ch]);
      store<F>(dens + g * stride, d);
      acc[ch] = mul<F>(acc[ch], d, c);
    }
  }

  // One inversion for all lanes of all chains.
  F last[kChains * 8], tmp[kChains * 8];
  for (size_t ch = 0; ch < kChains; ++ch) to_scalar<F>(acc[ch], last + 8 * ch);
  F::batch_inverse(last, kChains * 8, tmp);
  Vec inv[kChains];
  for (size_t ch = 0; ch < kChains; ++ch) inv[ch] = gather<F>(last + 8 * ch, lane_offsets<F>(), 0xff, one, c);

  for (size_t k = per_chain; k-- > 0;) {
#pragma GCC unroll 4
    for (size_t ch = 0; ch < kChains; ++ch) {
      const size_t g = ch * per_chain + k;
      if (g >= groups) continue;
      const __mmask8 live = live_lanes(g);
      const Vec dinv = mul<F>(inv[ch], load<F>(prefix + g * stride), c);
      inv[ch] = mul<F>(inv[ch], load<F>(dens + g * stride), c);

      // Qwords of the queued points (x at +0, y at +N) and of their buckets.
      const __m512i q_at = _mm512_add_epi64(pair_offsets, _mm512_set1_epi64(int64_t(8 * g) * kPair));
      alignas(64) int64_t b_off[8] = {};
      for (size_t i = 0, m = std::min<size_t>(8, n - 8 * g); i < m; ++i) b_off[i] = int64_t(index[8 * g + i]) * kPair;
      const __m512i b_at = _mm512_load_si512(b_off);
      const __m512i y_off = _mm512_set1_epi64(N);
      const Vec qx = gather<F>(point, q_at, live, one, c), qy = gather<F>(point, _mm512_add_epi64(q_at, y_off), live, one, c);
      const Vec bx = gather<F>(bucket, b_at, live, one, c), by = gather<F>(bucket, _mm512_add_epi64(b_at, y_off), live, one, c);

      const Vec lambda = mul<F>(sub(qy, by, c.p, c.mask), dinv, c);          // (qy − by)/(qx − bx)
      Vec x3 = sub2(mul<F>(lambda, lambda, c), bx, qx, c.two_p, c.mask);    // in (0, 4p)
      x3 = reduce(reduce(x3, c.two_p, c.mask), c.p, c.mask);
      Vec y3 = sub(mul<F>(lambda, sub(bx, x3, c.p, c.mask), c), by, c.p, c.mask);  // in (0, 3p)
      y3 = reduce(reduce(y3, c.two_p, c.mask), c.p, c.mask);
      scatter<F>(bucket, b_at, live, x3);
      scatter<F>(bucket, _mm512_add_epi64(b_at, y_off), live, y3);
    }
  }
}

}  // namespace

template <class F>
void batch_affine_add(F* bucket, const uint32_t* index, const F* point, const F* den, size_t n,
                      std::vector<uint64_t>& scratch) {
  if (n == 0) return;
  batch<F>(bucket, index, point, den, n, scratch);
}

template void batch_affine_add<bn254::Fq>(bn254::Fq*, const uint32_t*, const bn254::Fq*, const bn254::Fq*, size_t,
                                          std::vector<uint64_t>&);
template void batch_affine_add<bls12_381::Fq>(bls12_381::Fq*, const uint32_t*, const bls12_381::Fq*,
                                              const bls12_381::Fq*, size_t, std::vector<uint64_t>&);

}  // namespace cuzk::msm::lanes
