// Shared by the device tests: skip without a device, a printed reproducible seed, and
// typed-test names for the field and point types.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "cuda/device.hpp"

namespace cuzk::cuda::testing {

// Why the device tests cannot run here ("" when they can).
inline std::string no_device_reason() {
  auto count = device_count();
  if (!count.is_ok()) return count.status().to_string();
  return *count == 0 ? "no CUDA device" : "";
}

// Skips the current test when no CUDA device (or no driver) is present, so that ctest
// passes on machines without a GPU. With CUZK_REQUIRE_GPU set (scripts/gpu-check.sh) a
// missing device fails the test instead.
#define CUZK_SKIP_WITHOUT_DEVICE()                                              \
  do {                                                                          \
    std::string cuzk_reason_ = ::cuzk::cuda::testing::no_device_reason();       \
    if (!cuzk_reason_.empty()) {                                                \
      if (std::getenv("CUZK_REQUIRE_GPU") != nullptr) FAIL() << cuzk_reason_;   \
      GTEST_SKIP() << cuzk_reason_;                                             \
    }                                                                           \
  } while (0)

// A fresh seed per run (or CUZK_TEST_SEED to reproduce one), printed so a failure can be replayed.
inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    if (const char* env = std::getenv("CUZK_TEST_SEED")) return uint64_t(std::strtoull(env, nullptr, 0));
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
  }();
  return seed;
}

inline std::mt19937_64 seeded_rng(const std::string& salt) {
  uint64_t s = test_seed();
  for (char c : salt) s = s * 1099511628211ull + uint8_t(c);
  std::cout << "[ seed     ] CUZK_TEST_SEED=" << test_seed() << " (" << salt << ")\n";
  return std::mt19937_64(s);
}

}  // namespace cuzk::cuda::testing
