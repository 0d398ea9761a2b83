#include "engine/stages.hpp"

#include <mutex>

namespace cuzk::engine {

namespace {

// After a failure, the device must be back at its idle baseline once the failed proof's
// reservation is gone: anything else is memory an error path left behind.
void check_baseline(Pipeline& p, Device& d) {
  const int64_t leaked = int64_t(d.measured_in_use()) - int64_t(d.memory().in_use()) - int64_t(d.baseline_bytes());
  if (leaked != 0) {
    d.counters().baseline_mismatches++;
    if (p.log) {
      p.log(LogLevel::kError, d.id() + ": " + std::to_string(leaked) +
                                  " bytes in use beyond the idle baseline and the live reservations after a failure");
    }
  }
}

}  // namespace

void run_device_worker(Pipeline& p, Device& device) {
  ProofQueue& queue = p.scheduler.device(device.index());
  while (auto next = queue.pop()) {
    ProofPtr proof = std::move(*next);
    proof->leave_queue();
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    const DeviceStageBytes need = device.stage_bytes(proof->shape);
    const bool resident = proof->device_memory.held();
    if (!resident) {
      auto reserved = device.memory().reserve(need.fallback_path(), proof->priority, proof->cancel.get_token());
      if (!reserved.is_ok()) {
        p.fail(std::move(proof), reserved.status());
        continue;
      }
      proof->device_memory = std::move(*reserved);
    }
    device.counters().busy_workers++;
    Result<std::unique_ptr<ProvedProof>> proved = internal_error("kernel region not run");
    {
      auto waited = PendingProof::Clock::now();
      std::lock_guard lock(device.kernel_mutex());
      proof->timings.queue_wait_ms += PendingProof::ms_since(waited);  // waiting for the kernel region
      auto t0 = PendingProof::Clock::now();
      proved = device.run_kernels(proof->key.key(), *proof->witness, resident);
      proof->timings.gpu_compute_ms = PendingProof::ms_since(t0);
    }
    device.counters().busy_workers--;
    Status st = proved.is_ok() ? device.read_back(**proved) : proved.status();
    proof->device_memory.release();
    if (!st.is_ok()) {
      device.counters().failed++;
      check_baseline(p, device);
      StatusCode code = st.code() == StatusCode::kResourceExhausted ? st.code() : StatusCode::kInternal;
      p.fail(std::move(proof), Status(code, device.id() + ": " + st.message()));
      continue;
    }
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    device.counters().completed++;
    proof->proved = std::move(*proved);
    const groth16::ProveTimings& t = proof->proved->timings;
    proof->timings.synthesis_ms = t.witness_abc * 1e3;
    proof->timings.ntt_h_ms = t.h * 1e3;
    proof->timings.msm_a_ms = t.msm_a * 1e3;
    proof->timings.msm_b1_ms = t.msm_b1 * 1e3;
    proof->timings.msm_b2_ms = t.msm_b2 * 1e3;
    proof->timings.msm_l_ms = t.msm_l * 1e3;
    proof->timings.msm_h_ms = t.msm_h * 1e3;
    proof->enter_queue();
    Priority prio = proof->priority;
    if (!p.scheduler.finalize().push(std::move(proof), prio)) return;
  }
}

}  // namespace cuzk::engine
