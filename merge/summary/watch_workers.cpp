#include "merge/summary/watch_workers.hpp"

#include <array>
#include <utility>

namespace rocprof::merge {
namespace {

// Rows per block: large enough that passing a block on costs little per row, small enough
// that many ranks' half-filled blocks stay small.
constexpr std::size_t kBlockRows = 512;
// Blocks on their way per worker before the reading thread waits.
constexpr std::size_t kBlocksPerWorker = 16;

}  // namespace

class WatchWorkers::Strand : public std::enable_shared_from_this<WatchWorkers::Strand> {
 public:
  Strand(WatchWorkers& workers, AlignedRank::Watcher target,
         std::function<void(WatchedKind)> before_first)
      : workers_(workers), target_(std::move(target)), before_first_(std::move(before_first)) {}

  // On the reading thread (one at a time for a rank).
  template <typename T>
  void add(WatchedKind kind, const T& row) {
    auto& seen = seen_[static_cast<std::size_t>(kind)];
    if (!seen) {
      seen = true;
      if (before_first_) before_first_(kind);
    }
    if (filling_.capacity() == 0) filling_.reserve(kBlockRows);
    filling_.emplace_back(row);
    if (filling_.size() == kBlockRows) pass_on();
  }

  void pass_on() {
    if (filling_.empty()) return;
    workers_.admit();
    bool schedule = false;
    {
      const std::lock_guard lock(mutex_);
      ready_.push_back(std::move(filling_));
      schedule = !queued_;
      queued_ = true;
    }
    filling_ = Block();
    if (schedule) workers_.schedule(shared_from_this());
  }

  // On a worker: the next block, or false (and the strand is no longer queued).
  bool next(Block& block) {
    const std::lock_guard lock(mutex_);
    if (ready_.empty()) {
      queued_ = false;
      return false;
    }
    block = std::move(ready_.front());
    ready_.pop_front();
    return true;
  }

  const AlignedRank::Watcher& target() const noexcept { return target_; }

 private:
  WatchWorkers& workers_;
  AlignedRank::Watcher target_;
  std::function<void(WatchedKind)> before_first_;
  std::array<bool, 5> seen_{};
  Block filling_;  // the reading thread's
  std::mutex mutex_;
  std::deque<Block> ready_;
  bool queued_ = false;  // runnable, or a worker holds it
};

WatchWorkers::WatchWorkers(unsigned threads)
    : most_in_flight_(kBlocksPerWorker * std::max(threads, 1U)) {
  for (unsigned i = 0; i < std::max(threads, 1U); ++i) threads_.emplace_back([this] { work(); });
}

WatchWorkers::~WatchWorkers() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  runnable_changed_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

WatchWorkers::Relay WatchWorkers::relay(AlignedRank::Watcher target,
                                        std::function<void(WatchedKind)> before_first) {
  const bool mpi = static_cast<bool>(target.mpi_call);
  const bool range = static_cast<bool>(target.range);
  const bool activity = static_cast<bool>(target.activity);
  const bool counter = static_cast<bool>(target.counter_sample);
  const bool api = static_cast<bool>(target.api_call);
  auto strand = std::make_shared<Strand>(*this, std::move(target), std::move(before_first));
  // The strand is held by the relay's functions: rows passed on after the rank's summary
  // part was dropped (a rank read again) are watched into the dropped part, harmlessly.
  Strand* const to = strand.get();
  AlignedRank::Watcher watcher;
  if (mpi)
    watcher.mpi_call = [to, strand](const format::MpiCallRow& row) {
      to->add(WatchedKind::kMpiCall, row);
    };
  if (range) watcher.range = [to, strand](const Range& row) { to->add(WatchedKind::kRange, row); };
  if (activity)
    watcher.activity = [to, strand](const format::ActivityRow& row) {
      to->add(WatchedKind::kActivity, row);
    };
  if (counter)
    watcher.counter_sample = [to, strand](const format::CounterSampleRow& row) {
      to->add(WatchedKind::kCounterSample, row);
    };
  if (api)
    watcher.api_call = [to, strand](const format::ApiCallRow& row) {
      to->add(WatchedKind::kApiCall, row);
    };
  return {std::move(watcher), std::move(strand)};
}

void WatchWorkers::flush(Strand& strand) { strand.pass_on(); }

void WatchWorkers::admit() {
  std::unique_lock lock(mutex_);
  blocks_done_.wait(lock, [this] { return in_flight_ < most_in_flight_; });
  ++in_flight_;
}

void WatchWorkers::schedule(std::shared_ptr<Strand> strand) {
  {
    const std::lock_guard lock(mutex_);
    runnable_.push_back(std::move(strand));
  }
  runnable_changed_.notify_one();
}

void WatchWorkers::wait() {
  std::unique_lock lock(mutex_);
  blocks_done_.wait(lock, [this] { return in_flight_ == 0; });
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void WatchWorkers::watch(const Strand& strand, const Block& block) {
  const AlignedRank::Watcher& target = strand.target();
  for (const Row& row : block) {
    switch (row.index()) {
      case 0:
        target.mpi_call(std::get<0>(row));
        break;
      case 1:
        target.range(std::get<1>(row));
        break;
      case 2:
        target.activity(std::get<2>(row));
        break;
      case 3:
        target.counter_sample(std::get<3>(row));
        break;
      default:
        target.api_call(std::get<4>(row));
        break;
    }
  }
}

void WatchWorkers::work() {
  Block block;
  for (;;) {
    std::shared_ptr<Strand> strand;
    {
      std::unique_lock lock(mutex_);
      runnable_changed_.wait(lock, [this] { return stopping_ || !runnable_.empty(); });
      if (runnable_.empty()) return;  // stopping, nothing left
      strand = std::move(runnable_.front());
      runnable_.pop_front();
    }
    while (strand->next(block)) {
      bool failed = false;
      {
        const std::lock_guard lock(mutex_);
        failed = failure_ != nullptr;
      }
      if (!failed) {
        try {
          watch(*strand, block);
        } catch (...) {
          const std::lock_guard lock(mutex_);
          if (!failure_) failure_ = std::current_exception();
        }
      }
      block.clear();
      {
        const std::lock_guard lock(mutex_);
        --in_flight_;
      }
      blocks_done_.notify_all();
    }
  }
}

}  // namespace rocprof::merge
