// Proof priorities, highest first when a stage picks its next job.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace cuzk::engine {

enum class Priority { kLow = 0, kNormal = 1, kHigh = 2, kCritical = 3 };

inline constexpr size_t kPriorityCount = 4;
inline constexpr std::array<Priority, kPriorityCount> kPrioritiesHighFirst = {Priority::kCritical, Priority::kHigh,
                                                                              Priority::kNormal, Priority::kLow};

inline const char* priority_name(Priority p) {
  switch (p) {
    case Priority::kLow:
      return "LOW";
    case Priority::kNormal:
      return "NORMAL";
    case Priority::kHigh:
      return "HIGH";
    case Priority::kCritical:
      return "CRITICAL";
  }
  return "NORMAL";
}

// "low" / "LOW" / "normal" / ... (what configs and the CLI take).
inline std::optional<Priority> parse_priority(std::string_view s) {
  auto eq = [&](std::string_view w) {
    if (s.size() != w.size()) return false;
    for (size_t i = 0; i < s.size(); ++i) {
      if ((s[i] | 0x20) != (w[i] | 0x20)) return false;
    }
    return true;
  };
  for (Priority p : kPrioritiesHighFirst) {
    if (eq(priority_name(p))) return p;
  }
  return std::nullopt;
}

}  // namespace cuzk::engine
