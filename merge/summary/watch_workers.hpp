// Watchers (AlignedRank::Watcher) run on worker threads. The thread that reads a rank (the
// merge's thread, or an exporter's helper) only copies the rows it hands out into the rank's
// current block (rows of one kind) and passes full blocks on; the workers hand each rank's
// blocks to its watchers in the order they were read, one worker at a time per watcher. The
// summary and the analysis's inputs so cost the reading thread, the merge's critical path, a
// copy of its rows instead of their whole work. Rows on their way are bounded in number.
//
// Anything that reads the rank's file must not run on a worker (a reader serves one thread at
// a time): `before_first` is called on the reading thread before the first row of each kind
// is passed on, for what the watcher makes lazily from the file.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <variant>
#include <vector>

#include "lib/format/records.hpp"
#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge {

enum class WatchedKind : std::uint8_t { kMpiCall, kRange, kActivity, kCounterSample, kApiCall };

class WatchWorkers {
 public:
  // No threads: each target watches the rows at once, on the reading thread, uncopied.
  explicit WatchWorkers(unsigned threads);
  ~WatchWorkers();
  WatchWorkers(const WatchWorkers&) = delete;
  WatchWorkers& operator=(const WatchWorkers&) = delete;

  // One rank's rows on their way to its watchers.
  class Feed;
  // A watcher of a rank, and what it makes from the rank's file at a kind's first row.
  struct Target {
    AlignedRank::Watcher watcher;
    std::function<void(WatchedKind)> before_first;
  };
  struct Relay {
    AlignedRank::Watcher watcher;  // for the rank: copies and passes on
    std::shared_ptr<Feed> feed;
  };
  // Each target sees every row of the rank in order; different targets of a rank may see
  // them at once, on different workers (they must share nothing but the rows).
  Relay relay(std::vector<Target> targets);
  // Passes on the rows `feed` holds in its current block (after the rank's last row).
  static void flush(Feed& feed);
  // Waits until every row passed on was watched. Rethrows the first exception a watcher
  // threw (rows after it were dropped); then the workers are ready for more.
  void wait();

 private:
  using Rows = std::variant<std::vector<format::MpiCallRow>, std::vector<Range>,
                            std::vector<format::ActivityRow>, std::vector<format::CounterSampleRow>,
                            std::vector<format::ApiCallRow>>;
  struct Block;  // rows of one kind, counted on their way until the last watcher is done
  class Strand;  // one target's blocks, watched in order
  void admit(std::size_t rows);  // waits while too many are on their way (bounded memory)
  void release(std::size_t rows) noexcept;
  void schedule(std::shared_ptr<Strand> strand);
  void work();
  static void watch(const AlignedRank::Watcher& watcher, const Rows& rows);

  std::size_t most_in_flight_;         // rows
  std::atomic<std::size_t> feeds_{0};  // ranks' feeds alive, each filling a block
  std::mutex mutex_;
  std::condition_variable runnable_changed_;
  std::condition_variable blocks_done_;
  std::deque<std::shared_ptr<Strand>> runnable_;
  std::size_t in_flight_ = 0;  // rows passed on, not yet watched by every target
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace rocprof::merge
