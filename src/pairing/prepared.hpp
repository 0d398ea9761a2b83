// Miller loops with fixed G2 points prepared in advance, for verifying many proofs against
// one key. A fixed G2 point's walk through the loop (the doublings, the additions and, on
// BN, the Frobenius lines) does not depend on the G1 point it is paired with, so its line
// coefficients are computed once; each later loop only evaluates them at its G1 point.
//
// The lines are the ones miller_loop (miller_loop.hpp) computes, in its order, so
// miller_loop_prepared returns exactly miller_loop's value for the same pairs.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "ff/inverse.hpp"
#include "pairing/curve_params.hpp"
#include "pairing/final_exponentiation.hpp"
#include "pairing/miller_loop.hpp"

namespace cuzk::pairing {

// A G2 point's Miller-loop lines, in the order the loop multiplies them in.
// No lines: the point at infinity, whose pairs contribute 1.
template <class PC>
struct G2Prepared {
  std::vector<Line<PC>> lines;
  bool is_infinity() const { return lines.empty(); }
};

template <class PC>
G2Prepared<PC> prepare_g2(const typename PC::G2Affine& q) {
  G2Prepared<PC> out;
  if (q.is_infinity()) return out;
  const typename PC::G2Affine neg_q{q.x, -q.y};
  G2Projective<PC> t{q.x, q.y, PC::Fq2::one()};
  constexpr SignedDigits loop = PC::LOOP;
  for (size_t i = loop.len - 1; i-- > 0;) {
    out.lines.push_back(double_step<PC>(t));
    if (loop.digit[i] != 0) out.lines.push_back(add_step<PC>(t, loop.digit[i] > 0 ? q : neg_q));
  }
  if constexpr (PC::FAMILY == Family::BN) {
    auto q1 = twist_frobenius<PC>(q);
    auto q2 = twist_frobenius<PC>(q1);
    q2.y = -q2.y;
    out.lines.push_back(add_step<PC>(t, q1));
    out.lines.push_back(add_step<PC>(t, q2));
  }
  return out;
}

template <class PC>
using PreparedPair = std::pair<typename PC::G1Affine, const G2Prepared<PC>*>;

// f_{Q}(P) * prod_i f_{Q_i}(P_i) before the final exponentiation, for one pair (P, Q) whose
// G2 point is not known in advance and pairs (P_i, Q_i) with Q_i prepared: equal to
// miller_loop over all of them. Pairs with a point at infinity contribute 1.
template <class PC>
typename PC::Fq12 miller_loop_prepared(const typename PC::G1Affine& p, const typename PC::G2Affine& q,
                                       std::span<const PreparedPair<PC>> fixed) {
  using Fq12 = typename PC::Fq12;
  const bool with_var = !p.is_infinity() && !q.is_infinity();
  const typename PC::G2Affine neg_q{q.x, -q.y};
  G2Projective<PC> t{q.x, q.y, PC::Fq2::one()};
  struct Fixed {
    typename PC::Fq xp, yp;
    const Line<PC>* line;
  };
  Fixed st[4];
  std::vector<Fixed> more;
  Fixed* fs = st;
  if (fixed.size() > 4) {
    more.resize(fixed.size());
    fs = more.data();
  }
  size_t n = 0;
  for (const auto& [pi, qi] : fixed) {
    if (pi.is_infinity() || qi->is_infinity()) continue;
    fs[n++] = {pi.x, pi.y, qi->lines.data()};
  }
  Fq12 f = Fq12::one();
  if (!with_var && n == 0) return f;

  auto fixed_lines = [&] {
    for (size_t k = 0; k < n; ++k) f = mul_by_line<PC>(f, *fs[k].line++, fs[k].xp, fs[k].yp);
  };
  constexpr SignedDigits loop = PC::LOOP;
  for (size_t i = loop.len - 1; i-- > 0;) {
    if (i != loop.len - 2) f = f.square();
    if (with_var) f = mul_by_line<PC>(f, double_step<PC>(t), p.x, p.y);
    fixed_lines();
    if (loop.digit[i] == 0) continue;
    if (with_var) f = mul_by_line<PC>(f, add_step<PC>(t, loop.digit[i] > 0 ? q : neg_q), p.x, p.y);
    fixed_lines();
  }
  if constexpr (PC::FAMILY == Family::BN) {
    if (with_var) {
      auto q1 = twist_frobenius<PC>(q);
      auto q2 = twist_frobenius<PC>(q1);
      q2.y = -q2.y;
      f = mul_by_line<PC>(f, add_step<PC>(t, q1), p.x, p.y);
      f = mul_by_line<PC>(f, add_step<PC>(t, q2), p.x, p.y);
    }
    fixed_lines();
    fixed_lines();
  }
  if constexpr (PC::X_NEGATIVE) f = f.conjugate();
  return f;
}

// 1/f in Fq12 with a variable-time base-field inversion (ff/inverse.hpp): for public values.
template <class Cfg>
ff::Fp12<Cfg> inverse_vartime(const ff::Fp12<Cfg>& x) {
  using F6 = ff::Fp6<Cfg>;
  using F2 = ff::Fp2<Cfg>;
  const F6 d = x.c0.square() - x.c1.square().mul_by_nonresidue();  // the norm to Fq6
  const F2 a = d.c0.square() - (d.c1 * d.c2).mul_by_nonresidue();
  const F2 b = d.c2.square().mul_by_nonresidue() - d.c0 * d.c1;
  const F2 c = d.c1.square() - d.c0 * d.c2;
  const F2 fi = ff::inverse_vartime(d.c0 * a + (d.c2 * b + d.c1 * c).mul_by_nonresidue());
  const F6 di{a * fi, b * fi, c * fi};
  return {x.c0 * di, -(x.c1 * di)};
}

// Whether f^((q^12 - 1)/r) == 1, for a public f != 0 (a verifier's Miller-loop value).
// It raises f to the cheapest power of the reduced pairing instead (final_exponentiation_
// compat: e^3 on BLS12, e^(2x(6x^2 + 3x + 1)) on BN254): that power is coprime to r and
// e lies in the group of r-th roots of unity, so it is one exactly when e is.
template <class PC>
bool final_exponentiation_is_one(const typename PC::Fq12& f) {
  auto t = f.conjugate() * inverse_vartime(f);  // f^(q^6 - 1)
  auto e = frobenius_map(t, 2) * t;
  if constexpr (PC::FAMILY == Family::BN) {
    return final_exponentiation_hard_bn_compat<PC>(e).is_one();
  } else {
    return final_exponentiation_hard_bls12_compat<PC>(e).is_one();
  }
}

}  // namespace cuzk::pairing
