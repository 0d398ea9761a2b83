// GMP as the reference for field tests: conversions between BigInt limbs and mpz_class.
#pragma once

#include <gmpxx.h>

#include <cstdint>

#include "ff/bigint.hpp"

namespace cuzk::ff::testing {

template <size_t N>
mpz_class to_mpz(const BigInt<N>& x) {
  mpz_class r;
  mpz_import(r.get_mpz_t(), N, -1, sizeof(uint64_t), 0, 0, x.limb);
  return r;
}

// x must be non-negative and fit in N limbs.
template <size_t N>
BigInt<N> from_mpz(const mpz_class& x) {
  BigInt<N> r{};
  size_t count = 0;
  mpz_export(r.limb, &count, -1, sizeof(uint64_t), 0, 0, x.get_mpz_t());
  return r;
}

template <class F>
mpz_class modulus() {
  return to_mpz(F::MODULUS);
}

template <class F>
mpz_class value(const F& x) {
  return to_mpz(x.to_canonical());
}

template <class F>
F field(const mpz_class& x) {
  mpz_class r = x % modulus<F>();
  if (r < 0) r += modulus<F>();
  return F::from_canonical(from_mpz<F::N>(r));
}

}  // namespace cuzk::ff::testing
