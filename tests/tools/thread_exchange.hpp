// Merge processes simulated by threads, for tests of the analysis: each thread is a process
// of its own, and each all_to_all meets at a barrier.
#pragma once

#include <barrier>
#include <cstddef>
#include <utility>
#include <vector>

#include "merge/analysis/analysis_exchange.hpp"

namespace rocprof::merge {

class ThreadExchange final : public AnalysisExchange {
 public:
  // What the threads share: one per group of threads, outliving them.
  struct Meeting {
    explicit Meeting(std::size_t threads)
        : threads(threads),
          barrier(static_cast<std::ptrdiff_t>(threads)),
          mailbox(threads, std::vector<std::vector<std::byte>>(threads)) {}
    std::size_t threads;
    std::barrier<> barrier;
    std::vector<std::vector<std::vector<std::byte>>> mailbox;  // [to][from]
  };
  ThreadExchange(Meeting& meeting, std::size_t index) : meeting_(meeting), index_(index) {}
  std::size_t processes() const override { return meeting_.threads; }
  std::size_t index() const override { return index_; }
  std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const override {
    for (std::size_t to = 0; to < parts.size(); ++to)
      meeting_.mailbox[to][index_] = std::move(parts[to]);
    meeting_.barrier.arrive_and_wait();
    std::vector<std::vector<std::byte>> received = std::move(meeting_.mailbox[index_]);
    meeting_.mailbox[index_].assign(meeting_.threads, {});
    meeting_.barrier.arrive_and_wait();  // no thread writes the next round's parts before
    return received;
  }
  // For a thread that failed: the others' exchanges go on without it (they get nothing from
  // it), rather than wait for it for ever.
  void leave() const { meeting_.barrier.arrive_and_drop(); }

 private:
  Meeting& meeting_;
  std::size_t index_;
};

}  // namespace rocprof::merge
