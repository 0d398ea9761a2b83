// The final exponentiation as a verifier needs it: only whether f^((q^12 - 1)/r) is one,
// for a public f. That allows a cheaper power of the pairing (one coprime to r), the
// variable-time inversion, and on BLS12-381 exponentiations by x in Karabina's compressed
// form (x has six non-zero bits: 63 squarings of which only the ones kept are expanded).
#pragma once

#include <vector>

#include "ff/inverse.hpp"
#include "pairing/curve_params.hpp"
#include "pairing/final_exponentiation.hpp"
#include "pairing/frobenius.hpp"

namespace cuzk::pairing {

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

// Karabina, "Squaring in cyclotomic subgroups" (Math. Comp. 2013): an element of the
// cyclotomic subgroup is determined (almost always) by its coefficients of w, w^2, w^4 and
// w^5, and those four square among themselves. With A1 = (w^1, w^4) and A2 = (w^2, w^5)
// as in cyclotomic_square, one squaring is two Fq4 squarings (six Fq2 squarings instead
// of nine); the coefficients of w^0 and w^3 are recovered at the end.
template <class Cfg>
struct CompressedFq12 {
  ff::Fp2<Cfg> z1, z2, z4, z5;  // the coefficients of w^1, w^2, w^4, w^5
};

template <class Cfg>
CompressedFq12<Cfg> compress(const ff::Fp12<Cfg>& x) {
  return {x.c1.c0, x.c0.c1, x.c0.c2, x.c1.c2};
}

// The A1, A2 half of cyclotomic_square (frobenius.hpp), term for term.
template <class Cfg>
CompressedFq12<Cfg> compressed_square(const CompressedFq12<Cfg>& x) {
  using F2 = ff::Fp2<Cfg>;
  F2 s10, s11, s20, s21;
  fq4_square(x.z1, x.z4, s10, s11);
  fq4_square(x.z2, x.z5, s20, s21);
  auto minus = [](const F2& t, const F2& c) { return (t - c).dbl() + t; };
  auto plus = [](const F2& t, const F2& c) { return (t + c).dbl() + t; };
  return {plus(s21.mul_by_nonresidue(), x.z1), minus(s10, x.z2), minus(s20, x.z4), plus(s11, x.z5)};
}

// The full elements back, with one inversion for all (Karabina, theorem 3.1):
//   z3 = (xi z5^2 + 3 z2^2 - 2 z4) / (4 z1)   if z1 != 0,   2 z2 z5 / z4 otherwise;
//   z0 = xi (2 z3^2 + z1 z5 - 3 z2 z4) + 1.
// z1 = z4 = 0 only for the element one, which the formulas then give (z3 = 0).
template <class Cfg>
std::vector<ff::Fp12<Cfg>> decompress(const std::vector<CompressedFq12<Cfg>>& xs) {
  using F2 = ff::Fp2<Cfg>;
  const size_t n = xs.size();
  std::vector<F2> num(n), den(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& x = xs[i];
    if (!x.z1.is_zero()) {
      const F2 z2z2 = x.z2.square();
      num[i] = x.z5.square().mul_by_nonresidue() + z2z2.dbl() + z2z2 - x.z4.dbl();
      den[i] = x.z1.dbl().dbl();
    } else if (!x.z4.is_zero()) {
      num[i] = (x.z2 * x.z5).dbl();
      den[i] = x.z4;
    } else {
      num[i] = F2::zero();
      den[i] = F2::one();
    }
  }
  ff::batch_inverse_vartime(den);
  std::vector<ff::Fp12<Cfg>> out(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& x = xs[i];
    F2 z3 = num[i] * den[i];
    F2 z2z4 = x.z2 * x.z4;
    F2 z0 = (z3.square().dbl() + x.z1 * x.z5 - z2z4.dbl() - z2z4).mul_by_nonresidue() + F2::one();
    out[i] = {{z0, x.z2, x.z4}, {x.z1, z3, x.z5}};
  }
  return out;
}

// f^x for f in the cyclotomic subgroup by compressed squarings: f^(2^k) is kept (compressed)
// for each non-zero digit k of |x|, all are expanded together and multiplied.
template <class PC>
typename PC::Fq12 cyclotomic_pow_x_compressed(const typename PC::Fq12& f) {
  using Cfg = typename PC::Cfg;
  constexpr SignedDigits x_abs = signed_digits(PC::X_ABS);
  std::vector<CompressedFq12<Cfg>> kept;
  std::vector<int8_t> sign;
  typename PC::Fq12 r = PC::Fq12::one();
  if (x_abs.digit[0] != 0) r = x_abs.digit[0] > 0 ? f : f.conjugate();
  auto c = compress(f);
  for (size_t k = 1; k < x_abs.len; ++k) {
    c = compressed_square(c);
    if (x_abs.digit[k] == 0) continue;
    kept.push_back(c);
    sign.push_back(x_abs.digit[k]);
  }
  const auto full = decompress(kept);
  for (size_t i = 0; i < full.size(); ++i) r = r * (sign[i] > 0 ? full[i] : full[i].conjugate());
  if constexpr (PC::X_NEGATIVE) r = r.conjugate();
  return r;
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
    return final_exponentiation_hard_bls12_compat<PC>(e, cyclotomic_pow_x_compressed<PC>).is_one();
  }
}

// Compiled once, in prepared.cpp.
extern template bool final_exponentiation_is_one<Bn254Pairing>(const bn254::Fq12&);
extern template bool final_exponentiation_is_one<Bls12381Pairing>(const bls12_381::Fq12&);

}  // namespace cuzk::pairing
