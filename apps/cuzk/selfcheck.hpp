// `cuzk demo --selfcheck`: field and curve identities on random inputs for both curves.
#pragma once

#include <cstdint>

namespace cuzk::app {

// Runs `rounds` random trials per identity and prints one line per check (verbose) or
// one line per curve, with timings. Returns the number of failed checks.
int run_selfcheck(int rounds, uint64_t seed, bool verbose);

}  // namespace cuzk::app
