// The fault-injection rule syntax (CUZK_FAULT), shared by the CUDA device paths
// (cuda/fault.hpp) and the CPU device (engine/cpu_device.hpp): comma-separated rules
// "kind:N" or "kind:N@site". A rule fails the Nth operation of its kind (1-based, counted
// from arming) whose site name contains `site` (any site when absent).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace cuzk {

struct FaultRuleSpec {
  size_t kind = 0;   // index into the kinds the caller allows
  uint64_t nth = 0;  // >= 1
  std::string site;  // empty: any site
  std::string text;  // the rule as written, for messages
};

// INVALID_ARGUMENT naming `source` (e.g. "CUZK_FAULT"), the rule and the expected syntax
// for a rule without ':', an unknown kind, or an N that is not a positive integer.
Result<std::vector<FaultRuleSpec>> parse_fault_spec(const std::string& spec, std::initializer_list<const char*> kinds,
                                                    const std::string& source);

}  // namespace cuzk
