// Secret randomness from the operating system's CSPRNG (getrandom(2)), for the prover's
// blinding factors r, s and the dev setup's toxic waste.
#pragma once

#include <cstdint>

#include "core/status.hpp"

namespace cuzk::groth16 {

// A word generator over getrandom(2), usable with Fp::random. Reads are buffered; a
// failing getrandom (which Linux does not do once the pool is initialised) aborts rather
// than return predictable words.
class OsRng {
 public:
  uint64_t operator()();

 private:
  uint64_t buf_[32];
  unsigned left_ = 0;
};

// A uniformly random field element from the OS CSPRNG.
template <class F>
F os_random() {
  OsRng rng;
  return F::random(rng);
}

// A uniformly random non-zero field element (for toxic waste, where 0 would be fatal).
template <class F>
F os_random_nonzero() {
  OsRng rng;
  for (;;) {
    F x = F::random(rng);
    if (!x.is_zero()) return x;
  }
}

}  // namespace cuzk::groth16
