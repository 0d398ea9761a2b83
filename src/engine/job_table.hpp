// Where jobs and their results live. An interface from the start: the in-memory table is
// the single-host default; a shared database (several daemons claiming rows) comes later.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "engine/job.hpp"

namespace cuzk::engine {

class JobTable {
 public:
  struct Inserted {
    JobRecord record;
    bool existed = false;  // the request_id named a job already in the table
  };

  virtual ~JobTable() = default;

  // Adds `job` (state QUEUED). When job.request_id is non-empty and already known, returns
  // that job instead; INVALID_ARGUMENT when its payload digest differs.
  virtual Result<Inserted> insert(JobRecord job) = 0;
  // Drops a job that admission inserted but could not queue (its request_id becomes free).
  virtual void erase(const std::string& job_id) = 0;
  virtual Result<JobRecord> get(const std::string& job_id) const = 0;
  // QUEUED -> RUNNING; no change once the job is terminal.
  virtual void mark_running(const std::string& job_id) = 0;
  // Moves a non-terminal job to a terminal state; false when it was terminal already
  // (a cancelled job stays cancelled when its proof finishes later).
  virtual bool finish(const std::string& job_id, JobState state, Status error, ProofTimings timings,
                      ProofResult result) = 0;
  // The job once it is terminal or when `timeout` passes, whichever is first.
  virtual Result<JobRecord> await(const std::string& job_id, std::chrono::milliseconds timeout) const = 0;
  // Newest first; `state` filters when given; limit 0 = all.
  virtual std::vector<JobRecord> list(std::optional<JobState> state, size_t limit) const = 0;
  // Jobs not yet terminal.
  virtual size_t in_flight() const = 0;
};

}  // namespace cuzk::engine
