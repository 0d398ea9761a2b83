// The final exponentiation f -> f^((q^12 - 1)/r), split as
//   (q^12 - 1)/r = (q^6 - 1)(q^2 + 1) * (q^4 - q^2 + 1)/r.
// The easy part costs one inversion and Frobenius maps; its output lies in the cyclotomic
// subgroup, where the hard part runs on cyclotomic squarings and exponentiations by the
// curve parameter x. Both hard parts compute exactly (q^4 - q^2 + 1)/r (not a multiple),
// so the result is the standard reduced pairing.
#pragma once

#include "pairing/curve_params.hpp"
#include "pairing/frobenius.hpp"

namespace cuzk::pairing {

// f^((q^6 - 1)(q^2 + 1)). f must be non-zero (Miller loop values always are).
template <class PC>
typename PC::Fq12 final_exponentiation_easy(const typename PC::Fq12& f) {
  auto t = f.conjugate() * f.inverse();  // f^(q^6 - 1)
  return frobenius_map(t, 2) * t;
}

// f^x for f in the cyclotomic subgroup, x the signed curve parameter.
template <class PC>
typename PC::Fq12 cyclotomic_pow_x(const typename PC::Fq12& f) {
  constexpr SignedDigits x_abs = signed_digits(PC::X_ABS);
  auto r = cyclotomic_pow(f, x_abs);
  if constexpr (PC::X_NEGATIVE) r = r.conjugate();
  return r;
}

// BN: (q^4 - q^2 + 1)/r = l0 + l1 q + l2 q^2 + l3 q^3 with
//   l0 = -36x^3 - 30x^2 - 18x - 2, l1 = -36x^3 - 18x^2 - 12x + 1, l2 = 6x^2 + 1, l3 = 1,
// evaluated with the addition chain of Scott et al., "On the final exponentiation for
// calculating pairings on ordinary elliptic curves" (Pairing 2009), section 5:
// y0..y6 carry the exponents 1, 2, 6, 12, 18, 30, 36 of the vector chain.
template <class PC>
typename PC::Fq12 final_exponentiation_hard_bn(const typename PC::Fq12& f) {
  auto fx = cyclotomic_pow_x<PC>(f);
  auto fx2 = cyclotomic_pow_x<PC>(fx);
  auto fx3 = cyclotomic_pow_x<PC>(fx2);
  auto y0 = frobenius_map(f, 1) * frobenius_map(f, 2) * frobenius_map(f, 3);
  auto y1 = f.conjugate();
  auto y2 = frobenius_map(fx2, 2);
  auto y3 = frobenius_map(fx, 1).conjugate();
  auto y4 = (fx * frobenius_map(fx2, 1)).conjugate();
  auto y5 = fx2.conjugate();
  auto y6 = (fx3 * frobenius_map(fx3, 1)).conjugate();
  auto t0 = cyclotomic_square(y6) * y4 * y5;
  auto t1 = y3 * y5 * t0;
  t0 = t0 * y2;
  t1 = cyclotomic_square(t1) * t0;
  t1 = cyclotomic_square(t1);
  t0 = t1 * y1;
  t1 = t1 * y0;
  t0 = cyclotomic_square(t0);
  return t0 * t1;
}

// BLS12: (q^4 - q^2 + 1)/r = l3 (q^3 + x q^2 + (x^2 - 1) q + x^3 - x) + 1 with
// l3 = (x - 1)^2 / 3, an integer because x = 1 mod 3. With a = f^((x-1)/3 * (x-1)) the
// rest is three exponentiations by x and Frobenius maps. (The common shortcut of
// computing 3 (q^4 - q^2 + 1)/r instead would give the cube of the pairing.)
template <class PC>
typename PC::Fq12 final_exponentiation_hard_bls12(const typename PC::Fq12& f) {
  static_assert(PC::X_NEGATIVE, "written for x < 0, where x - 1 = -(|x| + 1)");
  static_assert((PC::X_ABS + 1) % 3 == 0, "x must be 1 mod 3");
  constexpr SignedDigits third = signed_digits((PC::X_ABS + 1) / 3);
  constexpr SignedDigits x_abs = signed_digits(PC::X_ABS);
  // (x-1)^2/3 = ((|x|+1)/3) (|x|+1): a sign squared away.
  auto g = cyclotomic_pow(f, third);
  auto a = cyclotomic_pow(g, x_abs) * g;
  auto b = cyclotomic_pow_x<PC>(a);  // a^x
  auto c = cyclotomic_pow_x<PC>(b);  // a^(x^2)
  auto d = cyclotomic_pow_x<PC>(c);  // a^(x^3)
  auto r = d * b.conjugate() * f;
  r = r * frobenius_map(c * a.conjugate(), 1);
  r = r * frobenius_map(b, 2);
  return r * frobenius_map(a, 3);
}

// The power of the reduced pairing that @noble/curves and snarkjs (ffjavascript) return
// (checked against both): they evaluate a multiple of the hard exponent that has a
// shorter addition chain. Any fixed power coprime to r is as good a pairing; these exist
// so that cuzk can reproduce those libraries' Fq12 values exactly.
//
// BN: 2x(6x^2 + 3x + 1) (q^4 - q^2 + 1)/r = l0 + l1 q + l2 q^2 + l3 q^3 with
//   A = 12x^3 + 6x^2 + 4x, l0 = A + 6x^2 + 2x + 1, l1 = A, l2 = A + 2x, l3 = A - 1
// (Fuentes-Castaneda, Knapp and Rodriguez-Henriquez, SAC 2011).
template <class PC>
typename PC::Fq12 final_exponentiation_hard_bn_compat(const typename PC::Fq12& f) {
  auto fx = cyclotomic_pow_x<PC>(f);
  auto fx2 = cyclotomic_pow_x<PC>(fx);
  auto fx3 = cyclotomic_pow_x<PC>(fx2);
  auto f2x = cyclotomic_square(fx);
  auto y = cyclotomic_square(fx3) * fx2;                                          // f^(2x^3 + x^2)
  auto a = cyclotomic_square(cyclotomic_square(y) * y) * cyclotomic_square(f2x);  // f^A
  auto f6x2 = cyclotomic_square(cyclotomic_square(fx2) * fx2);
  auto a2x = a * f2x;
  auto r = a2x * f6x2 * f;
  r = r * frobenius_map(a, 1);
  r = r * frobenius_map(a2x, 2);
  return r * frobenius_map(a * f.conjugate(), 3);
}

// BLS12: 3 (q^4 - q^2 + 1)/r = (x - 1)^2 (x + q) (x^2 + q^2 - 1) + 3, which needs only
// exponentiations by x: the cube of the pairing. pow_x(f) computes f^x (any way).
template <class PC, class PowX>
typename PC::Fq12 final_exponentiation_hard_bls12_compat(const typename PC::Fq12& f, PowX pow_x) {
  auto u = pow_x(f) * f.conjugate();  // f^(x-1)
  auto a = pow_x(u) * u.conjugate();  // f^((x-1)^2)
  auto b = pow_x(a) * frobenius_map(a, 1);
  auto c = pow_x(pow_x(b)) * frobenius_map(b, 2) * b.conjugate();
  return c * cyclotomic_square(f) * f;
}
template <class PC>
typename PC::Fq12 final_exponentiation_hard_bls12_compat(const typename PC::Fq12& f) {
  return final_exponentiation_hard_bls12_compat<PC>(f, cyclotomic_pow_x<PC>);
}

template <class PC>
typename PC::Fq12 final_exponentiation_compat(const typename PC::Fq12& f) {
  auto e = final_exponentiation_easy<PC>(f);
  if constexpr (PC::FAMILY == Family::BN) {
    return final_exponentiation_hard_bn_compat<PC>(e);
  } else {
    return final_exponentiation_hard_bls12_compat<PC>(e);
  }
}

template <class PC>
typename PC::Fq12 final_exponentiation(const typename PC::Fq12& f) {
  auto e = final_exponentiation_easy<PC>(f);
  if constexpr (PC::FAMILY == Family::BN) {
    return final_exponentiation_hard_bn<PC>(e);
  } else {
    return final_exponentiation_hard_bls12<PC>(e);
  }
}

// Compiled once, in pairing.cpp (as miller_loop).
extern template bn254::Fq12 final_exponentiation<Bn254Pairing>(const bn254::Fq12&);
extern template bls12_381::Fq12 final_exponentiation<Bls12381Pairing>(const bls12_381::Fq12&);
extern template bn254::Fq12 final_exponentiation_compat<Bn254Pairing>(const bn254::Fq12&);
extern template bls12_381::Fq12 final_exponentiation_compat<Bls12381Pairing>(const bls12_381::Fq12&);

}  // namespace cuzk::pairing
