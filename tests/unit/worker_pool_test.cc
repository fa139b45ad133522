// WorkerPool (jobs on one thread in order, or on many; ones not started can
// be taken back) and ForEach (a loop shared with more threads).
#include "worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <future>
#include <vector>

namespace tracemerge {
namespace {

TEST(WorkerPool, TakeBackReturnsTheNewestJobNotStarted) {
  std::promise<void> started, release;
  std::shared_future<void> go = release.get_future().share();
  std::vector<int> ran;  // by the worker, read after Wait()
  WorkerPool<int> worker(1, 3, [&](int& job, unsigned) {
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

// Many workers: every job runs once, each on one worker; TryPush declines
// only when every worker is busy and the backlog is full.
TEST(WorkerPool, ManyWorkersRunEveryJobOnceAndTryPushDeclinesWhenFull) {
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;
  bool go = false;
  std::vector<int> runs(100, 0);
  std::vector<int> by_worker(4, 0);
  {
    WorkerPool<int> pool(4, 1, [&](int& job, unsigned worker) {
      std::unique_lock<std::mutex> lock(mu);
      running++;
      cv.notify_all();
      cv.wait(lock, [&] { return go || job >= 5; });
      runs[job]++;
      by_worker[worker]++;
    });
    for (int j = 0; j < 4; j++) pool.Push(j);  // four workers, each held on its job
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return running == 4; });
    }
    int job = 4;
    EXPECT_TRUE(pool.TryPush(job)) << "one may wait";
    job = 99;
    EXPECT_FALSE(pool.TryPush(job)) << "all busy, the backlog full";
    EXPECT_EQ(job, 99) << "declined: the job stays the caller's";
    {
      std::lock_guard<std::mutex> lock(mu);
      go = true;
    }
    cv.notify_all();
    for (int j = 5; j < 99; j++) pool.Push(j);
    pool.Wait();
  }
  for (int j = 0; j < 99; j++) EXPECT_EQ(runs[j], 1) << j;
  EXPECT_EQ(by_worker[0] + by_worker[1] + by_worker[2] + by_worker[3], 99);
}

TEST(WorkerPool, ForEachVisitsEveryIndexOnce) {
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
