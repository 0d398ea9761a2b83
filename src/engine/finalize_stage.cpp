#include "engine/stages.hpp"

namespace cuzk::engine {

void run_finalize_stage(Pipeline& p) {
  while (auto next = p.scheduler.finalize().pop()) {
    ProofPtr proof = std::move(*next);
    proof->leave_queue();
    if (proof->cancelled()) {
      p.retire(std::move(proof), JobState::kCancelled, Status::ok());
      continue;
    }
    auto t0 = PendingProof::Clock::now();
    Status valid = proof->key.key().verify(*proof->proved);
    proof->timings.verify_ms = PendingProof::ms_since(t0);
    if (!valid.is_ok()) {
      p.metrics.count("verification_failures", "device", proof->timings.device);
      p.fail(std::move(proof), internal_error(proof->timings.device +
                                              " produced a proof that does not verify (not returned): " +
                                              valid.message()));
      continue;
    }
    ProofResult result = proof->key.key().serialize(*proof->proved);
    proof->timings.finalize_ms = PendingProof::ms_since(t0);
    p.retire(std::move(proof), JobState::kCompleted, Status::ok(), std::move(result));
  }
}

}  // namespace cuzk::engine
