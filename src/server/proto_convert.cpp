#include "server/proto_convert.hpp"

#include <chrono>

namespace cuzk::server {

grpc::Status to_grpc(const Status& s) {
  if (s.is_ok()) return grpc::Status::OK;
  grpc::StatusCode code = grpc::StatusCode::INTERNAL;
  switch (s.code()) {
    case StatusCode::kOk:
      return grpc::Status::OK;
    case StatusCode::kInvalidArgument:
    case StatusCode::kDataLoss:
    case StatusCode::kOutOfRange:
      code = grpc::StatusCode::INVALID_ARGUMENT;
      break;
    case StatusCode::kNotFound:
      code = grpc::StatusCode::NOT_FOUND;
      break;
    case StatusCode::kFailedPrecondition:
      code = grpc::StatusCode::FAILED_PRECONDITION;
      break;
    case StatusCode::kResourceExhausted:
      code = grpc::StatusCode::RESOURCE_EXHAUSTED;
      break;
    case StatusCode::kUnavailable:
      code = grpc::StatusCode::UNAVAILABLE;
      break;
    case StatusCode::kInternal:
    case StatusCode::kDeviceLost:
      code = grpc::StatusCode::INTERNAL;
      break;
  }
  return {code, s.message()};
}

const char* grpc_code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "UNKNOWN";
  }
}

engine::Priority from_proto(v1::Priority p) {
  switch (p) {
    case v1::PRIORITY_LOW:
      return engine::Priority::kLow;
    case v1::PRIORITY_HIGH:
      return engine::Priority::kHigh;
    case v1::PRIORITY_CRITICAL:
      return engine::Priority::kCritical;
    default:
      return engine::Priority::kNormal;
  }
}

v1::Priority to_proto(engine::Priority p) {
  switch (p) {
    case engine::Priority::kLow:
      return v1::PRIORITY_LOW;
    case engine::Priority::kNormal:
      return v1::PRIORITY_NORMAL;
    case engine::Priority::kHigh:
      return v1::PRIORITY_HIGH;
    case engine::Priority::kCritical:
      return v1::PRIORITY_CRITICAL;
  }
  return v1::PRIORITY_NORMAL;
}

v1::JobState to_proto(engine::JobState s) {
  switch (s) {
    case engine::JobState::kQueued:
      return v1::JOB_STATE_QUEUED;
    case engine::JobState::kRunning:
      return v1::JOB_STATE_RUNNING;
    case engine::JobState::kCompleted:
      return v1::JOB_STATE_COMPLETED;
    case engine::JobState::kFailed:
      return v1::JOB_STATE_FAILED;
    case engine::JobState::kCancelled:
      return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

v1::KeyTier to_proto(engine::KeyTier t) {
  switch (t) {
    case engine::KeyTier::kDisk:
      return v1::KEY_TIER_DISK;
    case engine::KeyTier::kMapped:
      return v1::KEY_TIER_MAPPED;
    case engine::KeyTier::kPinnedHost:
      return v1::KEY_TIER_PINNED_HOST;
    case engine::KeyTier::kDevice:
      return v1::KEY_TIER_DEVICE;
  }
  return v1::KEY_TIER_UNSPECIFIED;
}

namespace {
int64_t unix_ms(engine::SystemClock::time_point t) {
  if (t == engine::SystemClock::time_point{}) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
}  // namespace

void fill(const engine::JobRecord& r, v1::JobInfo& out) {
  out.set_job_id(r.job_id);
  out.set_request_id(r.request_id);
  out.set_circuit_id(r.circuit_id);
  out.set_priority(to_proto(r.priority));
  out.set_state(to_proto(r.state));
  out.set_submitted_unix_ms(unix_ms(r.submitted));
  out.set_finished_unix_ms(unix_ms(r.finished));
  if (!r.error.is_ok()) {
    out.set_error(r.error.message());
    out.set_error_code(grpc_code_name(to_grpc(r.error).error_code()));
  }
}

void fill(const engine::ProofTimings& t, v1::ProofTimings& out) {
  out.set_admission_ms(t.admission_ms);
  out.set_queue_wait_ms(t.queue_wait_ms);
  out.set_key_load_ms(t.key_load_ms);
  out.set_synthesis_ms(t.synthesis_ms);
  out.set_prestage(t.prestage_name());
  out.set_prestage_ms(t.prestage_ms);
  out.set_gpu_compute_ms(t.gpu_compute_ms);
  out.set_ntt_h_ms(t.ntt_h_ms);
  out.set_msm_ms(t.msm_ms());
  out.set_msm_a_ms(t.msm_a_ms);
  out.set_msm_b1_ms(t.msm_b1_ms);
  out.set_msm_b2_ms(t.msm_b2_ms);
  out.set_msm_l_ms(t.msm_l_ms);
  out.set_msm_h_ms(t.msm_h_ms);
  out.set_verify_ms(t.verify_ms);
  out.set_finalize_ms(t.finalize_ms);
  out.set_total_ms(t.total_ms);
  out.set_device(t.device);
  out.set_batch(t.batch);
  out.set_paused_ms(t.paused_ms);
  out.set_readback_ms(t.readback_ms);
  out.set_memory_wait_ms(t.memory_wait_ms);
  out.set_upload_ms(t.upload_ms);
  out.set_upload_host_copy_ms(t.upload_host_copy_ms);
  out.set_upload_link_wait_ms(t.upload_link_wait_ms);
}

void fill(const engine::ProofResult& r, v1::ProofResult& out) {
  out.set_proof_json(r.proof_json);
  out.set_public_json(r.public_json);
  out.set_proof_bytes(std::string(r.proof_bytes.begin(), r.proof_bytes.end()));
  for (const auto& s : r.public_signals) out.add_public_signals(s);
  out.set_curve(r.curve);
}

void fill(const engine::KeyPlacement& p, v1::KeyPlacement& out) {
  out.set_device(p.device);
  out.set_tier(to_proto(p.tier));
  out.set_device_bytes(p.device_bytes);
}

void fill(const engine::CircuitInfo& c, v1::CircuitInfo& out) {
  out.set_circuit_id(c.circuit_id);
  out.set_zkey_path(c.zkey_path);
  out.set_curve(formats::snarkjs_curve_name(c.shape.curve));
  out.set_n_vars(c.shape.n_vars);
  out.set_n_public(c.shape.n_public);
  out.set_domain_size(c.shape.domain_size);
  out.set_tier(to_proto(c.tier));
  out.set_key_bytes(c.shape.key_bytes);
  for (const auto& p : c.placements) fill(p, *out.add_placements());
}

void fill(const engine::EngineStatus& s, v1::GetStatusResponse& out) {
  out.set_ready(s.ready);
  out.set_draining(s.draining);
  for (const auto& q : s.queues) {
    auto* qs = out.add_queues();
    qs->set_stage(q.stage);
    qs->set_low(uint32_t(q.depth[size_t(engine::Priority::kLow)]));
    qs->set_normal(uint32_t(q.depth[size_t(engine::Priority::kNormal)]));
    qs->set_high(uint32_t(q.depth[size_t(engine::Priority::kHigh)]));
    qs->set_critical(uint32_t(q.depth[size_t(engine::Priority::kCritical)]));
  }
  for (const auto& d : s.devices) {
    auto* ds = out.add_devices();
    ds->set_id(d.id);
    ds->set_name(d.name);
    ds->set_backend(d.backend);
    ds->set_workers(d.workers);
    ds->set_busy_workers(d.busy_workers);
    ds->set_vram_total_bytes(d.total_bytes);
    ds->set_vram_free_bytes(d.free_bytes);
    ds->set_vram_baseline_bytes(d.baseline_bytes);
    ds->set_vram_reserved_bytes(d.reserved_bytes);
    ds->set_proofs_completed(d.completed);
    ds->set_proofs_failed(d.failed);
    ds->set_prestage_fallbacks(d.prestage_fallbacks);
    ds->set_poisoned(d.poisoned);
    ds->set_resets(d.resets);
    ds->set_alloc_cached_bytes(d.cache.cached_bytes);
    ds->set_alloc_cache_hits(d.cache.hits);
    ds->set_alloc_cache_misses(d.cache.misses);
    ds->set_alloc_trims(d.cache.trims);
    ds->set_dead(d.dead);
  }
  for (const auto& c : s.circuits) {
    if (c.tier == engine::KeyTier::kDisk) continue;
    auto* k = out.add_keys();
    k->set_circuit_id(c.circuit_id);
    k->set_tier(to_proto(c.tier));
    k->set_bytes(c.shape.key_bytes);
    k->set_refs(c.refs);
    for (const auto& p : c.placements) fill(p, *k->add_placements());
    k->set_mapped_bytes(c.mapped_bytes);
    k->set_pinned_host_bytes(c.pinned_host_bytes);
    k->set_device_bytes(c.resident_device_bytes);
  }
  auto* hm = out.mutable_host_memory();
  hm->set_limit_bytes(s.host_limit);
  hm->set_in_flight_bytes(s.host_in_use);
  hm->set_peak_bytes(s.host_peak);
  out.set_key_cache_limit_bytes(s.key_cache_limit);
  out.set_key_cache_bytes(s.key_cache_bytes);
  out.set_jobs_in_flight(uint32_t(s.jobs_in_flight));
}

void fill_await(const engine::JobRecord& r, v1::AwaitProofResponse& out) {
  fill(r, *out.mutable_job());
  switch (r.state) {
    case engine::JobState::kCompleted:
      out.set_outcome(v1::AwaitProofResponse::COMPLETED);
      fill(r.result, *out.mutable_result());
      fill(r.timings, *out.mutable_timings());
      break;
    case engine::JobState::kFailed:
      out.set_outcome(v1::AwaitProofResponse::FAILED);
      break;
    case engine::JobState::kCancelled:
      out.set_outcome(v1::AwaitProofResponse::CANCELLED);
      break;
    default:
      out.set_outcome(v1::AwaitProofResponse::TIMEOUT);
      break;
  }
}

}  // namespace cuzk::server
