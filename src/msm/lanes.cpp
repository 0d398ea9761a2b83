// Batched affine additions and bucket sums in AVX-512 IFMA lanes (see lanes.hpp; the
// field arithmetic is ff/lanes52.hpp). Lane values are kept below 2p between products and
// made canonical (< p) before they are stored back into buckets.
#include "msm/lanes.hpp"

#include <algorithm>
#include <cstring>

#include "ff/inverse.hpp"
#include "ff/lanes52.hpp"

namespace cuzk::msm::lanes {

namespace {

using namespace ff::lanes52;

// ---- Elements of Fp or Fp2 in lanes: K parts (1 or 2) of L limbs ----

template <class E>
struct Elem {
  using F = E;
  static constexpr int K = 1;
};
template <class Cfg>
struct Elem<ff::Fp2<Cfg>> {
  using F = typename Cfg::Fq;
  static constexpr int K = 2;  // c0 + c1·u with u² = −1 (both curves' Fq2)
};

template <int L, int K>
struct W {
  V<L> part[K];
};

template <class E>
using LanesOf = W<Shape<typename Elem<E>::F>::L, Elem<E>::K>;

// Part-wise a + k − b, a + k − b − d and conditional subtraction of k.
template <int L, int K>
CUZK_LANES_INLINE W<L, K> sub(const W<L, K>& a, const W<L, K>& b, const V<L>& k, __m512i mask) {
  W<L, K> r;
  for (int i = 0; i < K; ++i) r.part[i] = sub(a.part[i], b.part[i], k, mask);
  return r;
}
template <int L, int K>
CUZK_LANES_INLINE W<L, K> sub2(const W<L, K>& a, const W<L, K>& b, const W<L, K>& d, const V<L>& k, __m512i mask) {
  W<L, K> r;
  for (int i = 0; i < K; ++i) r.part[i] = sub2(a.part[i], b.part[i], d.part[i], k, mask);
  return r;
}
template <int L, int K>
CUZK_LANES_INLINE W<L, K> reduce(const W<L, K>& v, const V<L>& k, __m512i mask) {
  W<L, K> r;
  for (int i = 0; i < K; ++i) r.part[i] = reduce(v.part[i], k, mask);
  return r;
}

// The product, below 2p part-wise for parts below 2p. For Fp2 the schoolbook form
// (four base products) keeps every operand below 2p without reducing sums first.
template <class E>
CUZK_LANES_INLINE LanesOf<E> mul_e(const LanesOf<E>& a, const LanesOf<E>& b, const Consts<typename Elem<E>::F>& c) {
  using F = typename Elem<E>::F;
  LanesOf<E> r;
  if constexpr (Elem<E>::K == 1) {
    r.part[0] = mul<F>(a.part[0], b.part[0], c);
  } else {
    const auto t00 = mul<F>(a.part[0], b.part[0], c), t11 = mul<F>(a.part[1], b.part[1], c);
    const auto t01 = mul<F>(a.part[0], b.part[1], c), t10 = mul<F>(a.part[1], b.part[0], c);
    r.part[0] = reduce(sub(t00, t11, c.two_p, c.mask), c.two_p, c.mask);  // (0, 4p) -> below 2p
    r.part[1] = reduce(add(t01, t10, c.mask), c.two_p, c.mask);           // [0, 4p) -> below 2p
  }
  return r;
}

// Eight elements at qword offsets idx (part i at + i·N); lanes outside `live` get `fill`.
template <class E>
CUZK_LANES_INLINE LanesOf<E> gather_e(const E* base, __m512i idx, __mmask8 live, const E& fill,
                                      const Consts<typename Elem<E>::F>& c) {
  using F = typename Elem<E>::F;
  const F* parts = reinterpret_cast<const F*>(base);
  const F* fills = reinterpret_cast<const F*>(&fill);
  LanesOf<E> r;
  for (int i = 0; i < Elem<E>::K; ++i)
    r.part[i] = gather<F>(parts, _mm512_add_epi64(idx, _mm512_set1_epi64(int64_t(i) * F::N)), live, fills[i], c);
  return r;
}

template <class E>
CUZK_LANES_INLINE void scatter_e(E* base, __m512i idx, __mmask8 live, const LanesOf<E>& v) {
  using F = typename Elem<E>::F;
  F* parts = reinterpret_cast<F*>(base);
  for (int i = 0; i < Elem<E>::K; ++i)
    scatter<F>(parts, _mm512_add_epi64(idx, _mm512_set1_epi64(int64_t(i) * F::N)), live, v.part[i]);
}

template <class E>
CUZK_LANES_INLINE void store_e(uint64_t* at, const LanesOf<E>& v) {
  using F = typename Elem<E>::F;
  for (int i = 0; i < Elem<E>::K; ++i) store<F>(at + 8 * Shape<F>::L * i, v.part[i]);
}

template <class E>
CUZK_LANES_INLINE LanesOf<E> load_e(const uint64_t* at) {
  using F = typename Elem<E>::F;
  LanesOf<E> v;
  for (int i = 0; i < Elem<E>::K; ++i) v.part[i] = load<F>(at + 8 * Shape<F>::L * i);
  return v;
}

template <class E>
CUZK_LANES_INLINE void to_scalar_e(const LanesOf<E>& v, E out[8]) {
  using F = typename Elem<E>::F;
  static_assert(sizeof(E) == Elem<E>::K * sizeof(F));
  F parts[Elem<E>::K][8];
  for (int i = 0; i < Elem<E>::K; ++i) to_scalar<F>(v.part[i], parts[i]);
  for (int lane = 0; lane < 8; ++lane) {
    F* o = reinterpret_cast<F*>(&out[lane]);
    for (int i = 0; i < Elem<E>::K; ++i) o[i] = parts[i][lane];
  }
}

// Chains run side by side: each is serial (every product needs the previous one), and a
// lane product's latency is about twice its throughput.
constexpr size_t kChains = 2;

template <class E>
CUZK_LANES void batch(E* bucket, const uint32_t* index, const E* point, const E* den, size_t n,
                      std::vector<uint64_t>& scratch) {
  using F = typename Elem<E>::F;
  constexpr int64_t kQ = int64_t(sizeof(E) / 8);  // qwords per element
  using Vec = LanesOf<E>;
  static const Consts<F> c;
  const size_t groups = (n + 7) / 8;                          // eight additions each
  const size_t per_chain = (groups + kChains - 1) / kChains;  // chain g: groups [g·per_chain, ...)
  const size_t stride = sizeof(Vec) / 8;                      // qwords per stored group value
  scratch.resize(2 * groups * stride);
  uint64_t* prefix = scratch.data();                  // product of the chain's denominators before the group
  uint64_t* dens = scratch.data() + groups * stride;  // the group's denominators, 52-bit limbs
  const E one = E::one();
  const __m512i elem_offsets = _mm512_set_epi64(7 * kQ, 6 * kQ, 5 * kQ, 4 * kQ, 3 * kQ, 2 * kQ, kQ, 0);
  const __m512i pair_offsets = _mm512_add_epi64(elem_offsets, elem_offsets);  // affine points: (x, y) pairs
  auto live_lanes = [&](size_t g) -> __mmask8 {
    const size_t left = n - 8 * g;
    return left >= 8 ? __mmask8(0xff) : __mmask8((1u << left) - 1);
  };

  Vec acc[kChains];
  for (auto& a : acc) a = gather_e<E>(&one, _mm512_setzero_si512(), 0, one, c);
  for (size_t k = 0; k < per_chain; ++k) {
#pragma GCC unroll 4
    for (size_t ch = 0; ch < kChains; ++ch) {
      const size_t g = ch * per_chain + k;
      if (g >= groups) continue;
      const __m512i at = _mm512_add_epi64(elem_offsets, _mm512_set1_epi64(int64_t(8 * g) * kQ));
      const Vec d = gather_e<E>(den, at, live_lanes(g), one, c);
      store_e<E>(prefix + g * stride, acc[ch]);
      store_e<E>(dens + g * stride, d);
      acc[ch] = mul_e<E>(acc[ch], d, c);
    }
  }

  // One inversion for all lanes of all chains.
  E last[kChains * 8], before[kChains * 8];
  for (size_t ch = 0; ch < kChains; ++ch) to_scalar_e<E>(acc[ch], last + 8 * ch);
  E prod = E::one();
  for (size_t i = 0; i < kChains * 8; ++i) {
    before[i] = prod;
    prod = prod * last[i];
  }
  E inv_all = ff::inverse_vartime(prod);  // public data: the variable-time inversion is fine
  for (size_t i = kChains * 8; i-- > 0;) {
    const E inv_i = inv_all * before[i];
    inv_all = inv_all * last[i];
    last[i] = inv_i;
  }
  Vec inv[kChains];
  for (size_t ch = 0; ch < kChains; ++ch) inv[ch] = gather_e<E>(last + 8 * ch, elem_offsets, 0xff, one, c);

  for (size_t k = per_chain; k-- > 0;) {
#pragma GCC unroll 4
    for (size_t ch = 0; ch < kChains; ++ch) {
      const size_t g = ch * per_chain + k;
      if (g >= groups) continue;
      const __mmask8 live = live_lanes(g);
      const Vec dinv = mul_e<E>(inv[ch], load_e<E>(prefix + g * stride), c);
      inv[ch] = mul_e<E>(inv[ch], load_e<E>(dens + g * stride), c);

      // Qwords of the queued points (x, then y) and of their buckets.
      const __m512i q_at = _mm512_add_epi64(pair_offsets, _mm512_set1_epi64(int64_t(8 * g) * 2 * kQ));
      alignas(64) int64_t b_off[8] = {};
      for (size_t i = 0, m = std::min<size_t>(8, n - 8 * g); i < m; ++i) b_off[i] = int64_t(index[8 * g + i]) * 2 * kQ;
      const __m512i b_at = _mm512_load_si512(b_off);
      const __m512i y_off = _mm512_set1_epi64(kQ);
      const Vec qx = gather_e<E>(point, q_at, live, one, c);
      const Vec qy = gather_e<E>(point, _mm512_add_epi64(q_at, y_off), live, one, c);
      const Vec bx = gather_e<E>(bucket, b_at, live, one, c);
      const Vec by = gather_e<E>(bucket, _mm512_add_epi64(b_at, y_off), live, one, c);

      const Vec lambda = mul_e<E>(sub(qy, by, c.p, c.mask), dinv, c);       // (qy − by)/(qx − bx)
      Vec x3 = sub2(mul_e<E>(lambda, lambda, c), bx, qx, c.two_p, c.mask);  // in (0, 4p)
      x3 = reduce(reduce(x3, c.two_p, c.mask), c.p, c.mask);
      Vec y3 = sub(mul_e<E>(lambda, sub(bx, x3, c.p, c.mask), c), by, c.p, c.mask);  // in (0, 3p)
      y3 = reduce(reduce(y3, c.two_p, c.mask), c.p, c.mask);
      scatter_e<E>(bucket, b_at, live, x3);
      scatter_e<E>(bucket, _mm512_add_epi64(b_at, y_off), live, y3);
    }
  }
}

// ---- Bucket sums: sum_j (j+1)·bucket_j, sixteen segments of the buckets side by side ----

template <class E>
struct XyzzW {
  LanesOf<E> x, y, zz, zzz;
};

template <int L, int K>
CUZK_LANES_INLINE W<L, K> blend(__mmask8 take, const W<L, K>& keep, const W<L, K>& with) {
  W<L, K> r;
  for (int i = 0; i < K; ++i) r.part[i] = blend(take, keep.part[i], with.part[i]);
  return r;
}

// Lanes whose value (parts < 2p) is 0.
template <class E>
CUZK_LANES_INLINE __mmask8 is_zero_e(const LanesOf<E>& v, const Consts<typename Elem<E>::F>& c) {
  __mmask8 m = 0xff;
  for (int i = 0; i < Elem<E>::K; ++i) m &= is_zero<typename Elem<E>::F>(v.part[i], c);
  return m;
}

// a − b for parts below 2p, below 2p again.
template <class E>
CUZK_LANES_INLINE LanesOf<E> sub_e(const LanesOf<E>& a, const LanesOf<E>& b, const Consts<typename Elem<E>::F>& c) {
  return reduce(sub(a, b, c.two_p, c.mask), c.two_p, c.mask);
}

// The part of an XYZZ addition after the differences p = u2 − u1 and rr = s2 − s1:
// x3 = rr² − p³ − 2·u1·p², y3 = rr·(u1·p² − x3) − s1·p³; returns p² and p³ for ZZ and ZZZ.
template <class E>
CUZK_LANES_INLINE void xyzz_finish(const LanesOf<E>& p, const LanesOf<E>& rr, const LanesOf<E>& u1,
                                   const LanesOf<E>& s1, LanesOf<E>& x3, LanesOf<E>& y3, LanesOf<E>& pp,
                                   LanesOf<E>& ppp, const Consts<typename Elem<E>::F>& c) {
  using F = typename Elem<E>::F;
  using Vec = LanesOf<E>;
  pp = mul_e<E>(p, p, c);
  ppp = mul_e<E>(p, pp, c);
  const Vec q = mul_e<E>(u1, pp, c);
  // rr² + 6p − p³ − 2q lies in (0, 8p) part-wise: reductions by 4p and by 2p leave it < 2p.
  const Vec r2 = mul_e<E>(rr, rr, c);
  Vec t;
  for (int i = 0; i < Elem<E>::K; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < Shape<F>::L; ++j) {
      const __m512i plus = _mm512_add_epi64(_mm512_add_epi64(r2.part[i].l[j], c.four_p.l[j]), c.two_p.l[j]);
      t.part[i].l[j] =
          _mm512_sub_epi64(_mm512_sub_epi64(plus, ppp.part[i].l[j]), _mm512_add_epi64(q.part[i].l[j], q.part[i].l[j]));
    }
    carry_signed(t.part[i], c.mask);
  }
  x3 = reduce(reduce(t, c.four_p, c.mask), c.two_p, c.mask);
  const Vec y = mul_e<E>(rr, sub_e<E>(q, x3, c), c);
  y3 = sub_e<E>(y, mul_e<E>(s1, ppp, c), c);
}

// r += (bx, by) on the lanes in `active` (mixed XYZZ addition, madd-2008-s). `inf` marks
// lanes of r at infinity. Returns the lanes where r equals the point: those need a
// doubling, which the caller does (it is rare), and are left untouched here.
template <class E>
CUZK_LANES_INLINE __mmask8 add_affine(XyzzW<E>& r, __mmask8& inf, const LanesOf<E>& bx, const LanesOf<E>& by,
                                      const LanesOf<E>& one, __mmask8 active, const Consts<typename Elem<E>::F>& c) {
  using Vec = LanesOf<E>;
  const Vec p = sub_e<E>(mul_e<E>(bx, r.zz, c), r.x, c);
  const Vec rr = sub_e<E>(mul_e<E>(by, r.zzz, c), r.y, c);
  const __mmask8 p0 = is_zero_e<E>(p, c), rr0 = is_zero_e<E>(rr, c);
  Vec x3, y3, pp, ppp;
  xyzz_finish<E>(p, rr, r.x, r.y, x3, y3, pp, ppp, c);
  const __mmask8 finite = active & ~inf;
  const __mmask8 fresh = active & inf, normal = finite & ~p0, cancel = finite & p0 & ~rr0;
  r.zz = blend(fresh, blend(normal, r.zz, mul_e<E>(r.zz, pp, c)), one);
  r.zzz = blend(fresh, blend(normal, r.zzz, mul_e<E>(r.zzz, ppp, c)), one);
  r.x = blend(fresh, blend(normal, r.x, x3), bx);
  r.y = blend(fresh, blend(normal, r.y, y3), by);
  inf = __mmask8((inf & ~fresh) | cancel);
  return finite & p0 & rr0;
}

// t += r (XYZZ addition, add-2008-s) on all lanes; infinity on either side as marked.
// Returns the lanes where t equals r (left untouched; the caller doubles them).
template <class E>
CUZK_LANES_INLINE __mmask8 add_xyzz(XyzzW<E>& t, __mmask8& t_inf, const XyzzW<E>& r, __mmask8 r_inf,
                                    const Consts<typename Elem<E>::F>& c) {
  using Vec = LanesOf<E>;
  const Vec u1 = mul_e<E>(t.x, r.zz, c), u2 = mul_e<E>(r.x, t.zz, c);
  const Vec s1 = mul_e<E>(t.y, r.zzz, c), s2 = mul_e<E>(r.y, t.zzz, c);
  const Vec p = sub_e<E>(u2, u1, c), rr = sub_e<E>(s2, s1, c);
  const __mmask8 p0 = is_zero_e<E>(p, c), rr0 = is_zero_e<E>(rr, c);
  Vec x3, y3, pp, ppp;
  xyzz_finish<E>(p, rr, u1, s1, x3, y3, pp, ppp, c);
  const __mmask8 both = __mmask8(~t_inf & ~r_inf);
  const __mmask8 copy = t_inf & ~r_inf, normal = both & ~p0, cancel = both & p0 & ~rr0;
  t.zz = blend(copy, blend(normal, t.zz, mul_e<E>(mul_e<E>(t.zz, r.zz, c), pp, c)), r.zz);
  t.zzz = blend(copy, blend(normal, t.zzz, mul_e<E>(mul_e<E>(t.zzz, r.zzz, c), ppp, c)), r.zzz);
  t.x = blend(copy, blend(normal, t.x, x3), r.x);
  t.y = blend(copy, blend(normal, t.y, y3), r.y);
  t_inf = __mmask8((t_inf & ~copy) | cancel);
  return both & p0 & rr0;
}

// Lanes of an XYZZ vector as scalar points (infinity where `inf`), and back.
template <class C>
CUZK_LANES_INLINE void xyzz_to_scalar(const XyzzW<typename C::Base>& v, __mmask8 inf, ec::Xyzz<C> out[8]) {
  using E = typename C::Base;
  E x[8], y[8], zz[8], zzz[8];
  to_scalar_e<E>(v.x, x);
  to_scalar_e<E>(v.y, y);
  to_scalar_e<E>(v.zz, zz);
  to_scalar_e<E>(v.zzz, zzz);
  for (int i = 0; i < 8; ++i)
    out[i] = (inf >> i) & 1 ? ec::Xyzz<C>::infinity() : ec::Xyzz<C>{x[i], y[i], zz[i], zzz[i]};
}

template <class C>
CUZK_LANES_INLINE XyzzW<typename C::Base> xyzz_from_scalar(const ec::Xyzz<C> in[8],
                                                           const Consts<typename Elem<typename C::Base>::F>& c) {
  using E = typename C::Base;
  static_assert(sizeof(ec::Xyzz<C>) == 4 * sizeof(E));
  constexpr int64_t kQ = int64_t(sizeof(E) / 8), kP = 4 * kQ;
  const __m512i at = _mm512_set_epi64(7 * kP, 6 * kP, 5 * kP, 4 * kP, 3 * kP, 2 * kP, kP, 0);
  const E one = E::one();
  XyzzW<E> v;
  v.x = gather_e<E>(&in[0].x, at, 0xff, one, c);
  v.y = gather_e<E>(&in[0].x, _mm512_add_epi64(at, _mm512_set1_epi64(kQ)), 0xff, one, c);
  v.zz = gather_e<E>(&in[0].x, _mm512_add_epi64(at, _mm512_set1_epi64(2 * kQ)), 0xff, one, c);
  v.zzz = gather_e<E>(&in[0].x, _mm512_add_epi64(at, _mm512_set1_epi64(3 * kQ)), 0xff, one, c);
  return v;
}

// Doubles the lanes in `lanes` of v through the scalar code (equal summands: rare).
template <class C>
CUZK_LANES_INLINE void double_lanes(XyzzW<typename C::Base>& v, __mmask8 inf, __mmask8 lanes,
                                    const Consts<typename Elem<typename C::Base>::F>& c) {
  ec::Xyzz<C> s[8];
  xyzz_to_scalar<C>(v, inf, s);
  for (int i = 0; i < 8; ++i)
    if ((lanes >> i) & 1) s[i] = s[i].dbl();
  v = xyzz_from_scalar<C>(s, c);
}

constexpr size_t kSumGroups = 2;  // vectors of eight segments each

template <class C>
CUZK_LANES ec::Xyzz<C> bucket_sum(const ec::Affine<C>* bucket, const uint8_t* filled, size_t count) {
  using E = typename C::Base;
  using F = typename Elem<E>::F;
  using P = ec::Xyzz<C>;
  constexpr size_t kSegments = 8 * kSumGroups;
  static const Consts<F> c;
  const size_t seg_len = (count + kSegments - 1) / kSegments;  // segment s: buckets [s·seg_len, ...)
  const E one = E::one();
  const LanesOf<E> ones = gather_e<E>(&one, _mm512_setzero_si512(), 0, one, c);
  constexpr int64_t kQ = int64_t(sizeof(E) / 8), kPair = 2 * kQ;

  XyzzW<E> running[kSumGroups], total[kSumGroups];
  __mmask8 running_inf[kSumGroups], total_inf[kSumGroups];
  for (size_t g = 0; g < kSumGroups; ++g) {
    running[g].x = running[g].y = running[g].zz = running[g].zzz = ones;
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
        const LanesOf<E> bx = gather_e<E>(&bucket[0].x, off, active, one, c);
        const LanesOf<E> by = gather_e<E>(&bucket[0].x, _mm512_add_epi64(off, _mm512_set1_epi64(kQ)), active, one, c);
        const __mmask8 dbl = add_affine<E>(running[g], running_inf[g], bx, by, ones, active, c);
        if (dbl) double_lanes<C>(running[g], running_inf[g], dbl, c);
      }
      const __mmask8 dbl = add_xyzz<E>(total[g], total_inf[g], running[g], running_inf[g], c);
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

template ec::Xyzz<bn254::G2Config> weighted_bucket_sum<bn254::G2Config>(const ec::Affine<bn254::G2Config>*,
                                                                        const uint8_t*, size_t);
template ec::Xyzz<bls12_381::G2Config> weighted_bucket_sum<bls12_381::G2Config>(const ec::Affine<bls12_381::G2Config>*,
                                                                                const uint8_t*, size_t);
template ec::Xyzz<bn254::G1Config> weighted_bucket_sum<bn254::G1Config>(const ec::Affine<bn254::G1Config>*,
                                                                        const uint8_t*, size_t);
template ec::Xyzz<bls12_381::G1Config> weighted_bucket_sum<bls12_381::G1Config>(const ec::Affine<bls12_381::G1Config>*,
                                                                                const uint8_t*, size_t);
template void batch_affine_add<bn254::Fq2>(bn254::Fq2*, const uint32_t*, const bn254::Fq2*, const bn254::Fq2*, size_t,
                                           std::vector<uint64_t>&);
template void batch_affine_add<bls12_381::Fq2>(bls12_381::Fq2*, const uint32_t*, const bls12_381::Fq2*,
                                               const bls12_381::Fq2*, size_t, std::vector<uint64_t>&);
template void batch_affine_add<bn254::Fq>(bn254::Fq*, const uint32_t*, const bn254::Fq*, const bn254::Fq*, size_t,
                                          std::vector<uint64_t>&);
template void batch_affine_add<bls12_381::Fq>(bls12_381::Fq*, const uint32_t*, const bls12_381::Fq*,
                                              const bls12_381::Fq*, size_t, std::vector<uint64_t>&);

}  // namespace cuzk::msm::lanes
