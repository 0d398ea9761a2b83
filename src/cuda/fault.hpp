// Fault injection for the device paths: fails the Nth allocation, copy or kernel launch so
// that tests (and the daemon's containment tests) can walk every error path. Compiled in,
// off unless armed: by CUZK_FAULT in the environment (read once, at first use) or by arm().
//
// Spec: comma-separated rules "kind:N" or "kind:N@site", kind one of alloc, copy, kernel,
// sticky. A rule fails the Nth operation of its kind (counted from arming, 1-based) whose
// site name contains `site` (any site when absent), then stays spent. "kernel:2@msm" fails
// the second launch whose site names the MSM. "sticky:N" counts checked launches like
// kernel, but makes a real sticky error: it launches a kernel that traps, which leaves the
// device's CUDA context unusable (every later call fails) until the device is reset.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.hpp"

namespace cuzk::cuda {

enum class FaultKind { kAlloc = 0, kCopy = 1, kKernel = 2, kSticky = 3 };
const char* fault_kind_name(FaultKind kind);

// Replaces the armed rules (and restarts the counts); an empty spec disarms. Fails on a
// malformed spec, leaving the previous rules armed.
Status arm_faults(const std::string& spec);
void disarm_faults();

// How many operations of `kind` have been checked since the last arm (or process start).
uint64_t fault_count(FaultKind kind);

// Called by the allocator, the copy helpers and check_launch before the real operation:
// an injected failure is a Status naming the site and the rule, with the code the real
// failure would have (out of memory -> kResourceExhausted, others kInternal). A sticky
// rule's failure is the real CUDA error of a trapping kernel (kDeviceLost).
Status inject_fault(FaultKind kind, const char* site);

// Launches a kernel that traps on the current device and waits for it: the CUDA error it
// returns (a launch failure) is sticky. In fault_trap.cu.
Status launch_trapping_kernel(const std::string& site);

}  // namespace cuzk::cuda
