// The in-memory JobTable: finished results are kept for `result_ttl` and at most
// `max_results` of them (oldest dropped first); jobs in flight are never dropped.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "engine/job_table.hpp"

namespace cuzk::engine {

class MemoryJobTable final : public JobTable {
 public:
  MemoryJobTable(std::chrono::seconds result_ttl, size_t max_results) : ttl_(result_ttl), max_results_(max_results) {}

  Result<Inserted> insert(JobRecord job) override;
  void erase(const std::string& job_id) override;
  Result<JobRecord> get(const std::string& job_id) const override;
  void mark_running(const std::string& job_id) override;
  bool finish(const std::string& job_id, JobState state, Status error, ProofTimings timings,
              ProofResult result) override;
  Result<JobRecord> await(const std::string& job_id, std::chrono::milliseconds timeout) const override;
  std::vector<JobRecord> list(std::optional<JobState> state, size_t limit) const override;
  size_t in_flight() const override;

 private:
  // Drops finished jobs past their time or beyond the count (lock held).
  void expire_locked();
  Status unknown(const std::string& job_id) const;

  const std::chrono::seconds ttl_;
  const size_t max_results_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::map<std::string, JobRecord> jobs_;
  std::map<std::string, std::string> by_request_;  // request_id -> job_id
  std::deque<std::string> finished_order_;         // job ids, oldest finish first
  std::deque<std::string> submit_order_;           // job ids, oldest submission first
};

}  // namespace cuzk::engine
