// SerialWorker (jobs on one thread, in order; ones not started can be taken
// back) and ForEach (a loop shared with more threads).
#include "serial_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <vector>

namespace tracemerge {
namespace {

TEST(SerialWorker, TakeBackReturnsTheNewestJobNotStarted) {
  std::promise<void> started, release;
  std::shared_future<void> go = release.get_future().share();
  std::vector<int> ran;  // by the worker, read after Wait()
  SerialWorker<int> worker(3, [&](int& job) {
    if (job == 1) {
      started.set_value();
      go.wait();
    }
    ran.push_back(job);
  });
  worker.Push(1);
  started.get_future().wait();  // job 1 runs and blocks; 2 and 3 wait
  worker.Push(2);
  worker.Push(3);
  int job = 0;
  ASSERT_TRUE(worker.TakeBack(&job));
  EXPECT_EQ(job, 3);
  ASSERT_TRUE(worker.TakeBack(&job));
  EXPECT_EQ(job, 2);
  EXPECT_FALSE(worker.TakeBack(&job));  // job 1 has started: it stays
  worker.Push(4);
  release.set_value();
  worker.Wait();
  EXPECT_EQ(ran, (std::vector<int>{1, 4}));
}

TEST(SerialWorker, ForEachVisitsEveryIndexOnce) {
  for (int threads : {0, 1, 2, 3, 8}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{1000}}) {
      std::vector<std::atomic<int>> seen(n);
      ForEach(n, threads, [&](size_t i) { seen[i]++; });
      for (size_t i = 0; i < n; i++) EXPECT_EQ(seen[i].load(), 1) << "index " << i << " of " << n << ", threads " << threads;
    }
  }
}

}  // namespace
}  // namespace tracemerge
