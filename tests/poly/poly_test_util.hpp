// Helpers shared by the poly tests.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace cuzk::poly::testing {

// Evaluates the polynomial with these coefficients (lowest degree first) at x.
template <class F>
F horner(const std::vector<F>& coeffs, const F& x) {
  F acc = F::zero();
  for (size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

template <class F>
std::vector<F> random_vec(size_t n, std::mt19937_64& rng) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

}  // namespace cuzk::poly::testing
