// One proof on its way through the pipeline. It owns everything a stage reads or holds —
// the decoded witness, the key lease, every memory reservation — so a background stage
// never refers to a caller's memory, and whatever ends the job (result, failure,
// cancellation) frees all of it when the last reference goes.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "engine/circuit_key.hpp"
#include "engine/job.hpp"
#include "engine/key_cache.hpp"
#include "engine/memory_budget.hpp"

namespace cuzk::engine {

struct PendingProof {
  using Clock = std::chrono::steady_clock;

  std::string job_id, circuit_id;
  Priority priority = Priority::kNormal;
  KeyShape shape;
  std::optional<size_t> pinned_device;  // self-tests prove on one given device
  std::unique_ptr<DecodedWitness> witness;
  std::stop_source cancel;

  MemoryBudget::Reservation host_witness;  // admission: the decoded witness
  MemoryBudget::Reservation host_work;     // synthesis: the a, b, c evaluations
  KeyCache::Lease key;
  size_t device = 0;
  MemoryBudget::Reservation device_memory;  // pre-staging, or the fallback path's in-lock need
  std::unique_ptr<StagedProof> staged;      // between the device stages (reads `witness`)
  // Passed over by pre-staging on a device whose fallback path needs the pre-staged path's
  // bytes (the CUDA device's): its device worker stages it, outside the kernel lock.
  bool stage_late = false;
  std::unique_ptr<ProvedProof> proved;

  ProofTimings timings;
  Clock::time_point admitted = Clock::now();
  Clock::time_point queued_at = admitted;

  bool cancelled() const { return cancel.stop_requested(); }
  void enter_queue() { queued_at = Clock::now(); }
  void leave_queue() { timings.queue_wait_ms += ms_since(queued_at); }
  static double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
};

using ProofPtr = std::shared_ptr<PendingProof>;

}  // namespace cuzk::engine
