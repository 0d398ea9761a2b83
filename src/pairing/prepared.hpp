// Miller loops with fixed G2 points prepared in advance, for verifying many proofs against
// one key. A fixed G2 point's walk through the loop (the doublings, the additions and, on
// BN, the Frobenius lines) does not depend on the G1 point it is paired with, so its line
// coefficients are computed once; each later loop only evaluates them at its G1 point.
//
// The lines are the ones miller_loop (miller_loop.hpp) computes, in its order, possibly
// scaled by factors the final exponentiation removes (G2Prepared): miller_loop_prepared
// returns miller_loop's value for the same pairs up to such factors, exactly when no
// prepared point is scaled.
#pragma once

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "ec/endomorphism.hpp"
#include "ff/inverse.hpp"
#include "pairing/curve_params.hpp"
#include "pairing/miller_loop.hpp"

namespace cuzk::pairing {

// A G2 point's Miller-loop lines, in the order the loop multiplies them in.
// No lines: the point at infinity, whose pairs contribute 1.
//
// On the M-type twist (BLS12-381) each line a yP + b xP + c is stored divided by c, a
// factor in Fq2 that the final exponentiation removes: its constant coefficient is then
// one, and multiplying it into the accumulator takes 9 Fq2 products instead of 13. A line
// with c = 0 cannot be scaled so (none occurs for points of order r; a key could still
// hold another point), and then the point keeps its lines as computed (`scaled` false).
template <class PC>
struct G2Prepared {
  std::vector<Line<PC>> lines;
  bool scaled = false;
  bool is_infinity() const { return lines.empty(); }
};

// The scaled form is chosen when possible; allow_scaling = false keeps the lines as
// computed (for tests of that form).
template <class PC>
G2Prepared<PC> prepare_g2(const typename PC::G2Affine& q, bool allow_scaling = true) {
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
  if constexpr (PC::TWIST == Twist::M) {
    if (!allow_scaling ||
        std::any_of(out.lines.begin(), out.lines.end(), [](const Line<PC>& l) { return l.c.is_zero(); })) {
      return out;
    }
    std::vector<typename PC::Fq2> c(out.lines.size());
    for (size_t i = 0; i < c.size(); ++i) c[i] = out.lines[i].c;
    ff::batch_inverse_vartime(c);
    for (size_t i = 0; i < c.size(); ++i) out.lines[i] = {out.lines[i].a * c[i], out.lines[i].b * c[i], PC::Fq2::one()};
    out.scaled = true;
  }
  return out;
}

// f * (1 + d1 v + d4 v w): an M-type line scaled to constant coefficient one.
template <class Cfg>
CUZK_INLINE ff::Fp12<Cfg> mul_by_14(const ff::Fp12<Cfg>& f, const ff::Fp2<Cfg>& d1, const ff::Fp2<Cfg>& d4) {
  auto t0 = f.c0 + mul_by_1(f.c0, d1);
  auto t1 = mul_by_1(f.c1, d4);
  auto s = f.c0 + f.c1;
  auto c1 = s + mul_by_1(s, d1 + d4) - t0 - t1;
  return {t0 + t1.mul_by_nonresidue(), c1};
}

template <class PC>
CUZK_PAIRING_STEP typename PC::Fq12 mul_by_prepared_line(const typename PC::Fq12& f, const Line<PC>& l, bool scaled,
                                                         const typename PC::Fq& xp, const typename PC::Fq& yp) {
  if constexpr (PC::TWIST == Twist::M) {
    if (scaled) return mul_by_14(f, l.b.mul_by_base(xp), l.a.mul_by_base(yp));
  }
  return mul_by_line<PC>(f, l, xp, yp);
}

template <class PC>
using PreparedPair = std::pair<typename PC::G1Affine, const G2Prepared<PC>*>;

// f_{Q}(P) * prod_i f_{Q_i}(P_i) before the final exponentiation, for one pair (P, Q) whose
// G2 point is not known in advance and pairs (P_i, Q_i) with Q_i prepared: equal to
// miller_loop over all of them, up to the factors of scaled lines. Pairs with a point at
// infinity contribute 1. `walk`, if given, receives where Q's walk ended before any
// Frobenius lines: [loop] Q (see g2_in_subgroup_from_walk), when P and Q are finite.
template <class PC>
typename PC::Fq12 miller_loop_prepared(const typename PC::G1Affine& p, const typename PC::G2Affine& q,
                                       std::span<const PreparedPair<PC>> fixed, G2Projective<PC>* walk = nullptr) {
  using Fq12 = typename PC::Fq12;
  const bool with_var = !p.is_infinity() && !q.is_infinity();
  const typename PC::G2Affine neg_q{q.x, -q.y};
  G2Projective<PC> t{q.x, q.y, PC::Fq2::one()};
  struct Fixed {
    typename PC::Fq xp, yp;
    const Line<PC>* line;
    bool scaled;
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
    fs[n++] = {pi.x, pi.y, qi->lines.data(), qi->scaled};
  }
  Fq12 f = Fq12::one();
  if (!with_var && n == 0) return f;

  auto fixed_lines = [&] {
    for (size_t k = 0; k < n; ++k) f = mul_by_prepared_line<PC>(f, *fs[k].line++, fs[k].scaled, fs[k].xp, fs[k].yp);
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
  if (walk != nullptr) *walk = t;
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

// BLS12: whether Q (on the twist, not at infinity) is in G2, from the walk T that
// miller_loop_prepared left for it: Scott's test psi(Q) == [x]Q (ec/subgroup.hpp) with
// [x]Q = -[|x|]Q = -T, so the check costs no scalar multiplication of its own. The loop's
// steps are incomplete formulas, but each one that meets a special case (T at infinity, of
// order 2, or equal to +-Q, none of which happens to a point of order r) sets Z to zero
// for good, so a walk with Z != 0 is the true [|x|]Q; one with Z = 0 means Q is not in G2.
template <class PC>
bool g2_in_subgroup_from_walk(const typename PC::G2Affine& q, const G2Projective<PC>& t) {
  static_assert(PC::FAMILY == Family::BLS12 && PC::X_NEGATIVE, "the BLS12 loop walks to [|x|]Q");
  if (t.z.is_zero()) return false;
  const auto psi_q = bls12_381::psi(q);
  return t.x == psi_q.x * t.z && -t.y == psi_q.y * t.z;
}

// Compiled once, in prepared.cpp (as miller_loop in pairing.cpp).
extern template G2Prepared<Bn254Pairing> prepare_g2<Bn254Pairing>(const bn254::G2Affine&, bool);
extern template G2Prepared<Bls12381Pairing> prepare_g2<Bls12381Pairing>(const bls12_381::G2Affine&, bool);
extern template bn254::Fq12 miller_loop_prepared<Bn254Pairing>(const bn254::G1Affine&, const bn254::G2Affine&,
                                                               std::span<const PreparedPair<Bn254Pairing>>,
                                                               G2Projective<Bn254Pairing>*);
extern template bls12_381::Fq12 miller_loop_prepared<Bls12381Pairing>(const bls12_381::G1Affine&,
                                                                      const bls12_381::G2Affine&,
                                                                      std::span<const PreparedPair<Bls12381Pairing>>,
                                                                      G2Projective<Bls12381Pairing>*);

}  // namespace cuzk::pairing
