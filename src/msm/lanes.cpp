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

// ---- Bucket sums: sum_j (j+1)·bucket_j, sixteen segments of the buckets side by side ----

template <int L>
struct XyzzV {
  V<L> x, y, zz, zzz;
};

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

// a + k − b for a, b < 2p made < 2p again (k = 2p: the sum lies in (0, 4p)).
template <class F>
CUZK_LANES_INLINE V<Shape<F>::L> sub2p(const V<Shape<F>::L>& a, const V<Shape<F>::L>& b, const Consts<F>& c) {
  return reduce(sub(a, b, c.two_p, c.mask), c.two_p, c.mask);
}

// The part of an XYZZ addition after the differences p = u2 − u1 and rr = s2 − s1:
// x3 = rr² − p³ − 2·u1·p², y3 = rr·(u1·p² − x3) − s1·p³; returns p² and p³ for ZZ and ZZZ.
template <class F>
CUZK_LANES_INLINE void xyzz_finish(const V<Shape<F>::L>& p, const V<Shape<F>::L>& rr, const V<Shape<F>::L>& u1,
                                   const V<Shape<F>::L>& s1, V<Shape<F>::L>& x3, V<Shape<F>::L>& y3,
                                   V<Shape<F>::L>& pp, V<Shape<F>::L>& ppp, const Consts<F>& c) {
  using Vec = V<Shape<F>::L>;
  pp = mul<F>(p, p, c);
  ppp = mul<F>(p, pp, c);
  const Vec q = mul<F>(u1, pp, c);
  // rr² + 6p − p³ − 2q lies in (0, 8p): reductions by 4p and by 2p leave it < 2p.
  const Vec r2 = mul<F>(rr, rr, c);
  Vec t;
#pragma GCC unroll 16
  for (int j = 0; j < Shape<F>::L; ++j) {
    const __m512i plus = _mm512_add_epi64(_mm512_add_epi64(r2.l[j], c.four_p.l[j]), c.two_p.l[j]);
    t.l[j] = _mm512_sub_epi64(_mm512_sub_epi64(plus, ppp.l[j]), _mm512_add_epi64(q.l[j], q.l[j]));
  }
  carry_signed(t, c.mask);
  x3 = reduce(reduce(t, c.four_p, c.mask), c.two_p, c.mask);
  const Vec y = mul<F>(rr, sub2p<F>(q, x3, c), c);
  y3 = sub2p<F>(y, mul<F>(s1, ppp, c), c);
}

// r += (bx, by) on the lanes in `active` (mixed XYZZ addition, madd-2008-s). `inf` marks
// lanes of r at infinity. Returns the lanes where r equals the point: those need a
// doubling, which the caller does (it is rare), and are left untouched here.
template <class F>
CUZK_LANES_INLINE __mmask8 add_affine(XyzzV<Shape<F>::L>& r, __mmask8& inf, const V<Shape<F>::L>& bx,
                                      const V<Shape<F>::L>& by, __mmask8 active, const Consts<F>& c) {
  using Vec = V<Shape<F>::L>;
  const Vec p = sub2p<F>(mul<F>(bx, r.zz, c), r.x, c);
  const Vec rr = sub2p<F>(mul<F>(by, r.zzz, c), r.y, c);
  const __mmask8 p0 = is_zero<F>(p, c), rr0 = is_zero<F>(rr, c);
  Vec x3, y3, pp, ppp;
  xyzz_finish<F>(p, rr, r.x, r.y, x3, y3, pp, ppp, c);
  const __mmask8 finite = active & ~inf;
  const __mmask8 fresh = active & inf, normal = finite & ~p0, cancel = finite & p0 & ~rr0;
  r.zz = blend(fresh, blend(normal, r.zz, mul<F>(r.zz, pp, c)), c.one);
  r.zzz = blend(fresh, blend(normal, r.zzz, mul<F>(r.zzz, ppp, c)), c.one);
  r.x = blend(fresh, blend(normal, r.x, x3), bx);
  r.y = blend(fresh, blend(normal, r.y, y3), by);
  inf = __mmask8((inf & ~fresh) | cancel);
  return finite & p0 & rr0;
}

// t += r (XYZZ addition, add-2008-s) on all lanes; infinity on either side as marked.
// Returns the lanes where t equals r (left untouched; the caller doubles them).
template <class F>
CUZK_LANES_INLINE __mmask8 add_xyzz(XyzzV<Shape<F>::L>& t, __mmask8& t_inf, const XyzzV<Shape<F>::L>& r,
                                    __mmask8 r_inf, const Consts<F>& c) {
  using Vec = V<Shape<F>::L>;
  const Vec u1 = mul<F>(t.x, r.zz, c), u2 = mul<F>(r.x, t.zz, c);
  const Vec s1 = mul<F>(t.y, r.zzz, c), s2 = mul<F>(r.y, t.zzz, c);
  const Vec p = sub2p<F>(u2, u1, c), rr = sub2p<F>(s2, s1, c);
  const __mmask8 p0 = is_zero<F>(p, c), rr0 = is_zero<F>(rr, c);
  Vec x3, y3, pp, ppp;
  xyzz_finish<F>(p, rr, u1, s1, x3, y3, pp, ppp, c);
  const __mmask8 both = __mmask8(~t_inf & ~r_inf);
  const __mmask8 copy = t_inf & ~r_inf, normal = both & ~p0, cancel = both & p0 & ~rr0;
  t.zz = blend(copy, blend(normal, t.zz, mul<F>(mul<F>(t.zz, r.zz, c), pp, c)), r.zz);
  t.zzz = blend(copy, blend(normal, t.zzz, mul<F>(mul<F>(t.zzz, r.zzz, c), ppp, c)), r.zzz);
  t.x = blend(copy, blend(normal, t.x, x3), r.x);
  t.y = blend(copy, blend(normal, t.y, y3), r.y);
  t_inf = __mmask8((t_inf & ~copy) | cancel);
  return both & p0 & rr0;
}

// Lanes of an XYZZ vector as scalar points (infinity where `inf`).
template <class C>
CUZK_LANES_INLINE void xyzz_to_scalar(const XyzzV<Shape<typename C::Base>::L>& v, __mmask8 inf, ec::Xyzz<C> out[8]) {
  using F = typename C::Base;
  F x[8], y[8], zz[8], zzz[8];
  to_scalar<F>(v.x, x);
  to_scalar<F>(v.y, y);
  to_scalar<F>(v.zz, zz);
  to_scalar<F>(v.zzz, zzz);
  for (int i = 0; i < 8; ++i) out[i] = (inf >> i) & 1 ? ec::Xyzz<C>::infinity() : ec::Xyzz<C>{x[i], y[i], zz[i], zzz[i]};
}

template <class C>
CUZK_LANES_INLINE XyzzV<Shape<typename C::Base>::L> xyzz_from_scalar(const ec::Xyzz<C> in[8], const Consts<typename C::Base>& c) {
  using F = typename C::Base;
  static_assert(sizeof(ec::Xyzz<C>) == 4 * sizeof(F));
  const F* base = &in[0].x;
  const __m512i at = _mm512_set_epi64(7 * 4 * F::N, 6 * 4 * F::N, 5 * 4 * F::N, 4 * 4 * F::N, 3 * 4 * F::N, 2 * 4 * F::N,
                                      4 * F::N, 0);
  const F one = F::one();
  XyzzV<Shape<F>::L> v;
  v.x = gather<F>(base, at, 0xff, one, c);
  v.y = gather<F>(base, _mm512_add_epi64(at, _mm512_set1_epi64(F::N)), 0xff, one, c);
  v.zz = gather<F>(base, _mm512_add_epi64(at, _mm512_set1_epi64(2 * F::N)), 0xff, one, c);
  v.zzz = gather<F>(base, _mm512_add_epi64(at, _mm512_set1_epi64(3 * F::N)), 0xff, one, c);
  return v;
}

// Doubles the lanes in `lanes` of v through the scalar code (equal summands: rare).
template <class C>
CUZK_LANES_INLINE void double_lanes(XyzzV<Shape<typename C::Base>::L>& v, __mmask8 inf, __mmask8 lanes,
                                    const Consts<typename C::Base>& c) {
  ec::Xyzz<C> s[8];
  xyzz_to_scalar<C>(v, inf, s);
  for (int i = 0; i < 8; ++i)
    if ((lanes >> i) & 1) s[i] = s[i].dbl();
  v = xyzz_from_scalar<C>(s, c);
}

constexpr size_t kSumGroups = 2;  // vectors of eight segments each

template <class C>
CUZK_LANES ec::Xyzz<C> bucket_sum(const ec::Affine<C>* bucket, const uint8_t* filled, size_t count) {
  using F = typename C::Base;
  using P = ec::Xyzz<C>;
  constexpr int L = Shape<F>::L;
  constexpr size_t kSegments = 8 * kSumGroups;
  static const Consts<F> c;
  const size_t seg_len = (count + kSegments - 1) / kSegments;  // segment s: buckets [s·seg_len, ...)
  const F one = F::one();
  const F* base = &bucket[0].x;
  constexpr int64_t kPair = 2 * F::N;

  XyzzV<L> running[kSumGroups], total[kSumGroups];
  __mmask8 running_inf[kSumGroups], total_inf[kSumGroups];
  for (size_t g = 0; g < kSumGroups; ++g) {
    running[g].x = running[g].y = running[g].zz = running[g].zzz = c.one;
    total[g] = running[g];
    running_inf[g] = total_inf[g] = 0xff;
  }
  for (size_t k = seg_len; k-- > 0;) {
#pragma GCC unroll 4
    for (size_t g = 0; g < kSumGroups; ++g) {
      alignas(64) int64_t at[8] = {};
      __mmask8 active = 0;
      for (size_t i = 0; i < 8; ++i) {
        const size_t j = (8 * g + i) * seg_len + k;
        if (j < count && filled[j]) {
          active |= __mmask8(1u << i);
          at[i] = int64_t(j) * kPair;
        }
      }
      if (active) {
        const __m512i off = _mm512_load_si512(at);
        const V<L> bx = gather<F>(base, off, active, one, c);
        const V<L> by = gather<F>(base, _mm512_add_epi64(off, _mm512_set1_epi64(F::N)), active, one, c);
        const __mmask8 dbl = add_affine<F>(running[g], running_inf[g], bx, by, active, c);
        if (dbl) double_lanes<C>(running[g], running_inf[g], dbl, c);
      }
      const __mmask8 dbl = add_xyzz<F>(total[g], total_inf[g], running[g], running_inf[g], c);
      if (dbl) double_lanes<C>(total[g], total_inf[g], dbl, c);
    }
  }

  // Segment s's running sum R_s and total T_s = sum over its buckets of (j − s·seg_len + 1)·B_j;
  // the whole sum is sum_s T_s + seg_len·sum_s s·R_s, the last by a running sum over s.
  P r[kSegments], t[kSegments];
  for (size_t g = 0; g < kSumGroups; ++g) {
    xyzz_to_scalar<C>(running[g], running_inf[g], r + 8 * g);
    xyzz_to_scalar<C>(total[g], total_inf[g], t + 8 * g);
  }
  P sum = P::infinity(), acc = P::infinity(), weighted = P::infinity();
  for (size_t s = kSegments; s-- > 0;) {
    sum += t[s];
    if (s == 0) break;
    acc += r[s];
    weighted += acc;
  }
  return sum + weighted.mul(ff::BigInt<1>{{uint64_t(seg_len)}});
}

}  // namespace

template <class F>
void batch_affine_add(F* bucket, const uint32_t* index, const F* point, const F* den, size_t n,
                      std::vector<uint64_t>& scratch) {
  if (n == 0) return;
  batch<F>(bucket, index, point, den, n, scratch);
}

template <class C>
ec::Xyzz<C> weighted_bucket_sum(const ec::Affine<C>* bucket, const uint8_t* filled, size_t count) {
  if (count == 0) return ec::Xyzz<C>::infinity();
  return bucket_sum<C>(bucket, filled, count);
}

template ec::Xyzz<bn254::G1Config> weighted_bucket_sum<bn254::G1Config>(const ec::Affine<bn254::G1Config>*,
                                                                       const uint8_t*, size_t);
template ec::Xyzz<bls12_381::G1Config> weighted_bucket_sum<bls12_381::G1Config>(
    const ec::Affine<bls12_381::G1Config>*, const uint8_t*, size_t);
template void batch_affine_add<bn254::Fq>(bn254::Fq*, const uint32_t*, const bn254::Fq*, const bn254::Fq*, size_t,
                                          std::vector<uint64_t>&);
template void batch_affine_add<bls12_381::Fq>(bls12_381::Fq*, const uint32_t*, const bls12_381::Fq*,
                                              const bls12_381::Fq*, size_t, std::vector<uint64_t>&);

}  // namespace cuzk::msm::lanes
