// The optimal ate Miller loop over many (G1, G2) pairs at once, sharing one chain of
// Fq12 squarings. G2 points walk in homogeneous projective coordinates on the twist, so
// no inversion is needed; each line has only three non-zero Fq2 coefficients and is
// multiplied into the accumulator sparsely.
//
// Lines are computed up to factors in Fq4 or Fq6 (a common Fq2 scale, w^3 for the M-type
// twist, the vertical lines): the final exponentiation sends all of them to 1.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "pairing/curve_params.hpp"
#include "pairing/frobenius.hpp"

// The loop's steps (a doubling or an addition, a line times the accumulator) are functions
// of their own, one copy per curve. The tower arithmetic inside them is forced inline
// (CUZK_INLINE); inlining the steps too put every step's hundreds of field products into
// each loop, once per call site: BN254's miller_loop and miller_loop_prepared were 380 KB
// of machine code each, and their two files the slowest host compile of the tree
// (docs/TESTING.md, "CI time"). The loops are no slower for the calls (BENCHMARKS.md,
// "The Miller loop's steps out of line").
#define CUZK_PAIRING_STEP [[gnu::noinline]]

namespace cuzk::pairing {

template <class PC>
struct G2Projective {
  using Fq2 = typename PC::Fq2;
  Fq2 x, y, z;  // (x/z, y/z) on the twist
};

// A line through points of the twist evaluated at P = (xP, yP) in E(Fq) is
//   a*yP + b*xP (times w for D, v for M) + c (times w^3 for D, 1 for M),
// up to a factor the final exponentiation removes; the step functions return (a, b, c).
template <class PC>
struct Line {
  typename PC::Fq2 a, b, c;
};

// a * (b0 + b1 v) in Fq6: five Fq2 multiplications instead of six.
template <class Cfg>
CUZK_INLINE ff::Fp6<Cfg> mul_by_01(const ff::Fp6<Cfg>& a, const ff::Fp2<Cfg>& b0, const ff::Fp2<Cfg>& b1) {
  auto t0 = a.c0 * b0;
  auto t1 = a.c1 * b1;
  auto r0 = (a.c2 * b1).mul_by_nonresidue() + t0;
  auto r1 = (a.c0 + a.c1) * (b0 + b1) - t0 - t1;
  auto r2 = (a.c0 + a.c2) * b0 - t0 + t1;
  return {r0, r1, r2};
}

// a * (b1 v) in Fq6.
template <class Cfg>
CUZK_INLINE ff::Fp6<Cfg> mul_by_1(const ff::Fp6<Cfg>& a, const ff::Fp2<Cfg>& b1) {
  return {(a.c2 * b1).mul_by_nonresidue(), a.c0 * b1, a.c1 * b1};
}

// f * (d0 + d3 w + d4 w^3): the shape of a D-type line (Fq12 coefficients 0, 3, 4).
template <class Cfg>
CUZK_INLINE ff::Fp12<Cfg> mul_by_034(const ff::Fp12<Cfg>& f, const ff::Fp2<Cfg>& d0, const ff::Fp2<Cfg>& d3,
                                     const ff::Fp2<Cfg>& d4) {
  auto t0 = f.c0.mul_by_fp2(d0);
  auto t1 = mul_by_01(f.c1, d3, d4);
  auto c1 = mul_by_01(f.c0 + f.c1, d0 + d3, d4) - t0 - t1;
  return {t0 + t1.mul_by_nonresidue(), c1};
}

// f * (d0 + d1 v + d4 v w): the shape of an M-type line (Fq12 coefficients 0, 1, 4).
template <class Cfg>
CUZK_INLINE ff::Fp12<Cfg> mul_by_014(const ff::Fp12<Cfg>& f, const ff::Fp2<Cfg>& d0, const ff::Fp2<Cfg>& d1,
                                     const ff::Fp2<Cfg>& d4) {
  auto t0 = mul_by_01(f.c0, d0, d1);
  auto t1 = mul_by_1(f.c1, d4);
  auto c1 = mul_by_01(f.c0 + f.c1, d0, d1 + d4) - t0 - t1;
  return {t0 + t1.mul_by_nonresidue(), c1};
}

// T <- 2T and the tangent line at T. With b' the twist coefficient and the formulas of
// Costello, Lange and Naehrig (PKC 2010) scaled by 4 so that nothing is halved:
//   X' = 2XY (Y^2 - 9b'Z^2), Y' = (Y^2 + 9b'Z^2)^2 - 108 b'^2 Z^4, Z' = 8 Y^3 Z,
//   line = -2YZ yP + 3X^2 xP + (3b'Z^2 - Y^2).
template <class PC>
CUZK_PAIRING_STEP Line<PC> double_step(G2Projective<PC>& t) {
  using Fq2 = typename PC::Fq2;
  Fq2 xx = t.x.square();
  Fq2 yy = t.y.square();
  Fq2 zz = t.z.square();
  Fq2 e = PC::mul_by_3b(zz);
  Fq2 f = e.dbl() + e;
  Fq2 h = (t.y + t.z).square() - yy - zz;  // 2YZ
  Fq2 e2 = e.square();
  Line<PC> l{-h, xx.dbl() + xx, e - yy};
  t.x = (t.x * t.y).dbl() * (yy - f);
  t.y = (yy + f).square() - (e2.dbl() + e2).dbl().dbl();
  t.z = (yy * h).dbl().dbl();
  return l;
}

// T <- T + Q for affine Q and the line through them (Costello, Lange, Naehrig):
//   theta = Y - yQ Z, lambda = X - xQ Z,
//   line = lambda yP - theta xP + (theta xQ - lambda yQ).
template <class PC>
CUZK_PAIRING_STEP Line<PC> add_step(G2Projective<PC>& t, const typename PC::G2Affine& q) {
  using Fq2 = typename PC::Fq2;
  Fq2 theta = t.y - q.y * t.z;
  Fq2 lambda = t.x - q.x * t.z;
  Fq2 c = theta.square();
  Fq2 d = lambda.square();
  Fq2 e = lambda * d;
  Fq2 f = t.z * c;
  Fq2 g = t.x * d;
  Fq2 h = e + f - g.dbl();
  Line<PC> l{lambda, -theta, theta * q.x - lambda * q.y};
  t.x = lambda * h;
  t.y = theta * (g - h) - e * t.y;
  t.z = t.z * e;
  return l;
}

template <class PC>
CUZK_PAIRING_STEP typename PC::Fq12 mul_by_line(const typename PC::Fq12& f, const Line<PC>& l,
                                                const typename PC::Fq& xp, const typename PC::Fq& yp) {
  auto ay = l.a.mul_by_base(yp);
  auto bx = l.b.mul_by_base(xp);
  if constexpr (PC::TWIST == Twist::D) {
    return mul_by_034(f, ay, bx, l.c);
  } else {
    return mul_by_014(f, l.c, bx, ay);
  }
}

// The q-power Frobenius endomorphism carried to the D-type twist:
// (x, y) -> (conj(x) xi^((q-1)/3), conj(y) xi^((q-1)/2)).
template <class PC>
typename PC::G2Affine twist_frobenius(const typename PC::G2Affine& q) {
  static_assert(PC::TWIST == Twist::D, "only the D-type (BN254) loop uses Frobenius lines");
  const auto& g = FrobeniusCoeffs<typename PC::Cfg>::get().gamma[0];
  return {q.x.conjugate() * g[2], q.y.conjugate() * g[3]};
}

// prod_i f_{loop, Q_i}(P_i), with the curve's final lines, before the final exponentiation.
// Pairs with P or Q at infinity contribute 1.
template <class PC>
typename PC::Fq12 miller_loop(std::span<const std::pair<typename PC::G1Affine, typename PC::G2Affine>> pairs) {
  using Fq12 = typename PC::Fq12;
  struct State {
    typename PC::Fq xp, yp;
    typename PC::G2Affine q, neg_q;
    G2Projective<PC> t;
  };
  std::vector<State> st;
  st.reserve(pairs.size());
  for (const auto& [p, q] : pairs) {
    if (p.is_infinity() || q.is_infinity()) continue;
    st.push_back({p.x, p.y, q, {q.x, -q.y}, {q.x, q.y, PC::Fq2::one()}});
  }
  Fq12 f = Fq12::one();
  if (st.empty()) return f;

  constexpr SignedDigits loop = PC::LOOP;
  for (size_t i = loop.len - 1; i-- > 0;) {
    if (i != loop.len - 2) f = f.square();
    for (auto& s : st) f = mul_by_line<PC>(f, double_step<PC>(s.t), s.xp, s.yp);
    if (loop.digit[i] == 0) continue;
    for (auto& s : st) f = mul_by_line<PC>(f, add_step<PC>(s.t, loop.digit[i] > 0 ? s.q : s.neg_q), s.xp, s.yp);
  }
  if constexpr (PC::FAMILY == Family::BN) {
    for (auto& s : st) {
      auto q1 = twist_frobenius<PC>(s.q);
      auto q2 = twist_frobenius<PC>(q1);
      q2.y = -q2.y;
      f = mul_by_line<PC>(f, add_step<PC>(s.t, q1), s.xp, s.yp);
      f = mul_by_line<PC>(f, add_step<PC>(s.t, q2), s.xp, s.yp);
    }
  }
  if constexpr (PC::X_NEGATIVE) f = f.conjugate();
  return f;
}

// Compiled once, in pairing.cpp: every user of the two curves' loops links that copy
// instead of compiling the whole inlined tower again.
extern template bn254::Fq12 miller_loop<Bn254Pairing>(std::span<const std::pair<bn254::G1Affine, bn254::G2Affine>>);
extern template bls12_381::Fq12 miller_loop<Bls12381Pairing>(
    std::span<const std::pair<bls12_381::G1Affine, bls12_381::G2Affine>>);

}  // namespace cuzk::pairing
