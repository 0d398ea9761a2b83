// Variable-time modular inversion for Fp<P>: Bernstein and Yang's "safegcd" divsteps
// (https://eprint.iacr.org/2019/266), in batches of 62 on signed 62-bit limbs, skipping
// runs of steps at once as the variable-time variant of libsecp256k1's modinv64 does.
//
// NOT constant time: the running time depends on the value inverted. Use it only on
// public data (MSM bucket sums, affine conversion of public points); Fp::inverse() is
// the constant-time path.
//
// Host only (uses __int128).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ff/bigint.hpp"
#include "ff/fp.hpp"
#include "ff/fp2.hpp"

namespace cuzk::ff {

namespace detail {

constexpr uint64_t kMask62 = (uint64_t(1) << 62) - 1;

// A signed integer in L limbs of 62 bits: limbs 0..L-2 in [0, 2^62), the top one signed.
// Transiently (inside an update) limbs may leave that range; carry62 restores it.
template <size_t L>
struct Int62 {
  int64_t limb[L];

  bool is_negative() const { return limb[L - 1] < 0; }
};

template <size_t L>
inline void carry62(Int62<L>& x) {
  int64_t c = 0;
  for (size_t i = 0; i + 1 < L; ++i) {
    c += x.limb[i];
    x.limb[i] = int64_t(uint64_t(c) & kMask62);
    c >>= 62;
  }
  x.limb[L - 1] += c;
}

template <size_t L, size_t N>
constexpr Int62<L> to_int62(const BigInt<N>& x) {
  Int62<L> r{};
  unsigned __int128 acc = 0;
  unsigned bits = 0;
  size_t in = 0;
  for (size_t i = 0; i < L; ++i) {
    if (bits < 62 && in < N) {
      acc |= (unsigned __int128)x.limb[in++] << bits;
      bits += 64;
    }
    r.limb[i] = int64_t(uint64_t(acc) & kMask62);
    acc >>= 62;
    bits = bits > 62 ? bits - 62 : 0;
  }
  return r;
}

// The caller guarantees 0 <= x < 2^(64N).
template <size_t N, size_t L>
inline BigInt<N> from_int62(const Int62<L>& x) {
  BigInt<N> r{};
  unsigned __int128 acc = 0;
  unsigned bits = 0;
  size_t in = 0;
  for (size_t i = 0; i < N; ++i) {
    while (bits < 64 && in < L) {
      acc |= (unsigned __int128)uint64_t(x.limb[in++]) << bits;
      bits += 62;
    }
    r.limb[i] = uint64_t(acc);
    acc >>= 64;
    bits = bits > 64 ? bits - 64 : 0;
  }
  return r;
}

// The transition matrix of 62 divsteps, scaled by 2^62:
// 2^62 * (f', g') = (u f + v g, q f + r g).
struct Divsteps62 {
  int64_t u, v, q, r;
};

// Runs 62 divsteps on the low bits of f and g (odd f) and returns the new eta = -delta.
// Runs of even g are shifted out in one go; while delta <= 0 the next min(1 - delta, 6)
// steps only add f to g or halve g, so one multiple w*f clears those bits of g at once.
inline int64_t divsteps62_vartime(int64_t eta, uint64_t f, uint64_t g, Divsteps62& t) {
  // The matrix rows scaled so that 2^steps * f_now = u f0 + v g0 and likewise for g;
  // unsigned arithmetic because the entries wrap through negative values.
  uint64_t u = 1, v = 0, q = 0, r = 1;
  int left = 62;
  for (;;) {
    int zeros = __builtin_ctzll(g | (~uint64_t(0) << left));
    g >>= zeros;
    u <<= zeros;
    v <<= zeros;
    eta -= zeros;
    left -= zeros;
    if (left == 0) break;
    if (eta < 0) {  // delta > 0 with g odd: the step that swaps, (f, g) <- (g, -f)
      eta = -eta;
      uint64_t tmp = f;
      f = g;
      g = 0 - tmp;
      tmp = u;
      u = q;
      q = 0 - tmp;
      tmp = v;
      v = r;
      r = 0 - tmp;
    }
    int bits = std::min({int(eta) + 1, left, 6});
    uint64_t f_inv = f * (2 - f * f);  // f^-1 mod 2^6: one Newton step from f^-1 = f mod 8
    uint64_t w = (0 - g * f_inv) & (~uint64_t(0) >> (64 - bits));
    g += w * f;
    q += w * u;
    r += w * v;
  }
  t = {int64_t(u), int64_t(v), int64_t(q), int64_t(r)};
  return eta;
}

// (f, g) <- t (f, g) / 2^62 on the low `len` limbs; the division is exact.
template <size_t L>
inline void apply_to_fg(const Divsteps62& t, Int62<L>& f, Int62<L>& g, size_t len) {
  __int128 cf = (__int128)t.u * f.limb[0] + (__int128)t.v * g.limb[0];
  __int128 cg = (__int128)t.q * f.limb[0] + (__int128)t.r * g.limb[0];
  cf >>= 62;
  cg >>= 62;
  for (size_t i = 1; i < len; ++i) {
    cf += (__int128)t.u * f.limb[i] + (__int128)t.v * g.limb[i];
    cg += (__int128)t.q * f.limb[i] + (__int128)t.r * g.limb[i];
    f.limb[i - 1] = int64_t(uint64_t(cf) & kMask62);
    g.limb[i - 1] = int64_t(uint64_t(cg) & kMask62);
    cf >>= 62;
    cg >>= 62;
  }
  f.limb[len - 1] = int64_t(cf);
  g.limb[len - 1] = int64_t(cg);
}

// (d, e) <- t (d, e) / 2^62 mod p, keeping both in (-2p, p). A negative input counts as
// itself plus p, which puts both in (-p, p); then a multiple of p in (-2^62 p, 0] makes
// the low 62 bits vanish, so the results land in (-2p, p) again.
template <size_t L>
inline void apply_to_de(const Divsteps62& t, Int62<L>& d, Int62<L>& e, const Int62<L>& p, uint64_t p_inv62) {
  int64_t md = 0, me = 0;
  if (d.is_negative()) {
    md += t.u;
    me += t.q;
  }
  if (e.is_negative()) {
    md += t.v;
    me += t.r;
  }
  const uint64_t d0 = uint64_t(d.limb[0]), e0 = uint64_t(e.limb[0]), p0 = uint64_t(p.limb[0]);
  uint64_t low_d = uint64_t(t.u) * d0 + uint64_t(t.v) * e0 + uint64_t(md) * p0;
  uint64_t low_e = uint64_t(t.q) * d0 + uint64_t(t.r) * e0 + uint64_t(me) * p0;
  md -= int64_t((low_d * p_inv62) & kMask62);
  me -= int64_t((low_e * p_inv62) & kMask62);

  __int128 cd = (__int128)t.u * d.limb[0] + (__int128)t.v * e.limb[0] + (__int128)md * p.limb[0];
  __int128 ce = (__int128)t.q * d.limb[0] + (__int128)t.r * e.limb[0] + (__int128)me * p.limb[0];
  cd >>= 62;
  ce >>= 62;
  for (size_t i = 1; i < L; ++i) {
    cd += (__int128)t.u * d.limb[i] + (__int128)t.v * e.limb[i] + (__int128)md * p.limb[i];
    ce += (__int128)t.q * d.limb[i] + (__int128)t.r * e.limb[i] + (__int128)me * p.limb[i];
    d.limb[i - 1] = int64_t(uint64_t(cd) & kMask62);
    e.limb[i - 1] = int64_t(uint64_t(ce) & kMask62);
    cd >>= 62;
    ce >>= 62;
  }
  d.limb[L - 1] = int64_t(cd);
  e.limb[L - 1] = int64_t(ce);
}

// The plain modular inverse of a in [1, p) (no Montgomery factors).
template <size_t N>
inline BigInt<N> modinv_vartime(const BigInt<N>& a, const BigInt<N>& modulus, uint64_t p_inv) {
  // Enough 62-bit limbs for 64N bits and a sign.
  constexpr size_t L = 64 * N / 62 + 1;
  const Int62<L> p = to_int62<L>(modulus);
  const uint64_t p_inv62 = p_inv & kMask62;

  // Invariant: d a = f and e a = g (mod p). The loop ends with g = 0 and f = +-1.
  Int62<L> f = p, g = to_int62<L>(a);
  Int62<L> d{}, e{};
  e.limb[0] = 1;
  int64_t eta = -1;  // delta = 1
  size_t len = L;    // f and g fit in their low `len` limbs (the top one signed)
  for (;;) {
    Divsteps62 t;
    eta = divsteps62_vartime(eta, uint64_t(f.limb[0]), uint64_t(g.limb[0]), t);
    apply_to_de(t, d, e, p, p_inv62);
    apply_to_fg(t, f, g, len);

    if (g.limb[0] == 0) {
      int64_t rest = 0;
      for (size_t i = 1; i < len; ++i) rest |= g.limb[i];
      if (rest == 0) break;
    }
    // f and g only shrink: drop a top limb once both are 0 or -1 (a sign extension),
    // folding it into the new top limb as its high bits.
    const int64_t ft = f.limb[len - 1], gt = g.limb[len - 1];
    if (len > 1 && ((ft ^ (ft >> 63)) | (gt ^ (gt >> 63))) == 0) {
      f.limb[len - 2] = int64_t(uint64_t(f.limb[len - 2]) | (uint64_t(ft) << 62));
      g.limb[len - 2] = int64_t(uint64_t(g.limb[len - 2]) | (uint64_t(gt) << 62));
      --len;
    }
  }

  // d a = f = +-1: the inverse is +-d, brought from (-2p, 2p) into [0, p).
  if (f.limb[len - 1] < 0) {
    for (size_t i = 0; i < L; ++i) d.limb[i] = -d.limb[i];
    carry62(d);
  }
  while (d.is_negative()) {
    for (size_t i = 0; i < L; ++i) d.limb[i] += p.limb[i];
    carry62(d);
  }
  BigInt<N> r = from_int62<N>(d);  // < 2p < 2^(64N): the modulus leaves a spare bit
  if (!r.less_than(modulus)) r.sub_in_place(modulus);
  return r;
}

}  // namespace detail

// x^-1 (0 for 0), equal to x.inverse() but several times faster. Variable time: only for
// public values (see the header comment).
template <class F>
F inverse_vartime(const F& x) {
  if (x.is_zero()) return F::zero();
  // x is held as a = x R. The plain inverse a^-1 = x^-1 R^-1, and one Montgomery product
  // with R^3 (which divides by R) gives x^-1 R, the Montgomery form of x^-1.
  constexpr typename F::Int r3 = detail::mul_pow2_mod(F::R2, F::MODULUS, 64 * F::N);
  constexpr uint64_t p_inv = 0 - F::INV;  // F::INV is -p^-1 mod 2^64
  return F::from_mont(detail::modinv_vartime(x.mont(), F::MODULUS, p_inv)) * F::from_mont(r3);
}

// The same for Fp2: 1/x = conj(x)/norm(x), one base-field inversion.
template <class Cfg>
Fp2<Cfg> inverse_vartime(const Fp2<Cfg>& x) {
  return x.conjugate().mul_by_base(inverse_vartime(x.norm()));
}

// xs[i] <- 1 / xs[i] for every element (zeros stay zero), with one variable-time inversion
// (Montgomery's trick): for public values, any type inverse_vartime takes.
template <class F>
void batch_inverse_vartime(std::vector<F>& xs) {
  std::vector<F> prefix(xs.size());
  F acc = F::one();
  for (size_t i = 0; i < xs.size(); ++i) {
    prefix[i] = acc;
    if (!xs[i].is_zero()) acc = acc * xs[i];
  }
  F inv = inverse_vartime(acc);
  for (size_t i = xs.size(); i-- > 0;) {
    if (xs[i].is_zero()) continue;
    F x = xs[i];
    xs[i] = inv * prefix[i];
    inv = inv * x;
  }
}

}  // namespace cuzk::ff
