#include "engine/pipeline.hpp"

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
  StatusCode code = error.code() == StatusCode::kResourceExhausted ? error.code() : StatusCode::kInternal;
  fail(std::move(proof), Status(code, device.id() + ": " + error.message()));
  if (int64_t leaked = device.unaccounted_bytes(); leaked != 0) {
    device.counters().baseline_mismatches++;
    if (log) {
      log(LogLevel::kError, device.id() + ": " + std::to_string(leaked) +
                                " bytes in use beyond the idle baseline and the live reservations after a failure");
    }
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
  char line[512];
  std::snprintf(line, sizeof line,
                "proof job=%s circuit=%s priority=%s outcome=%s device=%s prestage=%s queue_wait_ms=%.1f "
                "key_load_ms=%.1f synthesis_ms=%.1f gpu_compute_ms=%.1f ntt_h_ms=%.1f msm_ms=%.1f verify_ms=%.1f "
                "total_ms=%.1f",
                proof->job_id.c_str(), proof->circuit_id.c_str(), priority_name(proof->priority), outcome,
                t.device.empty() ? "-" : t.device.c_str(), t.prestage_fallback ? "fallback" : "ok", t.queue_wait_ms,
                t.key_load_ms, t.synthesis_ms, t.gpu_compute_ms, t.ntt_h_ms, t.msm_ms(), t.verify_ms, t.total_ms);
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
