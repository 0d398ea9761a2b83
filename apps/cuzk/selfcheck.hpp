// `cuzk demo --selfcheck`: field and curve identities on random inputs for both curves.
#pragma once

#include <cstdint>

namespace cuzk::app {

// Runs `rounds` random trials per identity and prints one line per check with timings.
// Returns the number of failed checks (0 when the arithmetic is sound).
int run_selfcheck(int rounds, uint64_t seed);

}  // namespace cuzk::app
