// The lock around a device's kernel region, handed to waiters by priority (FIFO within
// one): a CRITICAL proof whose worker arrives after a NORMAL one's still goes first, so it
// waits for at most the proof already inside.
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
  void lock(Priority p) {
    std::unique_lock l(mu_);
    const Ticket me{-int(p), next_++};
    waiting_.insert(me);
    free_.wait(l, [&] { return !held_ && *waiting_.begin() == me; });
    waiting_.erase(me);
    held_ = true;
  }
  void unlock() {
    {
      std::lock_guard l(mu_);
      held_ = false;
    }
    free_.notify_all();
  }

  class Guard {
   public:
    Guard(KernelLock& k, Priority p) : k_(k) { k_.lock(p); }
    ~Guard() { k_.unlock(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    KernelLock& k_;
  };

 private:
  using Ticket = std::pair<int, uint64_t>;  // (-priority, arrival): the set's first is served next
  std::mutex mu_;
  std::condition_variable free_;
  std::set<Ticket> waiting_;
  uint64_t next_ = 0;
  bool held_ = false;
};

}  // namespace cuzk::engine
