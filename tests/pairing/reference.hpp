// Slow, obviously-correct references for the pairing tests, on GMP integers: the
// exponents q^k and (q^12 - 1)/r are built as big integers and used with plain
// square-and-multiply, independent of every shortcut in src/pairing.
#pragma once

#include <gmp.h>

#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"

namespace cuzk::pairing::testing {

// 72 limbs hold (q^12 - 1)/r for both curves (at most 12 * 381 bits).
constexpr size_t kWideLimbs = 72;
using Wide = ff::BigInt<kWideLimbs>;

class Mpz {
 public:
  Mpz() { mpz_init(v_); }
  template <size_t N>
  explicit Mpz(const ff::BigInt<N>& x) {
    mpz_init(v_);
    mpz_import(v_, N, -1, sizeof(uint64_t), 0, 0, x.limb);
  }
  ~Mpz() { mpz_clear(v_); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
  mpz_t& get() { return v_; }

  Wide to_wide() const {
    Wide w{};
    size_t count = 0;
    if (mpz_sizeinbase(v_, 2) > 64 * kWideLimbs) return w;
    mpz_export(w.limb, &count, -1, sizeof(uint64_t), 0, 0, v_);
    return w;
  }

 private:
  mpz_t v_;
};

// q^k for the base field F.
template <class F>
Wide q_power(unsigned k) {
  Mpz q(F::MODULUS);
  Mpz r;
  mpz_pow_ui(r.get(), q.get(), k);
  return r.to_wide();
}

// (q^12 - 1) / r, checking that r divides q^12 - 1.
template <class Fq, class Fr>
Wide final_exponent() {
  Mpz q(Fq::MODULUS);
  Mpz r(Fr::MODULUS);
  Mpz e;
  mpz_pow_ui(e.get(), q.get(), 12);
  mpz_sub_ui(e.get(), e.get(), 1);
  if (!mpz_divisible_p(e.get(), r.get())) return Wide{};
  mpz_divexact(e.get(), e.get(), r.get());
  return e.to_wide();
}

// f^((q^12 - 1)/r) by plain square-and-multiply: the definition of the final exponentiation.
template <class Fq12, class Fq, class Fr>
Fq12 final_exponentiation_reference(const Fq12& f) {
  static const Wide e = final_exponent<Fq, Fr>();
  return f.pow(e);
}

}  // namespace cuzk::pairing::testing
