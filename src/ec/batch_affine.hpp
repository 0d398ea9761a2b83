// Many projective points to affine with one field inversion (Montgomery's trick). Host only.
#pragma once

#include <cstddef>
#include <vector>

#include "ec/curves.hpp"

namespace cuzk::ec {

// out[i] = in[i].to_affine() for any projective type with is_infinity(), to_affine() and
// a denominator accessor; `in` and `out` may not alias. Infinity maps to (0, 0).
template <class Point>
void batch_to_affine(const Point* in, size_t n, Affine<typename Point::Curve>* out) {
  using Base = typename Point::Base;
  // The Jacobian denominator is Z, the XYZZ one ZZZ (1/ZZ = (ZZ/ZZZ)^2 follows from it).
  auto denom = [](const Point& p) -> const Base& {
    if constexpr (requires { p.zzz; }) {
      return p.zzz;
    } else {
      return p.z;
    }
  };
  std::vector<Base> prefix(n);
  Base acc = Base::one();
  for (size_t i = 0; i < n; ++i) {
    prefix[i] = acc;
    if (!in[i].is_infinity()) acc = acc * denom(in[i]);
  }
  Base inv = acc.inverse();
  for (size_t i = n; i-- > 0;) {
    const Point& p = in[i];
    if (p.is_infinity()) {
      out[i] = Affine<typename Point::Curve>::infinity();
      continue;
    }
    Base di = inv * prefix[i];  // 1 / denom(p)
    inv = inv * denom(p);
    if constexpr (requires { p.zzz; }) {
      Base zzi = (di * p.zz).square();
      out[i] = {p.x * zzi, p.y * di};
    } else {
      Base di2 = di.square();
      out[i] = {p.x * di2, p.y * di2 * di};
    }
  }
}

template <class Point>
std::vector<Affine<typename Point::Curve>> batch_to_affine(const std::vector<Point>& in) {
  std::vector<Affine<typename Point::Curve>> out(in.size());
  batch_to_affine(in.data(), in.size(), out.data());
  return out;
}

}  // namespace cuzk::ec
