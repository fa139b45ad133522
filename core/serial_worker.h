// One thread that runs jobs in the order they are pushed: the native CLI
// writes its output on one, the merge parses sources on one
// (Options.parse_in_background). Push() blocks while `backlog` jobs wait, which
// bounds the memory they hold; Wait() returns once every pushed job has run;
// the destructor runs what is left, then joins. ForEach() shares a loop with
// more threads.
//
//   SerialWorker<std::string> writer(8, [&](std::string& chunk) { fwrite(…); });
//   writer.Push(std::string(bytes));  …  writer.Wait();
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
class SerialWorker {
 public:
  SerialWorker(size_t backlog, std::function<void(T&)> run) : run_(std::move(run)), backlog_(backlog) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~SerialWorker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  void Push(T job) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return queue_.size() < backlog_; });
    queue_.push_back(std::move(job));
    cv_.notify_all();
  }
  // Pushes (moves) the job when Push() would not block; false otherwise,
  // and the job stays the caller's.
  bool TryPush(T& job) {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= backlog_) return false;
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
    cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return !queue_.empty() || stop_; });
      if (queue_.empty()) return;  // stopped, nothing left to run
      T job = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      cv_.notify_all();
      lock.unlock();
      run_(job);
      lock.lock();
      busy_ = false;
      cv_.notify_all();
    }
  }
  std::function<void(T&)> run_;
  size_t backlog_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> queue_;
  bool busy_ = false, stop_ = false;
  std::thread thread_;  // started in the constructor's body, once the rest is set up
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
