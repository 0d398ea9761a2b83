// Random points for the ec tests.
#pragma once

#include "ec/curves.hpp"

namespace cuzk::ec::fixtures {

// A point on the curve with a random x and no cofactor clearing: outside the prime-order
// subgroup unless the cofactor is 1.
template <class C, class Rng>
Affine<C> random_curve_point(Rng& rng) {
  using Base = typename C::Base;
  for (;;) {
    Base x = Base::random(rng);
    Base y;
    if ((x.square() * x + C::b()).sqrt(y)) return {x, y};
  }
}

// An x for which x^3 + b is not a square: no point of the curve has it.
template <class C, class Rng>
typename C::Base random_x_off_curve(Rng& rng) {
  using Base = typename C::Base;
  for (;;) {
    Base x = Base::random(rng);
    Base y;
    if (!(x.square() * x + C::b()).sqrt(y)) return x;
  }
}

}  // namespace cuzk::ec::fixtures
