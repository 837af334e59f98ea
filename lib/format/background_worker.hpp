// One helper thread that runs one task at a time, for work done a step ahead of its caller
// (decoding the next chunk, writing the last buffer). The thread is started at the first
// task and kept: starting a thread per task costs far more than handing a task over.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace rocprof::format {

class BackgroundWorker {
 public:
  BackgroundWorker() = default;
  ~BackgroundWorker();  // waits for the task in flight (its error is dropped) and the thread
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // Runs `task` on the helper. The previous task must have been waited for.
  void start(std::function<void()> task);
  // Waits for the task in flight, if any; rethrows what it threw.
  void wait();
  // The same, dropping its error: for destructors, whose owner reports errors elsewhere.
  void wait_quietly() noexcept;

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> task_;
  bool pending_ = false;  // a task was started and not yet waited for
  bool running_ = false;  // the helper has the task and has not finished it
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace rocprof::format
