// Frobenius maps x -> x^(q^k) on Fq6 and Fq12, and the cyclotomic-subgroup helpers
// (squaring, exponentiation by a public constant) the final exponentiation is built from.
//
// In the tower Fq12 = Fq2[w]/(w^6 - xi) the six Fq2 coefficients sit on the powers
// w^0, w^2, w^4 (Fq12.c0 = Fq6 over v = w^2) and w^1, w^3, w^5 (Fq12.c1). Since
// (c w^i)^(q^k) = c^(q^k) w^i xi^(i (q^k - 1)/6), a Frobenius map is a conjugation (odd k)
// and one constant per coefficient. The constants are derived at first use from xi and q
// by exponentiation, so no hand-typed table can be wrong.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fields.hpp"

namespace cuzk::pairing {

namespace detail {

// x / d for a small d; `rem` receives x mod d.
template <size_t N>
constexpr ff::BigInt<N> div_small(const ff::BigInt<N>& x, uint64_t d, uint64_t& rem) {
  ff::BigInt<N> q{};
  unsigned __int128 r = 0;
  for (size_t i = N; i-- > 0;) {
    unsigned __int128 cur = (r << 64) | x.limb[i];
    q.limb[i] = uint64_t(cur / d);
    r = cur % d;
  }
  rem = uint64_t(r);
  return q;
}

}  // namespace detail

// gamma[k-1][i] = xi^(i (q^k - 1) / 6) for k = 1, 2, 3 and i = 0..5.
template <class Cfg>
struct FrobeniusCoeffs {
  using F2 = ff::Fp2<Cfg>;
  F2 gamma[3][6];

  static const FrobeniusCoeffs& get() {
    static const FrobeniusCoeffs coeffs = compute();
    return coeffs;
  }

 private:
  static FrobeniusCoeffs compute() {
    using Fq = typename Cfg::Fq;
    uint64_t rem = 0;
    auto q_minus_1 = Fq::MODULUS;
    q_minus_1.sub_in_place(decltype(q_minus_1)::from_u64(1));
    auto e = detail::div_small(q_minus_1, 6, rem);  // q = 1 mod 6 for both curves
    F2 xi(Fq::from_u64(Cfg::XI_C0), Fq::from_u64(Cfg::XI_C1));
    F2 g = xi.pow(e);
    FrobeniusCoeffs c;
    F2 acc = F2::one();
    for (size_t i = 0; i < 6; ++i) {
      c.gamma[0][i] = acc;
      acc = acc * g;
    }
    // xi^(i (q^k - 1)/6) = (xi^(i (q^(k-1) - 1)/6))^q * xi^(i (q - 1)/6), and x^q is the
    // conjugate on Fq2.
    for (size_t k = 1; k < 3; ++k) {
      for (size_t i = 0; i < 6; ++i) c.gamma[k][i] = c.gamma[k - 1][i].conjugate() * c.gamma[0][i];
    }
    return c;
  }
};

// x^(q^k) for k in 1..3 (k = 0 returns x; larger k reduce mod 6 by the caller's care).
template <class Cfg>
ff::Fp6<Cfg> frobenius_map(const ff::Fp6<Cfg>& x, size_t k) {
  if (k == 0) return x;
  const auto& g = FrobeniusCoeffs<Cfg>::get().gamma[k - 1];
  return {x.c0.frobenius_map(k), x.c1.frobenius_map(k) * g[2], x.c2.frobenius_map(k) * g[4]};
}

template <class Cfg>
ff::Fp12<Cfg> frobenius_map(const ff::Fp12<Cfg>& x, size_t k) {
  if (k == 0) return x;
  const auto& g = FrobeniusCoeffs<Cfg>::get().gamma[k - 1];
  ff::Fp6<Cfg> c0 = frobenius_map(x.c0, k);
  ff::Fp6<Cfg> c1{x.c1.c0.frobenius_map(k) * g[1], x.c1.c1.frobenius_map(k) * g[3], x.c1.c2.frobenius_map(k) * g[5]};
  return {c0, c1};
}

// (a + b s)^2 in Fq4 = Fq2[s]/(s^2 - xi), returned as (c0, c1).
template <class Cfg>
CUZK_INLINE void fq4_square(const ff::Fp2<Cfg>& a, const ff::Fp2<Cfg>& b, ff::Fp2<Cfg>& c0, ff::Fp2<Cfg>& c1) {
  auto a2 = a.square();
  auto b2 = b.square();
  c0 = b2.mul_by_nonresidue() + a2;
  c1 = (a + b).square() - a2 - b2;
}

// Squaring in the cyclotomic subgroup (elements with x^(q^6 + 1) = 1 and x^(q^4 - q^2 + 1)
// of order dividing it), after Granger and Scott, "Faster squaring in the cyclotomic
// subgroup of sixth degree extensions" (PKC 2010): writing x = A0 + A1 w + A2 w^2 over
// Fq4 = Fq2[s], s = w^3, the square is
//   3 A0^2 - 2 conj(A0),  3 s A2^2 + 2 conj(A1),  3 A1^2 - 2 conj(A2).
// Only valid in that subgroup, where the q^6 conjugation is the inverse.
template <class Cfg>
ff::Fp12<Cfg> cyclotomic_square(const ff::Fp12<Cfg>& x) {
  using F2 = ff::Fp2<Cfg>;
  // A0 = (w^0, w^3), A1 = (w^1, w^4), A2 = (w^2, w^5).
  const F2& a0 = x.c0.c0;
  const F2& b0 = x.c1.c1;
  const F2& a1 = x.c1.c0;
  const F2& b1 = x.c0.c2;
  const F2& a2 = x.c0.c1;
  const F2& b2 = x.c1.c2;
  F2 s00, s01, s10, s11, s20, s21;
  fq4_square(a0, b0, s00, s01);
  fq4_square(a1, b1, s10, s11);
  fq4_square(a2, b2, s20, s21);
  // 3 t - 2 c and 3 t + 2 c, as 2 (t -/+ c) + t.
  auto minus = [](const F2& t, const F2& c) { return (t - c).dbl() + t; };
  auto plus = [](const F2& t, const F2& c) { return (t + c).dbl() + t; };
  F2 r_a0 = minus(s00, a0);
  F2 r_b0 = plus(s01, b0);
  // s A2^2 = s21 xi + s20 s.
  F2 r_a1 = plus(s21.mul_by_nonresidue(), a1);
  F2 r_b1 = minus(s20, b1);
  F2 r_a2 = minus(s10, a2);
  F2 r_b2 = plus(s11, b2);
  return {{r_a0, r_a2, r_b1}, {r_a1, r_b0, r_b2}};
}

// A public exponent as signed binary digits, least significant first.
struct SignedDigits {
  int8_t digit[130] = {};
  size_t len = 0;

  constexpr size_t weight() const {
    size_t w = 0;
    for (size_t i = 0; i < len; ++i) w += digit[i] != 0;
    return w;
  }
};

constexpr SignedDigits binary_digits(unsigned __int128 e) {
  SignedDigits n;
  for (; e != 0; e >>= 1) n.digit[n.len++] = int8_t(e & 1);
  return n;
}

constexpr SignedDigits naf_digits(unsigned __int128 e) {
  SignedDigits n;
  while (e != 0) {
    int8_t d = 0;
    if (e & 1) {
      d = (e & 3) == 3 ? -1 : 1;
      if (d == 1) {
        e -= 1;
      } else {
        e += 1;
      }
    }
    n.digit[n.len++] = d;
    e >>= 1;
  }
  return n;
}

// The NAF has the fewest non-zero digits but may be one digit longer than the binary
// form; a squaring costs about as much as a multiplication, so take whichever needs
// fewer operations (0xd201000000010000 is cheaper in binary, 6x+2 for BN254 as a NAF).
constexpr SignedDigits signed_digits(unsigned __int128 e) {
  SignedDigits b = binary_digits(e);
  SignedDigits n = naf_digits(e);
  return n.len + n.weight() < b.len + b.weight() ? n : b;
}

// x^e in the cyclotomic subgroup, where the inverse is the free conjugation, so
// negative digits cost nothing extra. e = 0 gives one.
template <class Cfg>
ff::Fp12<Cfg> cyclotomic_pow(const ff::Fp12<Cfg>& x, const SignedDigits& e) {
  if (e.len == 0) return ff::Fp12<Cfg>::one();
  ff::Fp12<Cfg> x_inv = x.conjugate();
  ff::Fp12<Cfg> r = e.digit[e.len - 1] > 0 ? x : x_inv;
  for (size_t i = e.len - 1; i-- > 0;) {
    r = cyclotomic_square(r);
    if (e.digit[i] > 0) r = r * x;
    if (e.digit[i] < 0) r = r * x_inv;
  }
  return r;
}

}  // namespace cuzk::pairing
