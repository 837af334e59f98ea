#include "merge/summary/watch_workers.hpp"

#include <array>
#include <utility>

namespace rocprof::merge {
namespace {

// Rows per block: large enough that passing a block on costs little per row, small enough
// that many ranks' half-filled blocks stay small.
constexpr std::size_t kBlockRows = 512;
// Blocks on their way per worker before the reading thread waits.
constexpr std::size_t kBlocksPerWorker = 32;

}  // namespace

// One target's blocks of a rank, watched in the order passed on, by one worker at a time.
class WatchWorkers::Strand : public std::enable_shared_from_this<WatchWorkers::Strand> {
 public:
  explicit Strand(AlignedRank::Watcher watcher) : watcher_(std::move(watcher)) {}

  // True when the strand must be scheduled (no worker holds it, none is to).
  bool add(std::shared_ptr<const Block> block) {
    const std::lock_guard lock(mutex_);
    ready_.push_back(std::move(block));
    return !std::exchange(queued_, true);
  }

  // On a worker: the next block, or null (and the strand is no longer queued).
  std::shared_ptr<const Block> next() {
    const std::lock_guard lock(mutex_);
    if (ready_.empty()) {
      queued_ = false;
      return nullptr;
    }
    std::shared_ptr<const Block> block = std::move(ready_.front());
    ready_.pop_front();
    return block;
  }

  const AlignedRank::Watcher& watcher() const noexcept { return watcher_; }

 private:
  AlignedRank::Watcher watcher_;
  std::mutex mutex_;
  std::deque<std::shared_ptr<const Block>> ready_;
  bool queued_ = false;  // runnable, or a worker holds it
};

// A rank's rows as the reading thread copies them (one thread at a time for a rank).
class WatchWorkers::Feed {
 public:
  Feed(WatchWorkers& workers, std::vector<Target> targets) : workers_(workers) {
    for (Target& target : targets) {
      before_first_.push_back(std::move(target.before_first));
      strands_.push_back(std::make_shared<Strand>(std::move(target.watcher)));
    }
  }

  template <typename T>
  void add(WatchedKind kind, const T& row) {
    auto& seen = seen_[static_cast<std::size_t>(kind)];
    if (!seen) {
      seen = true;
      for (const auto& before_first : before_first_)
        if (before_first) before_first(kind);
    }
    if (filling_.capacity() == 0) filling_.reserve(kBlockRows);
    filling_.emplace_back(row);
    if (filling_.size() == kBlockRows) pass_on();
  }

  void pass_on() {
    if (filling_.empty()) return;
    workers_.admit(strands_.size());
    const auto block = std::make_shared<const Block>(std::move(filling_));
    filling_ = Block();
    for (const std::shared_ptr<Strand>& strand : strands_)
      if (strand->add(block)) workers_.schedule(strand);
  }

 private:
  WatchWorkers& workers_;
  std::vector<std::function<void(WatchedKind)>> before_first_;
  std::vector<std::shared_ptr<Strand>> strands_;
  std::array<bool, 5> seen_{};
  Block filling_;
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

WatchWorkers::Relay WatchWorkers::relay(std::vector<Target> targets) {
  const auto any = [&](auto member) {
    for (const Target& target : targets)
      if (static_cast<bool>(target.watcher.*member)) return true;
    return false;
  };
  const bool mpi = any(&AlignedRank::Watcher::mpi_call);
  const bool range = any(&AlignedRank::Watcher::range);
  const bool activity = any(&AlignedRank::Watcher::activity);
  const bool counter = any(&AlignedRank::Watcher::counter_sample);
  const bool api = any(&AlignedRank::Watcher::api_call);
  // A target's empty functions: rows of that kind pass it by.
  for (Target& target : targets) {
    AlignedRank::Watcher& watcher = target.watcher;
    if (!watcher.mpi_call) watcher.mpi_call = [](const format::MpiCallRow&) {};
    if (!watcher.range) watcher.range = [](const Range&) {};
    if (!watcher.activity) watcher.activity = [](const format::ActivityRow&) {};
    if (!watcher.counter_sample) watcher.counter_sample = [](const format::CounterSampleRow&) {};
    if (!watcher.api_call) watcher.api_call = [](const format::ApiCallRow&) {};
  }
  auto feed = std::make_shared<Feed>(*this, std::move(targets));
  // The feed is held by the relay's functions too: rows passed on after the rank's summary
  // part was dropped (a rank read again) are watched into the dropped part, harmlessly.
  Feed* const to = feed.get();
  AlignedRank::Watcher watcher;
  if (mpi)
    watcher.mpi_call = [to, feed](const format::MpiCallRow& row) {
      to->add(WatchedKind::kMpiCall, row);
    };
  if (range) watcher.range = [to, feed](const Range& row) { to->add(WatchedKind::kRange, row); };
  if (activity)
    watcher.activity = [to, feed](const format::ActivityRow& row) {
      to->add(WatchedKind::kActivity, row);
    };
  if (counter)
    watcher.counter_sample = [to, feed](const format::CounterSampleRow& row) {
      to->add(WatchedKind::kCounterSample, row);
    };
  if (api)
    watcher.api_call = [to, feed](const format::ApiCallRow& row) {
      to->add(WatchedKind::kApiCall, row);
    };
  return {std::move(watcher), std::move(feed)};
}

void WatchWorkers::flush(Feed& feed) { feed.pass_on(); }

void WatchWorkers::admit(std::size_t blocks) {
  std::unique_lock lock(mutex_);
  blocks_done_.wait(lock, [this] { return in_flight_ < most_in_flight_; });
  in_flight_ += blocks;
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

void WatchWorkers::watch(const AlignedRank::Watcher& target, const Block& block) {
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
  for (;;) {
    std::shared_ptr<Strand> strand;
    {
      std::unique_lock lock(mutex_);
      runnable_changed_.wait(lock, [this] { return stopping_ || !runnable_.empty(); });
      if (runnable_.empty()) return;  // stopping, nothing left
      strand = std::move(runnable_.front());
      runnable_.pop_front();
    }
    while (const std::shared_ptr<const Block> block = strand->next()) {
      bool failed = false;
      {
        const std::lock_guard lock(mutex_);
        failed = failure_ != nullptr;
      }
      if (!failed) {
        try {
          watch(strand->watcher(), *block);
        } catch (...) {
          const std::lock_guard lock(mutex_);
          if (!failure_) failure_ = std::current_exception();
        }
      }
      {
        const std::lock_guard lock(mutex_);
        --in_flight_;
      }
      blocks_done_.notify_all();
    }
  }
}

}  // namespace rocprof::merge
