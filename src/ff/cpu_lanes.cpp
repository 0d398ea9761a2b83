#include "ff/cpu_lanes.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace cuzk::ff::lanes {

namespace {

std::atomic<int> g_enabled{-1};  // -1: not decided yet

bool env_off() {
  const char* v = std::getenv("CUZK_CPU_LANES");
  return v != nullptr && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0);
}

}  // namespace

bool cpu_supported() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
  }();
  return has;
}

bool enabled() {
  int e = g_enabled.load(std::memory_order_relaxed);
  if (e < 0) {
    e = cpu_supported() && !env_off() ? 1 : 0;
    g_enabled.store(e, std::memory_order_relaxed);
  }
  return e == 1;
}

void set_enabled(bool on) { g_enabled.store(on && cpu_supported() ? 1 : 0, std::memory_order_relaxed); }

}  // namespace cuzk::ff::lanes
