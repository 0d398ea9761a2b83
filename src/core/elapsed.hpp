// Seconds on the steady clock since a start point: the stage timings of a proof.
#pragma once

#include <chrono>

namespace cuzk {

using SteadyClock = std::chrono::steady_clock;

inline double seconds_since(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

}  // namespace cuzk
