#include "engine/stages.hpp"

#include <limits>

#include "engine/circuit_key.hpp"

namespace cuzk::engine {

namespace {

// The pinned device, else the healthy device with the least work waiting for it; when
// every device is poisoned, one being recovered (to wait for); null when none is left.
Device* place(Pipeline& p, const PendingProof& proof) {
  if (proof.pinned_device) {
    if (*proof.pinned_device >= p.devices.size()) return nullptr;
    Device* d = p.devices[*proof.pinned_device];
    return d->dead() ? nullptr : d;
  }
  Device* best = nullptr;
  Device* recovering = nullptr;
  size_t best_load = std::numeric_limits<size_t>::max();
  for (Device* d : p.devices) {
    if (d->dead()) continue;
    if (d->poisoned()) {
      recovering = d;
      continue;
    }
    size_t load = p.scheduler.device_backlog(d->index()) + d->counters().busy_workers.load();
    if (load < best_load) {
      best = d;
      best_load = load;
    }
  }
  return best != nullptr ? best : recovering;
}

// The device to pre-stage on and a Use of it: waits while the chosen device is being
// recovered after a sticky fault. Null when no device is left, or the proof was
// cancelled or the stage closed while waiting.
Device* place_and_enter(Pipeline& p, const PendingProof& proof, Device::Use& use) {
  for (;;) {
    Device* d = place(p, proof);
    if (d == nullptr) return nullptr;
    if (!d->poisoned()) {
      use = d->enter();
      if (use) return d;
    }
    if (proof.cancelled() || p.scheduler.prestage().closed()) return nullptr;
    d->wait_healthy(std::chrono::milliseconds(50));
  }
}

}  // namespace

void run_prestage_stage(Pipeline& p) {
  while (auto next = p.scheduler.prestage().pop()) {
    ProofPtr proof = std::move(*next);
    proof->leave_queue();
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    auto t0 = PendingProof::Clock::now();
    Device::Use use;
    Device* device = place_and_enter(p, *proof, use);
    if (device == nullptr) {
      p.fail(std::move(proof), Status(StatusCode::kUnavailable, "no healthy device to prove on"));
      continue;
    }
    proof->device = device->index();
    proof->timings.device = device->id();
    const LoadedKey& key = proof->key.key();
    const BackendBytes b = key.backend_bytes(device->index());
    const DeviceStageBytes need = device->stage_bytes(proof->shape, b.upload, b.compute);
    auto reserved = device->memory().try_reserve(need.prestaged_path(), proof->priority);
    if (reserved.is_ok()) {
      proof->device_memory = std::move(*reserved);
      auto urgent = proof->priority == Priority::kCritical ? device->urgent_scope() : nullptr;
      auto staged = key.upload(device->index(), *proof->witness);  // device stage (a), outside the lock
      if (!staged.is_ok()) {
        p.fail_on_device(std::move(proof), *device, staged.status().with_context("upload"));
        continue;
      }
      proof->staged = std::move(*staged);
    } else {
      proof->timings.prestage_fallback = true;
      proof->stage_late = need.fallback_path() >= need.prestaged_path();
      device->counters().prestage_fallbacks++;
    }
    p.metrics.count("prestage", "result", proof->timings.prestage_fallback ? "fallback" : "ok");
    proof->timings.prestage_ms = PendingProof::ms_since(t0);
    proof->enter_queue();
    Priority prio = proof->priority;
    // Pushed while the Use is held: a recovery that starts meanwhile finds it in the queue.
    if (!p.scheduler.device(device->index()).push(std::move(proof), prio)) return;
  }
}

}  // namespace cuzk::engine
