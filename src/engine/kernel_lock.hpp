// The lock around a device's kernel region, handed to waiters by priority (FIFO within
// one): a CRITICAL proof whose worker arrives after a NORMAL one's still goes first.
//
// With the critical lane (on by default), a CRITICAL proof does not wait for a lower-priority
// proof already inside: it enters beside it, and the two proofs' kernels share the device
// (each proof has its own streams and its own reserved memory), so a deadline-critical proof
// never waits out a whole large proof's kernel region. At most one CRITICAL proof is inside
// at a time; lower-priority proofs wait while one is inside or waiting.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <utility>

#include "engine/priority.hpp"

namespace cuzk::engine {

class KernelLock {
 public:
  explicit KernelLock(bool critical_lane = true) : critical_lane_(critical_lane) {}

  void set_critical_lane(bool on) {
    std::lock_guard l(mu_);
    critical_lane_ = on;
  }

  void lock(Priority p) {
    std::unique_lock l(mu_);
    const Ticket me{-int(p), next_++};
    waiting_.insert(me);
    free_.wait(l, [&] {
      if (*waiting_.begin() != me) return false;
      if (critical_lane_ && p == Priority::kCritical) return critical_inside_ == 0;
      return inside_ == 0;
    });
    waiting_.erase(me);
    ++inside_;
    if (p == Priority::kCritical) ++critical_inside_;
    free_.notify_all();  // the next in line may be allowed in beside this one
  }
  void unlock(Priority p) {
    {
      std::lock_guard l(mu_);
      --inside_;
      if (p == Priority::kCritical) --critical_inside_;
    }
    free_.notify_all();
  }
  // A CRITICAL proof is inside the region now.
  bool critical_inside() const {
    std::lock_guard l(mu_);
    return critical_inside_ > 0;
  }
  // Waits until no CRITICAL proof is inside, for at most `max`. True when none is.
  bool wait_no_critical(std::chrono::milliseconds max) {
    std::unique_lock l(mu_);
    return free_.wait_for(l, max, [&] { return critical_inside_ == 0; });
  }
  // Proofs inside the region now (0, 1, or 2 with the critical lane).
  int inside() const {
    std::lock_guard l(mu_);
    return inside_;
  }

  class Guard {
   public:
    Guard(KernelLock& k, Priority p) : k_(k), p_(p) { k_.lock(p); }
    ~Guard() { k_.unlock(p_); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    KernelLock& k_;
    Priority p_;
  };

 private:
  using Ticket = std::pair<int, uint64_t>;  // (-priority, arrival): the set's first is served next
  mutable std::mutex mu_;
  std::condition_variable free_;
  std::set<Ticket> waiting_;
  uint64_t next_ = 0;
  int inside_ = 0, critical_inside_ = 0;
  bool critical_lane_;
};

}  // namespace cuzk::engine
