// The switch for cuzk's AVX-512 IFMA code paths (ff/lanes52.hpp and its users: the MSM's
// batched additions and bucket sums, the NTT). They run only where the CPU has AVX-512 F
// and IFMA, and not when turned off, by set_enabled(false) or CUZK_CPU_LANES=off in the
// environment (for comparisons and to rule them out when chasing a problem).
#pragma once

namespace cuzk::ff::lanes {

// Whether this CPU has AVX-512 F and IFMA (checked once).
bool cpu_supported();
// Whether the lane paths run now.
bool enabled();
// For tests and benchmarks; turning it on has no effect where the CPU lacks the feature.
void set_enabled(bool on);

}  // namespace cuzk::ff::lanes
