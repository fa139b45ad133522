// Threads that run pushed jobs: the merge parses sources on a pool of them
// beside the caller (Options.threads), the native CLI writes its output on
// one (jobs run in the order pushed when there is one thread). Push() blocks
// while `backlog` jobs wait, which bounds the memory they hold; TryPush()
// declines instead (the caller then runs the job itself); TakeBack() returns
// the newest job not started; Wait() returns once every pushed job has run;
// the destructor runs what is left, then joins. ForEach() shares a loop with
// more threads.
//
//   WorkerPool<std::string> writer(1, 8, [&](std::string& chunk, unsigned) { fwrite(…); });
//   writer.Push(std::string(bytes));  …  writer.Wait();
//   WorkerPool<Job> pool(3, 1, [&](Job& j, unsigned worker) { Parse(j, parsers[worker]); });
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace tracemerge {

template <class T>
class WorkerPool {
 public:
  // run(job, worker): worker is 0 … threads - 1, so each may keep its own state.
  WorkerPool(unsigned threads, size_t backlog, std::function<void(T&, unsigned)> run)
      : run_(std::move(run)), backlog_(backlog) {
    for (unsigned w = 0; w < std::max(threads, 1u); w++) threads_.emplace_back([this, w] { Loop(w); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Push(T job) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return queue_.size() < backlog_; });
    queue_.push_back(std::move(job));
    cv_.notify_all();
  }
  // Pushes (moves) the job when a worker is free or the backlog has room;
  // false otherwise, and the job stays the caller's.
  bool TryPush(T& job) {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= backlog_ + (threads_.size() - busy_)) return false;
    queue_.push_back(std::move(job));
    cv_.notify_all();
    return true;
  }
  // Takes back the newest job that has not started, for the caller to run;
  // false when none waits.
  bool TakeBack(T* job) {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.empty()) return false;
    *job = std::move(queue_.back());
    queue_.pop_back();
    cv_.notify_all();
    return true;
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return queue_.empty() && busy_ == 0; });
  }

 private:
  void Loop(unsigned worker) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return !queue_.empty() || stop_; });
      if (queue_.empty()) return;  // stopped, nothing left to run
      T job = std::move(queue_.front());
      queue_.pop_front();
      busy_++;
      cv_.notify_all();
      lock.unlock();
      run_(job, worker);
      lock.lock();
      busy_--;
      cv_.notify_all();
    }
  }
  std::function<void(T&, unsigned)> run_;
  size_t backlog_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> queue_;
  size_t busy_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;  // started in the constructor's body, once the rest is set up
};

// Runs f(0) … f(n - 1) on the caller's thread and threads - 1 more (each
// takes the next index as it is free): f(i) must touch only what i owns.
template <class F>
void ForEach(size_t n, int threads, F&& f) {
  const size_t extra = threads > 1 && n > 1 ? std::min<size_t>(static_cast<size_t>(threads), n) - 1 : 0;
  if (extra == 0) {
    for (size_t i = 0; i < n; i++) f(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) f(i);
  };
  std::vector<std::thread> others;
  for (size_t k = 0; k < extra; k++) others.emplace_back(loop);
  loop();
  for (std::thread& t : others) t.join();
}

}  // namespace tracemerge
