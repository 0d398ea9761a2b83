// The queues between the pipeline's stages, each a priority queue:
//   admission -> synthesis -> prestage -> device[i] (its workers) -> finalize.
// Cancellation takes a job out of whichever queue holds it.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/pending_proof.hpp"
#include "engine/priority_queue.hpp"

namespace cuzk::engine {

using ProofQueue = PriorityQueue<ProofPtr>;

struct QueueDepth {
  std::string stage;
  std::array<size_t, kPriorityCount> depth{};  // indexed by Priority
};

class Scheduler {
 public:
  Scheduler(size_t devices, size_t capacity);

  ProofQueue& synthesis() { return synthesis_; }
  ProofQueue& prestage() { return prestage_; }
  ProofQueue& device(size_t i) { return *devices_[i]; }
  ProofQueue& finalize() { return finalize_; }
  size_t device_count() const { return devices_.size(); }

  // Removes the job from every queue; what was removed (at most one proof).
  std::vector<ProofPtr> remove(const std::string& job_id);
  // Proofs waiting for device i (its queue), for placement.
  size_t device_backlog(size_t i) const { return devices_[i]->size(); }
  std::vector<QueueDepth> depths() const;

 private:
  ProofQueue synthesis_, prestage_;
  std::vector<std::unique_ptr<ProofQueue>> devices_;
  ProofQueue finalize_;
};

}  // namespace cuzk::engine
