#include "engine/admission.hpp"

#include <cstdio>

namespace cuzk::engine {

uint64_t payload_digest(const std::string& circuit_id, std::span<const uint8_t> wtns) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint8_t b) {
    h ^= b;
    h *= 1099511628211ull;
  };
  for (char c : circuit_id) mix(uint8_t(c));
  mix(0);
  for (uint8_t b : wtns) mix(b);
  return h;
}

Admission::Admission(Pipeline& p) : p_(p), id_rng_(std::random_device{}()) {}

std::string Admission::next_job_id() {
  std::lock_guard lock(id_mu_);
  char buf[24];
  std::snprintf(buf, sizeof buf, "job-%016llx", static_cast<unsigned long long>(id_rng_()));
  return buf;
}

Result<Submitted> Admission::submit(const SubmitRequest& r) {
  if (draining_) return Status(StatusCode::kUnavailable, "the daemon is shutting down and admits no new proofs");
  CUZK_RETURN_IF_ERROR(check_circuit_id(r.circuit_id));
  CUZK_ASSIGN_OR_RETURN(CircuitInfo circuit, p_.keys.info(r.circuit_id));
  CUZK_ASSIGN_OR_RETURN(auto witness, decode_witness(circuit.shape, r.wtns));

  // Could it ever fit? Then it is worth queueing; otherwise say so now.
  const uint64_t work = 3 * circuit.shape.domain_bytes();
  if (!p_.host.can_ever_fit(witness->bytes() + work, r.priority)) {
    return Status(StatusCode::kResourceExhausted,
                  "circuit " + r.circuit_id + ": a proof needs " + format_bytes(witness->bytes() + work) +
                      " of host memory, the budget allows " + format_bytes(p_.host.limit()));
  }
  bool fits_a_device = false;
  for (Device* d : p_.devices) {
    if (r.pinned_device && d->index() != *r.pinned_device) continue;
    const BackendBytes b = d->index() < circuit.device_bytes.size() ? circuit.device_bytes[d->index()] : BackendBytes{};
    fits_a_device |=
        d->memory().can_ever_fit(d->stage_bytes(circuit.shape, b.upload, b.compute).fallback_path(), r.priority);
  }
  if (!fits_a_device) {
    return Status(
        StatusCode::kResourceExhausted,
        "circuit " + r.circuit_id + ": a proof does not fit the memory of any device, even without pre-staging");
  }

  JobRecord rec;
  rec.job_id = next_job_id();
  rec.request_id = r.request_id;
  rec.circuit_id = r.circuit_id;
  rec.priority = r.priority;
  rec.payload_digest = payload_digest(r.circuit_id, r.wtns);
  rec.submitted = SystemClock::now();
  CUZK_ASSIGN_OR_RETURN(JobTable::Inserted ins, p_.jobs.insert(rec));
  if (ins.existed) return Submitted{ins.record.job_id, true};

  auto proof = std::make_shared<PendingProof>();
  proof->job_id = rec.job_id;
  proof->circuit_id = r.circuit_id;
  proof->priority = r.priority;
  proof->shape = circuit.shape;
  proof->pinned_device = r.pinned_device;
  p_.track(proof);
  auto reserved = p_.host.reserve(witness->bytes(), r.priority, proof->cancel.get_token());
  if (!reserved.is_ok()) {
    p_.fail(proof, reserved.status());
    return Submitted{rec.job_id, false};
  }
  proof->host_witness = std::move(*reserved);
  proof->witness = std::move(witness);
  proof->enter_queue();
  ProofPtr queued = proof;
  if (!p_.scheduler.synthesis().try_push(queued, r.priority)) {
    p_.untrack(rec.job_id);
    p_.jobs.erase(rec.job_id);
    return Status(StatusCode::kResourceExhausted, "the admission queue is full (" +
                                                      std::to_string(p_.scheduler.synthesis().capacity()) +
                                                      " proofs waiting); retry later");
  }
  return Submitted{rec.job_id, false};
}

}  // namespace cuzk::engine
