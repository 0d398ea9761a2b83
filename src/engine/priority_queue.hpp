// The bounded queue in front of every pipeline stage: one FIFO per priority, popped highest
// priority first, so a CRITICAL proof overtakes queued lower-priority work at each stage.
#pragma once

#include <array>
#include <chrono>
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

  // Waits until an item of at least `at_least` is queued; false once closed with none left.
  bool wait_nonempty(Priority at_least = Priority::kLow) {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || any_at_least(at_least); });
    return any_at_least(at_least);
  }

  // The highest-priority item and up to max - 1 more of its lane that `joins(first, item)`
  // accepts, oldest first, waiting up to `wait` for them to arrive while fewer than `max`
  // are taken. A CRITICAL item goes alone and at once; the wait ends early when an item of
  // a higher priority than the batch's arrives. Only items of at least `at_least`; empty
  // when there is none (without waiting for a first item).
  template <class Joins>
  std::vector<T> pop_batch(size_t max, std::chrono::milliseconds wait, Joins joins,
                           Priority at_least = Priority::kLow) {
    std::vector<T> out;
    std::unique_lock lock(mu_);
    if (!any_at_least(at_least)) return out;
    size_t lane = 0;
    for (Priority p : kPrioritiesHighFirst) {
      if (!lanes_[size_t(p)].empty()) {
        lane = size_t(p);
        break;
      }
    }
    auto& q = lanes_[lane];
    out.push_back(std::move(q.front()));
    q.pop_front();
    --size_;
    if (Priority(lane) == Priority::kCritical) max = 1;
    auto take = [&] {
      for (auto it = q.begin(); it != q.end() && out.size() < max;) {
        if (joins(out.front(), *it)) {
          out.push_back(std::move(*it));
          it = q.erase(it);
          --size_;
        } else {
          ++it;
        }
      }
    };
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
      take();
      if (out.size() >= max || closed_ || higher_than_locked(Priority(lane))) break;
      if (not_empty_.wait_until(lock, deadline) == std::cv_status::timeout) {
        take();
        break;
      }
    }
    not_full_.notify_all();
    return out;
  }

  // Puts an item taken out back at the head of its lane (a batch cut short), whatever the
  // capacity: it was in the queue a moment ago.
  void push_front(T item, Priority p) {
    std::lock_guard lock(mu_);
    lanes_[size_t(p)].push_front(std::move(item));
    ++size_;
    not_empty_.notify_all();
  }

  // Whether an item of a higher priority than `p` waits.
  bool waiting_above(Priority p) const {
    std::lock_guard lock(mu_);
    return higher_than_locked(p);
  }

  bool closed() const {
    std::lock_guard lock(mu_);
    return closed_;
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
  bool higher_than_locked(Priority p) const {
    for (size_t i = size_t(p) + 1; i < kPriorityCount; ++i) {
      if (!lanes_[i].empty()) return true;
    }
    return false;
  }

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
