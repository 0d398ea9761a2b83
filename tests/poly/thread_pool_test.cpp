#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "core/thread_pool.hpp"

namespace cuzk {
namespace {

TEST(ThreadPool, ParallelForVisitsEveryIndexOnce) {
  for (size_t threads : {1, 2, 5}) {
    ThreadPool pool(threads);
    for (size_t n : {0, 1, 7, 1000}) {
      std::vector<std::atomic<int>> hits(n);
      pool.parallel_for(0, n, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) hits[i].fetch_add(1);
      }, 1, 3);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "threads=" << threads << " n=" << n;
    }
  }
}

TEST(ThreadPool, NestedCallsFinish) {
  ThreadPool pool(2);
  std::atomic<size_t> sum{0};
  pool.run(4, [&](size_t i) {
    pool.run(8, [&](size_t j) { sum.fetch_add(i * 8 + j); });
  });
  EXPECT_EQ(sum.load(), 31u * 32 / 2);
}

TEST(ThreadPool, TaskExceptionReachesCaller) {
  ThreadPool pool(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(6,
                        [&](size_t i) {
                          ran.fetch_add(1);
                          if (i == 2) throw std::runtime_error("boom");
                        }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 6);
}

}  // namespace
}  // namespace cuzk
