#include <atomic>
#include <chrono>
#include <mutex>

#include "engine/circuit_key.hpp"
#include "engine/stages.hpp"

namespace cuzk::engine {

namespace {

// The fallback path's memory for a proof that was not pre-staged; waits for it when
// `wait`, else takes it only if it fits now.
Status reserve_fallback(Device& device, PendingProof& proof, bool wait) {
  if (proof.staged != nullptr || proof.device_memory.held()) return Status::ok();
  const BackendBytes b = proof.key.key().backend_bytes(device.index());
  const uint64_t need = device.stage_bytes(proof.shape, b.upload, b.compute).fallback_path();
  const auto t0 = PendingProof::Clock::now();
  auto reserved = wait ? device.memory().reserve(need, proof.priority, proof.cancel.get_token())
                       : device.memory().try_reserve(need, proof.priority);
  if (!reserved.is_ok()) return reserved.status();
  proof.device_memory = std::move(*reserved);
  proof.timings.memory_wait_ms += PendingProof::ms_since(t0);
  return Status::ok();
}

// A proof that pre-staging passed over uploads here, outside the kernel lock, once its
// fallback reservation is held: with a second worker the copy overlaps the other worker's
// kernels instead of idling the device inside the region.
Status stage_late(Device& device, PendingProof& proof) {
  if (!proof.stage_late || proof.staged != nullptr || !proof.device_memory.held()) return Status::ok();
  const LoadedKey& key = proof.key.key();
  const auto t0 = PendingProof::Clock::now();
  auto urgent = proof.priority == Priority::kCritical ? device.urgent_scope() : nullptr;
  auto staged = key.upload(device.index(), *proof.witness);
  if (!staged.is_ok()) return staged.status().with_context("upload");
  proof.staged = std::move(*staged);
  proof.timings.staged_late = true;
  proof.timings.prestage_ms += PendingProof::ms_since(t0);
  return Status::ok();
}

// A lower-priority proof's pauses in the kernel region: while a CRITICAL proof is inside
// (the critical lane), it waits at each phase boundary until that proof has left, so the
// CRITICAL proof's kernels have the device to themselves once the current phase ends. Each
// wait is bounded (kMaxPause), so a CRITICAL proof that waited on something this one holds
// costs time, never a deadlock.
class YieldToCritical final : public PhasePauses {
 public:
  static constexpr std::chrono::milliseconds kMaxPause{500};
  explicit YieldToCritical(KernelLock& lock) : lock_(lock) {}
  bool wanted() const override { return lock_.critical_inside(); }
  void pause() override {
    const auto t0 = PendingProof::Clock::now();
    lock_.wait_no_critical(kMaxPause);
    paused_us_ += uint64_t(PendingProof::ms_since(t0) * 1e3);
  }
  double paused_ms() const { return double(paused_us_.load()) / 1e3; }

 private:
  KernelLock& lock_;
  std::atomic<uint64_t> paused_us_{0};  // summed over the backend's threads (MSM lanes)
};

// The kernel region of one proof (the caller holds the lock): the upload first on the
// fallback path, then compute, pausing for a CRITICAL proof unless it is one.
Status run_region(Device& device, PendingProof& proof) {
  const LoadedKey& key = proof.key.key();
  const size_t dev = device.index();
  auto t0 = PendingProof::Clock::now();
  Status st;
  if (proof.staged == nullptr) {
    auto staged = key.upload(dev, *proof.witness);
    st = staged.is_ok() ? Status::ok() : staged.status().with_context("upload");
    if (st.is_ok()) proof.staged = std::move(*staged);
  }
  YieldToCritical yield(device.kernel_lock());
  if (st.is_ok()) st = key.compute(dev, *proof.staged, proof.priority == Priority::kCritical ? nullptr : &yield);
  proof.timings.gpu_compute_ms = PendingProof::ms_since(t0);
  proof.timings.paused_ms = yield.paused_ms();
  return st;
}

// Stage (c) and the hand-over to finalize. False when the finalize queue has closed.
bool read_back_and_pass_on(Pipeline& p, Device& device, ProofPtr proof) {
  const auto t0 = PendingProof::Clock::now();
  Status st = proof->key.key().read_back(device.index(), *proof->staged).with_context("read back");
  proof->timings.readback_ms = PendingProof::ms_since(t0);
  if (!st.is_ok()) {
    p.fail_on_device(std::move(proof), device, st);
    return true;
  }
  proof->device_memory.release();
  if (proof->cancelled()) {
    p.retire(std::move(proof), JobState::kCancelled, Status::ok());
    return true;
  }
  device.counters().completed++;
  proof->enter_queue();
  Priority prio = proof->priority;
  return p.scheduler.finalize().push(std::move(proof), prio);
}

}  // namespace

void run_device_worker(Pipeline& p, Device& device, Priority at_least) {
  ProofQueue& queue = p.scheduler.device(device.index());
  const size_t batch_max = p.config.batch_max;
  // A batch takes proofs of its first one's circuit, but not one its worker would stage late:
  // that one heads a batch of its own, so its upload runs outside the lock, beside the other
  // worker's kernels, instead of idling the device inside this batch's region.
  auto joins = [](const ProofPtr& first, const ProofPtr& b) {
    return first->circuit_id == b->circuit_id && !(b->stage_late && b->staged == nullptr);
  };
  while (queue.wait_nonempty(at_least)) {
    // The Use comes before the pop: a proof out of the queue is always inside a Use, so a
    // recovery finds every proof with device state either queued or in a stage it waits for.
    Device::Use use = device.enter();
    if (!use) {
      if (device.dead()) {
        p.requeue_from(device);  // onto the devices left, or failed when there is none
      } else {
        device.wait_healthy(std::chrono::milliseconds(50));  // the recovery takes the queue
      }
      continue;
    }
    std::vector<ProofPtr> batch = queue.pop_batch(batch_max, p.config.batch_wait, joins, at_least);
    std::vector<ProofPtr> live;
    for (ProofPtr& proof : batch) {
      proof->leave_queue();
      if (proof->cancelled()) {
        p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      } else {
        live.push_back(std::move(proof));
      }
    }
    if (live.empty()) continue;
    // Outside the lock, so a waiting worker holds nothing another needs.
    if (Status st = reserve_fallback(device, *live.front(), true); !st.is_ok()) {
      const Priority prio = live.front()->priority;
      p.fail(std::move(live.front()), st);
      for (size_t j = live.size(); j > 1; --j) queue.push_front(std::move(live[j - 1]), prio);
      continue;
    }
    if (Status st = stage_late(device, *live.front()); !st.is_ok()) {
      const Priority prio = live.front()->priority;
      p.fail_on_device(std::move(live.front()), device, st);
      for (size_t j = live.size(); j > 1; --j) queue.push_front(std::move(live[j - 1]), prio);
      continue;
    }
    const uint64_t batch_no = ++device.counters().batches;
    device.counters().busy_workers++;
    ProofPtr last;  // read back outside the lock
    bool open = true;
    {
      // A CRITICAL proof's streams (made at its upload) get the device's greatest priority.
      // (A CRITICAL proof runs alone: pop_batch never batches it.)
      auto urgent = live.front()->priority == Priority::kCritical ? device.urgent_scope() : nullptr;
      auto waited = PendingProof::Clock::now();
      KernelLock::Guard lock(device.kernel_lock(), live.front()->priority);
      const double lock_wait_ms = PendingProof::ms_since(waited);
      size_t ran = 0;
      for (size_t i = 0; i < live.size(); ++i) {
        ProofPtr proof = std::move(live[i]);
        // A batch yields to higher-priority work, and takes a fallback proof only when its
        // memory is free now (waiting inside the lock could wait on a worker outside it).
        bool cut = i > 0 && (queue.waiting_above(proof->priority) || !reserve_fallback(device, *proof, false).is_ok() ||
                             device.poisoned());
        if (cut) {
          live[i] = std::move(proof);
          for (size_t j = live.size(); j > i; --j) {
            ProofPtr& rest = live[j - 1];
            if (device.poisoned()) {
              p.requeue(std::move(rest));
            } else {
              if (!rest->staged) rest->device_memory.release();  // taken again when it runs
              Priority prio = rest->priority;
              rest->enter_queue();
              queue.push_front(std::move(rest), prio);
            }
          }
          break;
        }
        proof->timings.queue_wait_ms += lock_wait_ms;  // waiting for the kernel region
        proof->timings.batch = batch_no;
        ++ran;
        Status st = run_region(device, *proof);
        if (!st.is_ok()) {
          p.fail_on_device(std::move(proof), device, st);
          continue;
        }
        if (i + 1 < live.size()) {
          open = read_back_and_pass_on(p, device, std::move(proof)) && open;
        } else {
          last = std::move(proof);
        }
      }
      p.metrics.observe_batch(ran);
    }
    device.counters().busy_workers--;
    if (last) open = read_back_and_pass_on(p, device, std::move(last)) && open;
    if (!open) return;
  }
}

}  // namespace cuzk::engine
