#include <mutex>

#include "engine/circuit_key.hpp"
#include "engine/stages.hpp"

namespace cuzk::engine {

void run_device_worker(Pipeline& p, Device& device, Priority at_least) {
  ProofQueue& queue = p.scheduler.device(device.index());
  while (auto next = queue.pop(at_least)) {
    ProofPtr proof = std::move(*next);
    proof->leave_queue();
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    const LoadedKey& key = proof->key.key();
    const size_t dev = device.index();
    const bool resident = proof->staged != nullptr;
    if (!resident) {
      const BackendBytes b = key.backend_bytes(dev);
      const DeviceStageBytes need = device.stage_bytes(proof->shape, b.upload, b.compute);
      auto reserved = device.memory().reserve(need.fallback_path(), proof->priority, proof->cancel.get_token());
      if (!reserved.is_ok()) {
        p.fail(std::move(proof), reserved.status());
        continue;
      }
      proof->device_memory = std::move(*reserved);
    }
    device.counters().busy_workers++;
    Status st;
    {
      // A CRITICAL proof's streams (made at its upload) get the device's greatest priority.
      auto urgent = proof->priority == Priority::kCritical ? device.urgent_scope() : nullptr;
      auto waited = PendingProof::Clock::now();
      KernelLock::Guard lock(device.kernel_lock(), proof->priority);
      proof->timings.queue_wait_ms += PendingProof::ms_since(waited);  // waiting for the kernel region
      auto t0 = PendingProof::Clock::now();
      if (!resident) {  // the fallback path: the upload inside the region
        auto staged = key.upload(dev, *proof->witness);
        st = staged.is_ok() ? Status::ok() : staged.status().with_context("upload");
        if (st.is_ok()) proof->staged = std::move(*staged);
      }
      if (st.is_ok()) st = key.compute(dev, *proof->staged);
      proof->timings.gpu_compute_ms = PendingProof::ms_since(t0);
    }
    device.counters().busy_workers--;
    if (st.is_ok()) st = key.read_back(dev, *proof->staged).with_context("read back");
    if (!st.is_ok()) {
      p.fail_on_device(std::move(proof), device, st);
      continue;
    }
    proof->device_memory.release();
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    device.counters().completed++;
    proof->enter_queue();
    Priority prio = proof->priority;
    if (!p.scheduler.finalize().push(std::move(proof), prio)) return;
  }
}

}  // namespace cuzk::engine
