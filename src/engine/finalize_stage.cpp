#include "engine/circuit_key.hpp"
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
    const LoadedKey& key = proof->key.key();
    auto proved = key.finalize(proof->device, *proof->staged, *proof->witness);
    if (!proved.is_ok()) {
      p.fail(std::move(proof), proved.status());
      continue;
    }
    proof->proved = std::move(*proved);
    proof->staged.reset();
    const KernelTimings& t = proof->proved->timings;
    proof->timings.upload_ms = t.upload_ms;
    proof->timings.upload_host_copy_ms = t.upload_host_copy_ms;
    proof->timings.upload_link_wait_ms = t.upload_link_wait_ms;
    proof->timings.upload_setup_ms = t.upload_setup_ms;
    proof->timings.upload_alloc_ms = t.upload_alloc_ms;
    proof->timings.upload_acquire_ms = t.upload_acquire_ms;
    proof->timings.upload_issue_ms = t.upload_issue_ms;
    proof->timings.synthesis_ms = t.synthesis_ms;
    proof->timings.ntt_h_ms = t.ntt_h_ms;
    proof->timings.msm_a_ms = t.msm_a_ms;
    proof->timings.msm_b1_ms = t.msm_b1_ms;
    proof->timings.msm_b2_ms = t.msm_b2_ms;
    proof->timings.msm_l_ms = t.msm_l_ms;
    proof->timings.msm_h_ms = t.msm_h_ms;
    auto v0 = PendingProof::Clock::now();
    Status valid = key.verify(*proof->proved);
    proof->timings.verify_ms = PendingProof::ms_since(v0);
    if (!valid.is_ok()) {
      p.metrics.count("verification_failures", "device", proof->timings.device);
      // The error before the move: the order in which arguments are evaluated is unspecified.
      Status error = internal_error(proof->timings.device +
                                    " produced a proof that does not verify (not returned): " + valid.message());
      p.fail(std::move(proof), std::move(error));
      continue;
    }
    ProofResult result = key.serialize(*proof->proved);
    proof->timings.finalize_ms = PendingProof::ms_since(t0);
    p.retire(std::move(proof), JobState::kCompleted, Status::ok(), std::move(result));
  }
}

}  // namespace cuzk::engine
