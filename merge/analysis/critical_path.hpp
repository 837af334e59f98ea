// The job's critical path: the chain of work that set its length. It starts where the last
// rank ended and walks back in time on that rank until a wait state ended (the rank could
// not go on before another rank got there); from there it goes on, back in time, on the
// awaited rank, and so on until a rank's first record. Each stretch of a rank on the path is
// shared out instant by instant among what the rank was doing (RankDoings::attribute: an
// MPI call, else GPU work in flight, a host-to-GPU dependency, else an API call, else the
// innermost region).
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "merge/analysis/analysis_exchange.hpp"
#include "merge/analysis/analysis_window.hpp"
#include "merge/analysis/wait_input.hpp"
#include "merge/analysis/wait_states.hpp"

namespace rocprof::merge {

struct CriticalPath {
  struct Stretch {
    std::int32_t rank;
    std::uint64_t from;
    std::uint64_t to;
  };
  std::vector<Stretch> stretches;  // latest first
  double length_ns = 0;
  std::map<std::string, double> by_activity;  // "" for time with no record
  std::map<std::int32_t, double> by_rank;
  std::string window;  // the window it was walked in (--window), "" for the whole run
  std::uint64_t window_begin_ns = 0;  // the window on the merged clock, when there is one
  std::uint64_t window_end_ns = 0;
  // How long the first process took to walk it and to have it shared out, in seconds.
  double walking_s = 0;
  double attributing_s = 0;

  bool empty() const noexcept { return stretches.empty(); }
  // by_activity, largest first.
  std::vector<std::pair<std::string, double>> activities() const;
  void print(std::FILE* out, std::size_t top) const;
  // <prefix>_critical_path.csv; false with `error`.
  bool write_csv(const std::string& prefix, std::string& error) const;
};

// Each rank's first and last record, by rank.
using RankSpans = std::map<std::int32_t, std::pair<std::uint64_t, std::uint64_t>>;

// The path's stretches (latest first) from the waits' edges alone: no rank's doings needed.
// In a window: from its end (on the rank whose last instance ended last, for a region's
// window) back to its start.
std::vector<CriticalPath::Stretch> walk_critical_path(const JobEdges& edges, const RankSpans& spans,
                                                      const TimeWindow& window = {});

// Collective over the merge's processes, each passing its own ranks' inputs: the path is
// walked on the first process from the job's waits and spans (read there only), and each
// stretch is shared out where its rank's input is. The path comes back on the first process
// (an empty one elsewhere); a stretch of a rank no process has the input of counts as time
// with no record.
CriticalPath find_critical_path(const std::vector<RankWaitInput>& mine,
                                const WaitStateReport& waits, const RankSpans& spans,
                                const AnalysisExchange& exchange, const TimeWindow& window = {});
// Every rank's input in this one process.
CriticalPath find_critical_path(const std::vector<RankWaitInput>& ranks,
                                const WaitStateReport& waits, const RankSpans& spans);

}  // namespace rocprof::merge
