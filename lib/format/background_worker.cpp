#include "lib/format/background_worker.hpp"

#include <utility>

namespace rocprof::format {

BackgroundWorker::~BackgroundWorker() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !running_; });
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundWorker::start(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    task_ = std::move(task);
    pending_ = true;
    running_ = true;
    error_ = nullptr;
  }
  if (!thread_.joinable())
    thread_ = std::thread([this] { run(); });
  else
    changed_.notify_all();
}

void BackgroundWorker::wait() {
  std::unique_lock lock(mutex_);
  if (!pending_) return;
  changed_.wait(lock, [this] { return !running_; });
  pending_ = false;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void BackgroundWorker::wait_quietly() noexcept {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !running_; });
  pending_ = false;
  error_ = nullptr;
}

void BackgroundWorker::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || (running_ && task_); });
    if (stopping_) return;
    std::function<void()> task = std::move(task_);
    task_ = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      task();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    running_ = false;
    changed_.notify_all();
  }
}

}  // namespace rocprof::format
