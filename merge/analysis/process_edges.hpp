// A merge process's share of the job's wait edges as its analysis finds them (in no order):
// held up to a budget, past it written to the process's scratch file in runs ordered by
// waiting rank. The edges then go to the first process a range of waiting ranks at a time
// (wait_states.cpp), each range read from every run, so that neither process holds them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "merge/analysis/wait_edge.hpp"
#include "merge/files/scratch_file.hpp"

namespace rocprof::merge {

class ProcessEdges {
 public:
  ProcessEdges() = default;  // every edge held
  ProcessEdges(std::shared_ptr<ScratchFile> file, std::size_t memory);

  // Throws std::runtime_error on a write error.
  void add(const WaitEdge& edge);
  // Edges per waiting rank.
  const std::map<std::int32_t, std::uint64_t>& counts() const noexcept { return counts_; }
  // The edges of waiting ranks [first, last), in no order (the first process orders them).
  // Throws std::runtime_error on a read error.
  std::vector<WaitEdge> take(std::int32_t first, std::int32_t last);

 private:
  struct Run {
    std::uint64_t offset;
    std::vector<std::pair<std::int32_t, std::uint64_t>> starts;  // rank, its first edge
    std::uint64_t count;
  };
  void write_run();

  std::shared_ptr<ScratchFile> file_;
  std::size_t memory_ = 0;
  std::vector<WaitEdge> held_;
  bool held_ordered_ = false;
  std::vector<Run> runs_;
  std::map<std::int32_t, std::uint64_t> counts_;
};

}  // namespace rocprof::merge
