// Full XYZZ addition and doubling computed by a quad of lanes (four consecutive lanes of a
// warp), for latency-bound chains such as the MSM reduction's levels (msm_kernels.cuh,
// CUZK_MSM_COOP_REDUCE): in each step every lane computes one product, and the products are
// exchanged by shuffles within the quad, so an addition's fourteen products take four steps and
// a doubling's nine take three. Every lane of a quad passes the same inputs and gets the same
// result; the rare cases (an input at infinity, equal inputs) run ec::Xyzz's one-lane formulas
// on all four lanes. The four lanes must call together (no divergence inside a quad).
#pragma once

#include <cstdint>
#include <cstring>

#include "ec/xyzz.hpp"

namespace cuzk::cuda::msm_detail {

// The lanes of this thread's quad, for __shfl_sync; g = lane % 4 picks a lane's product.
struct Quad {
  unsigned mask, g;
  __device__ static Quad mine() {
    const unsigned lane = threadIdx.x % 32;
    return {0xfu << (lane & ~3u), lane & 3u};
  }
  template <class F>
  __device__ F from(const F& v, unsigned src) const {
    static_assert(sizeof(F) % sizeof(uint32_t) == 0);
    uint32_t w[sizeof(F) / sizeof(uint32_t)];
    memcpy(w, &v, sizeof(F));
#pragma unroll
    for (unsigned i = 0; i < sizeof(F) / sizeof(uint32_t); ++i) w[i] = __shfl_sync(mask, w[i], int(src), 4);
    F r;
    memcpy(&r, w, sizeof(F));
    return r;
  }
};

// dbl-2008-s-1 (as ec::Xyzz::dbl) over a quad: V = U², X² | W = U·V, S = X·V, M², ZZ3 = V·ZZ |
// Y3 = M·(S - X3) - W·Y, ZZZ3 = W·ZZZ.
template <class G>
__device__ ec::Xyzz<G> dbl_quad(const ec::Xyzz<G>& a, const Quad& q) {
  using F = typename G::Base;
  if (a.is_infinity()) return a;
  const F u = a.y.dbl();
  const F p1 = (q.g == 0 ? u : a.x).square();
  const F v = q.from(p1, 0), x2 = q.from(p1, 1);
  const F m = x2.dbl() + x2;
  const F l2 = q.g == 0 ? u : q.g == 1 ? a.x : q.g == 2 ? m : v;
  const F r2 = q.g == 0 ? v : q.g == 1 ? v : q.g == 2 ? m : a.zz;
  const F p2 = l2 * r2;
  const F w = q.from(p2, 0), sv = q.from(p2, 1), mm = q.from(p2, 2);
  ec::Xyzz<G> r;
  r.x = mm - sv.dbl();
  const bool y_lane = q.g == 0;
  const F p3 = F::mul_sub(y_lane ? m : w, y_lane ? sv - r.x : a.zzz, y_lane ? w : F::zero(), y_lane ? a.y : F::zero());
  r.y = q.from(p3, 0);
  r.zz = q.from(p2, 3);
  r.zzz = q.from(p3, 1);
  return r;
}

// add-2008-s (as ec::Xyzz::operator+) over a quad: U1, U2, S1, S2 | PP = P², R², ZZ1·ZZ2,
// ZZZ1·ZZZ2 | PPP = P·PP, Q = U1·PP, ZZ3 = ZZ1·ZZ2·PP | Y3 = R·(Q - X3) - S1·PPP, ZZZ3.
template <class G>
__device__ ec::Xyzz<G> add_quad(const ec::Xyzz<G>& a, const ec::Xyzz<G>& b, const Quad& q) {
  using F = typename G::Base;
  if (a.is_infinity()) return b;
  if (b.is_infinity()) return a;
  const F l1 = q.g == 0 ? a.x : q.g == 1 ? b.x : q.g == 2 ? a.y : b.y;
  const F r1 = q.g == 0 ? b.zz : q.g == 1 ? a.zz : q.g == 2 ? b.zzz : a.zzz;
  const F p1 = l1 * r1;
  const F u1 = q.from(p1, 0), u2 = q.from(p1, 1), s1 = q.from(p1, 2), s2 = q.from(p1, 3);
  const F pd = u2 - u1, rr = s2 - s1;
  if (pd.is_zero()) return rr.is_zero() ? a.dbl() : ec::Xyzz<G>::infinity();
  const F l2 = q.g == 0 ? pd : q.g == 1 ? rr : q.g == 2 ? a.zz : a.zzz;
  const F r2 = q.g == 0 ? pd : q.g == 1 ? rr : q.g == 2 ? b.zz : b.zzz;
  const F p2 = l2 * r2;  // lane 2: ZZ1·ZZ2, lane 3: ZZZ1·ZZZ2
  const F pp = q.from(p2, 0), rr2 = q.from(p2, 1);
  const F p3 = (q.g == 0 ? pd : q.g == 1 ? u1 : p2) * pp;  // lane 2: ZZ3 (lane 3's is not used)
  const F ppp = q.from(p3, 0), qq = q.from(p3, 1);
  ec::Xyzz<G> r;
  r.x = rr2 - ppp - qq.dbl();
  const bool y_lane = q.g == 0;
  const F p4 = F::mul_sub(y_lane ? rr : p2, y_lane ? qq - r.x : ppp, y_lane ? s1 : F::zero(), y_lane ? ppp : F::zero());
  r.y = q.from(p4, 0);
  r.zz = q.from(p3, 2);
  r.zzz = q.from(p4, 3);
  return r;
}

}  // namespace cuzk::cuda::msm_detail
