// A small fixed-size pool of std::threads for data-parallel loops.
//
// Work is handed out as batches of numbered tasks; every thread (the caller included)
// claims task indices from an atomic counter until the batch is exhausted. Because the
// caller always works on its own batch, nested calls from inside a task cannot deadlock:
// at worst the caller runs every task itself.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk {

class ThreadPool {
 public:
  static size_t default_threads() {
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
  }

  // `threads` counts the caller: a pool of size 1 runs everything on the calling thread.
  explicit ThreadPool(size_t threads = default_threads()) : size_(threads == 0 ? 1 : threads) {
    workers_.reserve(size_ - 1);
    for (size_t i = 0; i + 1 < size_; ++i) workers_.emplace_back([this] { worker_loop(); });
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  // Threads that execute work, the caller included.
  size_t size() const { return size_; }

  // Runs task(i) for every i in [0, count) and returns when all have finished. The first
  // exception thrown by a task is rethrown here (after the remaining tasks have run).
  void run(size_t count, const std::function<void(size_t)>& task) {
    if (count == 0) return;
    if (count == 1 || size_ == 1) {
      for (size_t i = 0; i < count; ++i) task(i);
      return;
    }
    auto batch = std::make_shared<Batch>(count, task);
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(batch);
    }
    if (count - 1 >= workers_.size()) {
      cv_.notify_all();
    } else {
      for (size_t i = 0; i + 1 < count; ++i) cv_.notify_one();
    }
    batch->work();
    std::unique_lock<std::mutex> lock(batch->mu);
    batch->cv.wait(lock, [&] { return batch->done == batch->count; });
    if (batch->error) std::rethrow_exception(batch->error);
  }

  // Calls f(lo, hi) over disjoint subranges that cover [begin, end), each at least
  // `min_chunk` long (except possibly the last), split into about `chunks_per_thread`
  // pieces per thread so uneven pieces balance out.
  template <class F>
  void parallel_for(size_t begin, size_t end, F&& f, size_t min_chunk = 1, size_t chunks_per_thread = 1) {
    if (end <= begin) return;
    size_t n = end - begin;
    size_t pieces = std::max<size_t>(1, std::min(size_ * chunks_per_thread, n / std::max<size_t>(1, min_chunk)));
    if (pieces == 1) {
      f(begin, end);
      return;
    }
    size_t base = n / pieces, extra = n % pieces;
    run(pieces, [&](size_t i) {
      size_t lo = begin + i * base + std::min(i, extra);
      size_t hi = lo + base + (i < extra ? 1 : 0);
      f(lo, hi);
    });
  }

 private:
  struct Batch {
    Batch(size_t n, const std::function<void(size_t)>& t) : count(n), task(t) {}
    // Claims and runs tasks until none are left; the last finisher wakes the owner.
    void work() {
      for (;;) {
        size_t i = next.fetch_add(1, std::memory_order_relaxed);
        if (i >= count) return;
        try {
          task(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu);
          if (!error) error = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mu);
        if (++done == count) cv.notify_all();
      }
    }
    bool exhausted() const { return next.load(std::memory_order_relaxed) >= count; }

    const size_t count;
    const std::function<void(size_t)>& task;  // outlives the batch: run() waits for it
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;
    std::exception_ptr error;
  };

  void worker_loop() {
    for (;;) {
      std::shared_ptr<Batch> batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
          while (!queue_.empty() && queue_.front()->exhausted()) queue_.pop_front();
          if (!queue_.empty() || stop_) break;
          cv_.wait(lock);
        }
        if (queue_.empty()) return;  // stopping and nothing left
        batch = queue_.front();
      }
      batch->work();
    }
  }

  const size_t size_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Batch>> queue_;
  bool stop_ = false;
};

}  // namespace cuzk
