#include "engine/memory_job_table.hpp"

#include <algorithm>

namespace cuzk::engine {

Status MemoryJobTable::unknown(const std::string& job_id) const {
  return not_found("job " + job_id + " is not known (never submitted, or its result has expired)");
}

Result<JobTable::Inserted> MemoryJobTable::insert(JobRecord job) {
  std::lock_guard lock(mu_);
  expire_locked();
  if (!job.request_id.empty()) {
    auto it = by_request_.find(job.request_id);
    if (it != by_request_.end()) {
      const JobRecord& known = jobs_.at(it->second);
      if (known.payload_digest != job.payload_digest || known.circuit_id != job.circuit_id) {
        return invalid_argument("request_id " + job.request_id + " is job " + known.job_id +
                                ", submitted with a different circuit or witness");
      }
      return Inserted{known, true};
    }
    by_request_[job.request_id] = job.job_id;
  }
  submit_order_.push_back(job.job_id);
  auto [it, added] = jobs_.emplace(job.job_id, std::move(job));
  return Inserted{it->second, false};
}

void MemoryJobTable::erase(const std::string& job_id) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  if (!it->second.request_id.empty()) by_request_.erase(it->second.request_id);
  jobs_.erase(it);
  std::erase(submit_order_, job_id);
}

Result<JobRecord> MemoryJobTable::get(const std::string& job_id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return unknown(job_id);
  return it->second;
}

void MemoryJobTable::mark_running(const std::string& job_id) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end() && it->second.state == JobState::kQueued) it->second.state = JobState::kRunning;
}

bool MemoryJobTable::finish(const std::string& job_id, JobState state, Status error, ProofTimings timings,
                            ProofResult result) {
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || is_terminal(it->second.state)) return false;
    JobRecord& j = it->second;
    j.state = state;
    j.error = std::move(error);
    j.timings = std::move(timings);
    j.result = std::move(result);
    j.finished = SystemClock::now();
    finished_order_.push_back(job_id);
    expire_locked();
  }
  changed_.notify_all();
  return true;
}

Result<JobRecord> MemoryJobTable::await(const std::string& job_id, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  auto done = [&] {
    auto it = jobs_.find(job_id);
    return it == jobs_.end() || is_terminal(it->second.state);
  };
  changed_.wait_for(lock, timeout, done);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return unknown(job_id);
  return it->second;
}

std::vector<JobRecord> MemoryJobTable::list(std::optional<JobState> state, size_t limit) const {
  std::lock_guard lock(mu_);
  std::vector<JobRecord> out;
  for (auto it = submit_order_.rbegin(); it != submit_order_.rend(); ++it) {
    const JobRecord& j = jobs_.at(*it);
    if (state && j.state != *state) continue;
    out.push_back(j);
    if (limit != 0 && out.size() >= limit) break;
  }
  return out;
}

size_t MemoryJobTable::in_flight() const {
  std::lock_guard lock(mu_);
  return jobs_.size() - finished_order_.size();
}

void MemoryJobTable::expire_locked() {
  auto now = SystemClock::now();
  while (!finished_order_.empty()) {
    const JobRecord& oldest = jobs_.at(finished_order_.front());
    if (finished_order_.size() <= max_results_ && now - oldest.finished < ttl_) break;
    std::string id = finished_order_.front();
    finished_order_.pop_front();
    if (!oldest.request_id.empty()) by_request_.erase(oldest.request_id);
    jobs_.erase(id);
    std::erase(submit_order_, id);
  }
}

}  // namespace cuzk::engine
