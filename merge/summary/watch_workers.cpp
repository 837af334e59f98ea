#include "merge/summary/watch_workers.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace rocprof::merge {
namespace {

// Rows per block: large enough that passing a block on costs little per row, fewer when
// many ranks fill blocks at once (each has one filling), down to kLeastBlockRows.
constexpr std::size_t kBlockRows = 4096;
constexpr std::size_t kLeastBlockRows = 256;
constexpr std::size_t kFillingRows = std::size_t{1} << 18;  // of every rank together
// Rows on their way per worker before the reading thread waits.
constexpr std::size_t kRowsPerWorker = std::size_t{1} << 16;

// Hands `rows` to the watcher's function for them, if it has one.
template <typename Row>
void hand(const AlignedRank::Watcher& watcher, std::span<const Row> rows) {
  if (const auto& to = *watcher.for_rows<Row>()) to(rows);
}

}  // namespace

struct WatchWorkers::Block {
  Block(WatchWorkers& workers, Rows rows, std::size_t count)
      : workers(workers), rows(std::move(rows)), count(count) {}
  ~Block() { workers.release(count); }
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  WatchWorkers& workers;
  const Rows rows;
  const std::size_t count;
};

// One target's blocks of a rank, watched in the order passed on, by one worker at a time.
class WatchWorkers::Strand {
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
    workers_.feeds_.fetch_add(1, std::memory_order_relaxed);
    for (Target& target : targets) {
      before_first_.push_back(std::move(target.before_first));
      strands_.push_back(std::make_shared<Strand>(std::move(target.watcher)));
    }
  }

  template <typename T>
  void add(WatchedKind kind, std::span<const T> rows) {
    if (rows.empty()) return;
    auto& seen = seen_[static_cast<std::size_t>(kind)];
    if (!seen) {
      seen = true;
      for (const auto& before_first : before_first_)
        if (before_first) before_first(kind);
    }
    if (workers_.threads_.empty()) {  // no workers: watched here, as they come
      for (const std::shared_ptr<Strand>& strand : strands_) hand(strand->watcher(), rows);
      return;
    }
    if (!std::holds_alternative<std::vector<T>>(filling_)) {
      pass_on();
      filling_ = std::vector<T>();
    }
    auto& block = std::get<std::vector<T>>(filling_);
    if (block.capacity() == 0) {
      block_rows_ = std::clamp(kFillingRows / workers_.feeds_.load(std::memory_order_relaxed),
                               kLeastBlockRows, kBlockRows);
      block.reserve(block_rows_);
    }
    block.insert(block.end(), rows.begin(), rows.end());
    if (block.size() >= block_rows_) pass_on();
  }

  ~Feed() { workers_.feeds_.fetch_sub(1, std::memory_order_relaxed); }
  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;

  void pass_on() {
    const std::size_t count = std::visit([](const auto& block) { return block.size(); }, filling_);
    if (count == 0) return;
    workers_.admit(count);
    const auto block = std::make_shared<const Block>(workers_, std::move(filling_), count);
    filling_ = Rows();
    for (const std::shared_ptr<Strand>& strand : strands_)
      if (strand->add(block)) workers_.schedule(strand);
  }

 private:
  WatchWorkers& workers_;
  std::vector<std::function<void(WatchedKind)>> before_first_;
  std::vector<std::shared_ptr<Strand>> strands_;
  std::array<bool, 5> seen_{};
  Rows filling_;
  std::size_t block_rows_ = kBlockRows;  // of the block filling
};

WatchWorkers::WatchWorkers(unsigned threads) : most_in_flight_(kRowsPerWorker * threads) {
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
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
  const bool mpi = any(&AlignedRank::Watcher::mpi_calls);
  const bool range = any(&AlignedRank::Watcher::ranges);
  const bool activity = any(&AlignedRank::Watcher::activities);
  const bool counter = any(&AlignedRank::Watcher::counter_samples);
  const bool api = any(&AlignedRank::Watcher::api_calls);
  auto feed = std::make_shared<Feed>(*this, std::move(targets));
  // The feed is held by the relay's functions too: rows passed on after the rank's summary
  // part was dropped (a rank read again) are watched into the dropped part, harmlessly.
  Feed* const to = feed.get();
  AlignedRank::Watcher watcher;
  if (mpi)
    watcher.mpi_calls = [to, feed](std::span<const format::MpiCallRow> rows) {
      to->add(WatchedKind::kMpiCall, rows);
    };
  if (range)
    watcher.ranges = [to, feed](std::span<const Range> rows) {
      to->add(WatchedKind::kRange, rows);
    };
  if (activity)
    watcher.activities = [to, feed](std::span<const format::ActivityRow> rows) {
      to->add(WatchedKind::kActivity, rows);
    };
  if (counter)
    watcher.counter_samples = [to, feed](std::span<const format::CounterSampleRow> rows) {
      to->add(WatchedKind::kCounterSample, rows);
    };
  if (api)
    watcher.api_calls = [to, feed](std::span<const format::ApiCallRow> rows) {
      to->add(WatchedKind::kApiCall, rows);
    };
  return {std::move(watcher), std::move(feed)};
}

void WatchWorkers::flush(Feed& feed) { feed.pass_on(); }

void WatchWorkers::admit(std::size_t rows) {
  std::unique_lock lock(mutex_);
  // A block larger than the bound alone goes when nothing else is on its way.
  blocks_done_.wait(lock, [&] { return in_flight_ == 0 || in_flight_ + rows <= most_in_flight_; });
  in_flight_ += rows;
}

void WatchWorkers::release(std::size_t rows) noexcept {
  {
    const std::lock_guard lock(mutex_);
    in_flight_ -= rows;
  }
  blocks_done_.notify_all();
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

void WatchWorkers::watch(const AlignedRank::Watcher& watcher, const Rows& rows) {
  std::visit([&](const auto& block) { hand(watcher, std::span(block)); }, rows);
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
    while (std::shared_ptr<const Block> block = strand->next()) {
      bool failed = false;
      {
        const std::lock_guard lock(mutex_);
        failed = failure_ != nullptr;
      }
      if (failed) continue;  // dropped (released as it goes)
      try {
        watch(strand->watcher(), block->rows);
      } catch (...) {
        const std::lock_guard lock(mutex_);
        if (!failure_) failure_ = std::current_exception();
      }
    }
  }
}

}  // namespace rocprof::merge
