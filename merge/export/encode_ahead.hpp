// Encodes items (ranks) on helper threads ahead of a writer that takes them strictly in order:
// while the writer encodes item i into its output itself, helpers encode the next items
// into memory, and the writer appends those when their turn comes. The output is the one
// the writer alone would produce. A merge of many small ranks spends most of its writing
// time encoding, one rank after the other, on one thread; this spreads it over the cores.
//
// Each item has a weight (what encoding it aside holds in memory, in rows, say); weight 0
// keeps it for the writer (it needs HDF5, which only the writer's thread calls). Helpers keep
// the weight held at once within a budget and stay a few items ahead of the writer, so
// memory stays bounded whatever the items' number and size.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rocprof::merge {

class EncodeAhead {
 public:
  struct Plan {
    std::vector<std::uint64_t> weights;  // per item; 0: the writer encodes it
    std::uint64_t budget = 0;            // weight held by encoded, unwritten items at once
    std::size_t helpers = 0;             // helper threads (0: the writer encodes everything)
    std::size_t window = 4;              // how far past the writer's item a helper may go
  };
  // `encode_aside(i)` keeps item i's result for the writer: it runs on a helper, or on the
  // writer's thread while that waits for a helper, so it must be safe to run on several
  // threads at once and touch nothing the writer uses meanwhile. `claimed(i)` runs, with a lock
  // held, as item i is taken by the writer or a helper, in item order (it may start reading item i
  // + 1 ahead).
  EncodeAhead(Plan plan, std::function<void(std::size_t)> encode_aside,
              std::function<void(std::size_t)> claimed);
  ~EncodeAhead();  // helpers finish their items and stop
  EncodeAhead(const EncodeAhead&) = delete;
  EncodeAhead& operator=(const EncodeAhead&) = delete;

  // The writer's turn for item i (0, 1, ... in order): true when it was encoded aside (what
  // that threw is thrown here), false when the writer is to encode it now. While a helper
  // still encodes it, the writer encodes later items aside itself rather than wait.
  bool take(std::size_t item);
  // The writer has written item i (its result may go): frees its weight.
  void written(std::size_t item);

  // Helper threads worth running for a writer with `cores` CPUs (the front end counts them:
  // merge/pipeline/cpu_budget.hpp).
  static std::size_t helpers_for(unsigned cores) noexcept;

 private:
  struct Item {
    bool aside = false;  // claimed by a helper
    bool ready = false;  // its encoding ended
    std::exception_ptr error;
  };
  bool may_claim_aside() const noexcept;  // with mutex_ held
  // Claims the next item and encodes it aside, the lock released meanwhile.
  void encode_next_aside(std::unique_lock<std::mutex>& lock);
  void help();

  Plan plan_;
  std::function<void(std::size_t)> encode_aside_;
  std::function<void(std::size_t)> claimed_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Item> items_;
  std::size_t next_claim_ = 0;  // the first item nobody has claimed
  std::size_t writer_at_ = 0;   // the first item the writer has not written
  std::uint64_t held_ = 0;      // weight of items claimed aside and not yet written
  bool stopping_ = false;
  std::vector<std::thread> helpers_;  // last: joined before the rest goes
};

}  // namespace rocprof::merge
