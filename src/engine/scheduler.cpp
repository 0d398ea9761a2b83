#include "engine/scheduler.hpp"

namespace cuzk::engine {

Scheduler::Scheduler(size_t devices, size_t capacity) : synthesis_(capacity), prestage_(capacity), finalize_(capacity) {
  for (size_t i = 0; i < devices; ++i) devices_.push_back(std::make_unique<ProofQueue>(capacity));
}

std::vector<ProofPtr> Scheduler::remove(const std::string& job_id) {
  auto is_job = [&](const ProofPtr& p) { return p->job_id == job_id; };
  std::vector<ProofPtr> out = synthesis_.remove_if(is_job);
  for (ProofQueue* q : {&prestage_, &finalize_}) {
    for (auto& p : q->remove_if(is_job)) out.push_back(std::move(p));
  }
  for (auto& d : devices_) {
    for (auto& p : d->remove_if(is_job)) out.push_back(std::move(p));
  }
  return out;
}

std::vector<QueueDepth> Scheduler::depths() const {
  std::vector<QueueDepth> out;
  out.push_back({"synthesis", synthesis_.depths()});
  out.push_back({"prestage", prestage_.depths()});
  for (size_t i = 0; i < devices_.size(); ++i) out.push_back({"device:" + std::to_string(i), devices_[i]->depths()});
  out.push_back({"finalize", finalize_.depths()});
  return out;
}

}  // namespace cuzk::engine
