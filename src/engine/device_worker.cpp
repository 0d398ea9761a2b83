#include <mutex>

#include "engine/circuit_key.hpp"
#include "engine/stages.hpp"

namespace cuzk::engine {

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
      p.fail_on_device(std::move(proof), device, st);
      continue;
    }
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    device.counters().completed++;
    proof->proved = std::move(*proved);
    const KernelTimings& t = proof->proved->timings;
    proof->timings.synthesis_ms = t.synthesis_ms;
    proof->timings.ntt_h_ms = t.ntt_h_ms;
    proof->timings.msm_a_ms = t.msm_a_ms;
    proof->timings.msm_b1_ms = t.msm_b1_ms;
    proof->timings.msm_b2_ms = t.msm_b2_ms;
    proof->timings.msm_l_ms = t.msm_l_ms;
    proof->timings.msm_h_ms = t.msm_h_ms;
    proof->enter_queue();
    Priority prio = proof->priority;
    if (!p.scheduler.finalize().push(std::move(proof), prio)) return;
  }
}

}  // namespace cuzk::engine
