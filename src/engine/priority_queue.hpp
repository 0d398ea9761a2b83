// The bounded queue in front of every pipeline stage: one FIFO per priority, popped highest
// priority first, so a CRITICAL proof overtakes queued lower-priority work at each stage.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/priority.hpp"

namespace cuzk::engine {

template <class T>
class PriorityQueue {
 public:
  explicit PriorityQueue(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
  PriorityQueue(const PriorityQueue&) = delete;
  PriorityQueue& operator=(const PriorityQueue&) = delete;

  // Waits while the queue is full; false when it has been closed.
  bool push(T item, Priority p) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return closed_ || size_ < capacity_; });
    if (closed_) return false;
    put(std::move(item), p);
    return true;
  }

  // False when full or closed; the item is left with the caller then.
  bool try_push(T& item, Priority p) {
    std::lock_guard lock(mu_);
    if (closed_ || size_ >= capacity_) return false;
    put(std::move(item), p);
    return true;
  }

  // The highest-priority item of at least `at_least`, oldest first; waits while there is none.
  // nullopt once closed with none left (a popper of CRITICAL only leaves the rest to others).
  std::optional<T> pop(Priority at_least = Priority::kLow) {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || any_at_least(at_least); });
    for (Priority p : kPrioritiesHighFirst) {
      if (p < at_least) break;
      auto& q = lanes_[size_t(p)];
      if (q.empty()) continue;
      T item = std::move(q.front());
      q.pop_front();
      --size_;
      not_full_.notify_one();
      return item;
    }
    return std::nullopt;
  }

  // Takes out every item `pred` accepts (cancellation), in no particular order.
  template <class Pred>
  std::vector<T> remove_if(Pred pred) {
    std::vector<T> out;
    std::lock_guard lock(mu_);
    for (auto& q : lanes_) {
      for (auto it = q.begin(); it != q.end();) {
        if (pred(*it)) {
          out.push_back(std::move(*it));
          it = q.erase(it);
          --size_;
        } else {
          ++it;
        }
      }
    }
    if (!out.empty()) not_full_.notify_all();
    return out;
  }

  // Pushes fail from now on; pop() drains what is left, then returns nullopt.
  void close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  std::array<size_t, kPriorityCount> depths() const {
    std::lock_guard lock(mu_);
    std::array<size_t, kPriorityCount> d{};
    for (size_t i = 0; i < kPriorityCount; ++i) d[i] = lanes_[i].size();
    return d;
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return size_;
  }
  size_t capacity() const { return capacity_; }

 private:
  void put(T item, Priority p) {
    lanes_[size_t(p)].push_back(std::move(item));
    ++size_;
    not_empty_.notify_all();  // poppers differ in what they take: wake all, the right one takes it
  }
  bool any_at_least(Priority at_least) const {
    for (Priority p : kPrioritiesHighFirst) {
      if (p < at_least) break;
      if (!lanes_[size_t(p)].empty()) return true;
    }
    return false;
  }

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::array<std::deque<T>, kPriorityCount> lanes_;
  size_t size_ = 0;
  bool closed_ = false;
};

}  // namespace cuzk::engine
