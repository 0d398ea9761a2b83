// Admission: checks a request before any work is queued — the circuit is registered, the
// witness decodes for its key (curve, length), the proof could ever fit the host and
// device budgets — records the job (idempotent on request_id), reserves the witness's host
// memory (waiting, never overcommitting) and queues it for synthesis.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>

#include "engine/pipeline.hpp"

namespace cuzk::engine {

struct SubmitRequest {
  std::string request_id, circuit_id;
  Priority priority = Priority::kNormal;
  // The .wtns: bytes the job takes over (admission moves them out, leaving the buffer empty;
  // the values are read in place until the proof is done), or else `wtns`, bytes read during
  // submit only (copied once into a buffer the job owns).
  std::shared_ptr<formats::WtnsBuffer> wtns_buffer;
  std::span<const uint8_t> wtns;
  std::optional<size_t> pinned_device;  // self-tests
  // When the caller began taking the witness in (reading its file, its stream's first chunk):
  // the proof's admission_ms and total_ms count from there. Unset: from submit().
  std::optional<std::chrono::steady_clock::time_point> received_at;
};

struct Submitted {
  std::string job_id;
  bool deduplicated = false;
};

class Admission {
 public:
  explicit Admission(Pipeline& p);

  Result<Submitted> submit(const SubmitRequest& r);
  // From now on every submit answers UNAVAILABLE.
  void stop_admitting() { draining_ = true; }
  bool draining() const { return draining_; }
  // The threads that take a witness in (read, digest, range check): the host pool of the
  // device it is pinned to, or of the first device (null without devices).
  ThreadPool* intake_pool(std::optional<size_t> device = std::nullopt) const;

 private:
  std::string next_job_id();

  Pipeline& p_;
  std::atomic<bool> draining_{false};
  std::mutex id_mu_;
  std::mt19937_64 id_rng_;
};

// A fast 64-bit hash (not cryptographic) of the circuit id and the witness bytes: what makes
// two submissions under one request_id "the same". The same value with or without a pool.
uint64_t payload_digest(const std::string& circuit_id, std::span<const uint8_t> wtns, ThreadPool* pool = nullptr);

}  // namespace cuzk::engine
