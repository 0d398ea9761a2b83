// What the engine records about one proof job: its identity, state, timings and result.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "engine/priority.hpp"

namespace cuzk::engine {

enum class JobState { kQueued, kRunning, kCompleted, kFailed, kCancelled };

inline bool is_terminal(JobState s) {
  return s == JobState::kCompleted || s == JobState::kFailed || s == JobState::kCancelled;
}
inline const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::kQueued:
      return "QUEUED";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kCompleted:
      return "COMPLETED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
  }
  return "QUEUED";
}

// Milliseconds per stage of one proof (proto ProofTimings).
struct ProofTimings {
  double admission_ms = 0;  // witness intake: read, decoded, range-checked, queued
  double queue_wait_ms = 0, key_load_ms = 0, synthesis_ms = 0, prestage_ms = 0;
  bool prestage_fallback = false;
  bool staged_late = false;  // of a fallback: staged by its device worker before the kernel region
  double gpu_compute_ms = 0, ntt_h_ms = 0;
  double paused_ms = 0;  // of gpu_compute_ms: paused at phase boundaries while a CRITICAL proof ran
  double readback_ms = 0;  // the MSM sums back and the proof's device state freed (after the region)
  // Of prestage_ms (or of gpu_compute_ms on the fallback path): the backend's witness upload,
  // and of that the host copies into pinned chunks and the waits for the link.
  double upload_ms = 0, upload_host_copy_ms = 0, upload_link_wait_ms = 0;
  // The rest of upload_ms, for the log: setup (streams), device memory, pinned chunks, DMA issue.
  double upload_setup_ms = 0, upload_alloc_ms = 0, upload_acquire_ms = 0, upload_issue_ms = 0;
  double memory_wait_ms = 0;  // waiting for its key lease and for host or device budget bytes
  double msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_l_ms = 0, msm_h_ms = 0;
  double verify_ms = 0, finalize_ms = 0, total_ms = 0;
  std::string device;
  // The same-circuit batch it ran in: the number of that hold of its device's kernel
  // region (1, 2, ... per device); proofs of one batch share it.
  uint64_t batch = 0;

  double msm_ms() const { return msm_a_ms + msm_b1_ms + msm_b2_ms + msm_l_ms + msm_h_ms; }
  // How the proof's inputs reached the device: "ok" (pre-staged), "late" (by its worker,
  // outside the kernel lock) or "fallback" (inside the kernel region).
  const char* prestage_name() const { return !prestage_fallback ? "ok" : staged_late ? "late" : "fallback"; }
};

// A verified proof, serialized for the client.
struct ProofResult {
  std::string proof_json, public_json;      // snarkjs proof.json / public.json
  std::vector<uint8_t> proof_bytes;         // pi_a || pi_b || pi_c, snarkjs binary form
  std::vector<std::string> public_signals;  // decimal
  std::string curve;                        // snarkjs name
};

using SystemClock = std::chrono::system_clock;

struct JobRecord {
  std::string job_id, request_id, circuit_id;
  Priority priority = Priority::kNormal;
  JobState state = JobState::kQueued;
  uint64_t payload_digest = 0;  // what an idempotent resubmission must match
  SystemClock::time_point submitted{}, finished{};
  Status error;  // FAILED: why
  ProofTimings timings;
  ProofResult result;
};

}  // namespace cuzk::engine
