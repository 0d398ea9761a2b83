#include "engine/pipeline.hpp"

#include "engine/device_recovery.hpp"

#include <cstdio>

namespace cuzk::engine {

void Pipeline::track(const ProofPtr& p) {
  std::lock_guard lock(active_mu_);
  active_[p->job_id] = p;
}

void Pipeline::untrack(const std::string& job_id) {
  std::lock_guard lock(active_mu_);
  active_.erase(job_id);
}

ProofPtr Pipeline::find(const std::string& job_id) {
  std::lock_guard lock(active_mu_);
  auto it = active_.find(job_id);
  return it == active_.end() ? nullptr : it->second.lock();
}

void Pipeline::fail(ProofPtr proof, Status error) {
  JobState state = proof->cancelled() ? JobState::kCancelled : JobState::kFailed;
  retire(std::move(proof), state, std::move(error));
}

void Pipeline::fail_on_device(ProofPtr proof, Device& device, const Status& error) {
  device.counters().failed++;
  proof->staged.reset();
  proof->device_memory.release();
  Status fault = error;
  if (fault.code() != StatusCode::kDeviceLost && fault.code() != StatusCode::kResourceExhausted) {
    // Some paths report a lost context under another code; the device itself knows.
    if (Status h = device.health(); h.code() == StatusCode::kDeviceLost) fault = Status(h.code(), error.message());
  }
  const bool sticky = fault.code() == StatusCode::kDeviceLost;
  StatusCode code = error.code() == StatusCode::kResourceExhausted ? error.code() : StatusCode::kInternal;
  std::string msg = device.id() + ": " + error.message();
  if (sticky) msg = device.id() + ": sticky device fault (the device is being reset): " + error.message();
  fail(std::move(proof), Status(code, msg));
  if (sticky) {
    if (device.poison() && recovery != nullptr) recovery->report(device, fault);
    return;  // the recovery checks the device against its new baseline
  }
  if (device.poisoned()) return;
  if (int64_t leaked = device.unaccounted_bytes(); leaked != 0) {
    device.counters().baseline_mismatches++;
    if (log) {
      log(LogLevel::kError, device.id() + ": " + std::to_string(leaked) +
                                " bytes in use beyond the idle baseline and the live reservations after a failure");
    }
  }
}

void Pipeline::requeue(ProofPtr proof) {
  proof->staged.reset();
  proof->device_memory.release();
  proof->timings.prestage_fallback = proof->timings.staged_late = proof->stage_late = false;
  if (proof->cancelled()) {
    retire(std::move(proof), JobState::kCancelled, Status::ok());
    return;
  }
  proof->enter_queue();
  Priority prio = proof->priority;
  if (!scheduler.prestage().try_push(proof, prio)) {
    fail(std::move(proof), Status(StatusCode::kUnavailable, "its device faulted and the pre-staging queue is full"));
  }
}

void Pipeline::requeue_from(Device& device) {
  for (ProofPtr& p : scheduler.device(device.index()).remove_if([](const ProofPtr&) { return true; })) {
    requeue(std::move(p));
  }
}

void Pipeline::retire(ProofPtr proof, JobState state, Status error, ProofResult result) {
  ProofTimings& t = proof->timings;
  t.total_ms = PendingProof::ms_since(proof->admitted);
  const char* outcome = state == JobState::kCompleted   ? "completed"
                        : state == JobState::kCancelled ? "cancelled"
                                                        : "failed";
  metrics.count("proofs", "outcome", outcome);
  if (state == JobState::kCompleted) {
    metrics.observe(TimedStage::kAdmission, t.admission_ms / 1e3);
    metrics.observe(TimedStage::kQueueWait, t.queue_wait_ms / 1e3);
    if (t.key_load_ms > 0) metrics.observe(TimedStage::kKeyLoad, t.key_load_ms / 1e3);
    metrics.observe(TimedStage::kSynthesis, t.synthesis_ms / 1e3);
    metrics.observe(TimedStage::kPrestage, t.prestage_ms / 1e3);
    metrics.observe(TimedStage::kGpuCompute, t.gpu_compute_ms / 1e3);
    metrics.observe(TimedStage::kNttH, t.ntt_h_ms / 1e3);
    metrics.observe(TimedStage::kMsm, t.msm_ms() / 1e3);
    metrics.observe(TimedStage::kVerify, t.verify_ms / 1e3);
    metrics.observe(TimedStage::kFinalize, t.finalize_ms / 1e3);
    metrics.observe(TimedStage::kTotal, t.total_ms / 1e3);
  }
  char line[800];
  std::snprintf(line, sizeof line,
                "proof job=%s circuit=%s priority=%s outcome=%s device=%s prestage=%s admission_ms=%.1f "
                "queue_wait_ms=%.1f key_load_ms=%.1f synthesis_ms=%.1f prestage_ms=%.1f gpu_compute_ms=%.1f "
                "ntt_h_ms=%.1f msm_ms=%.1f readback_ms=%.1f finalize_ms=%.1f verify_ms=%.1f total_ms=%.1f batch=%llu "
                "paused_ms=%.1f memory_wait_ms=%.1f upload_ms=%.1f upload_host_copy_ms=%.1f upload_link_wait_ms=%.1f "
                "upload_rest_ms=%.1f/%.1f/%.1f/%.1f",
                proof->job_id.c_str(), proof->circuit_id.c_str(), priority_name(proof->priority), outcome,
                t.device.empty() ? "-" : t.device.c_str(), t.prestage_name(), t.admission_ms,
                t.queue_wait_ms, t.key_load_ms, t.synthesis_ms, t.prestage_ms, t.gpu_compute_ms, t.ntt_h_ms, t.msm_ms(),
                t.readback_ms, t.finalize_ms, t.verify_ms, t.total_ms, static_cast<unsigned long long>(t.batch),
                t.paused_ms, t.memory_wait_ms, t.upload_ms, t.upload_host_copy_ms, t.upload_link_wait_ms,
                t.upload_setup_ms, t.upload_alloc_ms, t.upload_acquire_ms, t.upload_issue_ms);
  std::string msg = line;
  if (!error.is_ok()) msg += " error=\"" + error.message() + "\"";
  if (log) log(state == JobState::kFailed ? LogLevel::kWarn : LogLevel::kInfo, msg);
  // Memory first, then the record: a client that sees the result sees the memory freed.
  std::string job_id = proof->job_id;
  untrack(job_id);
  PendingProof* p = proof.get();
  p->proved.reset();
  p->staged.reset();  // before the witness it reads
  p->witness.reset();
  p->device_memory.release();
  p->host_work.release();
  p->host_witness.release();
  p->key.release();
  ProofTimings timings = p->timings;
  proof.reset();
  jobs.finish(job_id, state, std::move(error), std::move(timings), std::move(result));
}

}  // namespace cuzk::engine
