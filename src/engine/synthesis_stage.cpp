#include "engine/stages.hpp"

namespace cuzk::engine {

void run_synthesis_stage(Pipeline& p) {
  while (auto next = p.scheduler.synthesis().pop()) {
    ProofPtr proof = std::move(*next);
    proof->leave_queue();
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    p.jobs.mark_running(proof->job_id);
    const auto t0 = PendingProof::Clock::now();
    auto lease = p.keys.acquire(proof->circuit_id, proof->cancel.get_token());
    if (!lease.is_ok()) {
      p.fail(std::move(proof), lease.status());
      continue;
    }
    proof->key = std::move(*lease);
    proof->timings.key_load_ms = proof->key.load_ms();
    auto work = p.host.reserve(3 * proof->shape.domain_bytes(), proof->priority, proof->cancel.get_token());
    if (!work.is_ok()) {
      p.fail(std::move(proof), work.status());
      continue;
    }
    proof->host_work = std::move(*work);
    proof->timings.memory_wait_ms += PendingProof::ms_since(t0) - proof->timings.key_load_ms;
    proof->enter_queue();
    Priority prio = proof->priority;
    if (!p.scheduler.prestage().push(std::move(proof), prio)) return;
  }
}

}  // namespace cuzk::engine
