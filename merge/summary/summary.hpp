// The merge's text summary (and CSV files): per MPI function and rank, calls and time, with
// the load imbalance across ranks (max / mean); the top kernels and copies by total time;
// ROC-TX ranges and user regions per rank and thread with count, total, mean, min, max,
// standard deviation and self time (time not spent in nested ranges); the device counters
// (counter_summary.hpp); the wait states (merge/analysis/wait_states.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "merge/analysis/analysis_exchange.hpp"
#include "merge/analysis/analysis_window.hpp"
#include "merge/analysis/critical_path.hpp"
#include "merge/analysis/region_imbalance.hpp"
#include "merge/analysis/wait_input.hpp"
#include "merge/analysis/wait_states.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/summary/counter_summary.hpp"
#include "merge/summary/rank_time.hpp"
#include "merge/summary/watch_workers.hpp"

namespace rocprof::merge {

class Summary {
 public:
  // Whether ranks watched from now on are gathered for the wait states (on by default).
  void gather_wait_states(bool on) { analyse_waits_ = on; }
  // How many ranks this process watches in all, for each one's share of the analysis's
  // memory for message ends (WaitInputGatherer::spill_step).
  void expect_ranks(std::size_t ranks) { expected_ranks_ = ranks; }
  // How many ranks the job has, for each rank's share of the doings the analysis keeps
  // (WaitInputGatherer::doings_budget); the ranks this process watches if never told.
  void share_doings_among(std::size_t job_ranks) { job_ranks_ = job_ranks; }
  // The analysis's message ends and collective calls of ranks watched from now on: past
  // `budget` bytes they go to `spill` (null: all held in memory), and the analysis takes
  // about `budget` of them at a time (wait_states.hpp).
  void spill_wait_states(std::shared_ptr<EndSpill> spill, std::size_t budget) {
    spill_ = std::move(spill);
    analysis_memory_ = budget;
  }
  bool gathers_wait_states() const noexcept { return analyse_waits_; }
  // Ranks watched from now on are added up on `threads` threads of their own, not on the
  // threads that read them (watch_workers.hpp); 0: on the reading threads.
  void watch_on_threads(unsigned threads);
  // Once every row was watched, the ranks' analysis inputs are finished on this many threads
  // (the readers and the sink are done by then: every CPU of the process may). At least one.
  void finish_on_threads(unsigned threads) { finish_threads_ = std::max(threads, 1U); }
  // Reads the rank's MPI calls, ranges and device activity and adds them up.
  void add(const AlignedRank& rank);
  // The same, from the rows the rank's visitors hand out to whoever reads them next (an
  // exporter that visits each of those tables once): no pass of its own. Each rank's rows
  // are added up apart (ranks may be read on different threads at once) until end_watch().
  void watch(const AlignedRank& rank);
  // Forgets what a watched rank's rows added so far and watches it afresh: for a rank read
  // again (one encoded ahead of the message matching, then again with its correction).
  void watch_again(const AlignedRank& rank);
  // Adds up what the ranks watched since the last call saw, in the order they were watched;
  // after their rows were read and their watchers removed.
  void end_watch();
  // A parallel merge summarises each process's ranks; the first process adds up the parts.
  std::vector<std::byte> serialize() const;
  void merge(std::span<const std::byte> bytes);  // throws on bad bytes, adding nothing
  void print(std::FILE* out, std::size_t top = 10) const;
  // The CSV files write_csv may write, after their prefix.
  static constexpr std::array<std::string_view, 7> kCsvFiles = {
      "_mpi.csv",   "_regions.csv",       "_kernels.csv",  "_counters.csv",
      "_waits.csv", "_critical_path.csv", "_imbalance.csv"};
  // Those files (the waits and critical path only when the wait states are analysed). False
  // with `error` set.
  bool write_csv(const std::string& prefix, std::string& error) const;

  struct Stat {
    std::uint64_t count = 0;
    double total_ns = 0;
    double min_ns = 0;
    double max_ns = 0;
    double mean_ns = 0;
    double m2 = 0;  // Welford: sum of squared deviations
    double self_ns = 0;
    void add(double duration_ns, double self);
    void merge(const Stat& other);  // as if other's durations had been added here
    double stddev_ns() const;
  };
  // For tests.
  const std::map<std::string, std::map<std::int32_t, Stat>>& mpi() const { return mpi_; }
  using RegionKey = std::tuple<std::int32_t, std::uint32_t, std::string>;  // rank, thread, name
  const std::map<RegionKey, Stat>& regions() const { return regions_; }
  const std::map<std::string, std::map<std::int32_t, Stat>>& kernels() const { return kernels_; }
  const CounterSummary& counters() const { return counters_; }
  // Where each rank's time went (span, MPI, GPU busy), by rank.
  std::vector<RankTime> rank_times() const;
  std::uint64_t ranks() const noexcept { return ranks_; }
  // Each region's imbalance across ranks, in total and over the run.
  std::vector<RegionImbalance> region_imbalance() const;
  // This process's ranks' wait-state inputs, handed to analyse() (the summary keeps none).
  std::vector<RankWaitInput> take_wait_inputs();
  // Collective over the merge's processes, after the summaries were added up: the wait
  // states and the critical path from each process's `mine`; the first process keeps them.
  // Each merge process analyses on up to `threads` threads (at most one per rank).
  // Within `window` if one is given (its problem, a region it could not find, told by
  // window_problem() on the first process).
  void analyse(std::vector<RankWaitInput> mine, const AnalysisExchange& exchange,
               std::size_t threads = 1, const std::optional<WindowSpec>& window = std::nullopt);
  const std::string& window_problem() const noexcept { return window_problem_; }
  // Bytes of message ends and collective calls this process spilled (spill_wait_states).
  std::uint64_t analysis_spilled_bytes() const noexcept {
    return spill_ ? spill_->spilled_bytes() : 0;
  }
  // The job's critical path through the wait states (found at the first call).
  const CriticalPath& critical_path() const;
  // The wait states of the ranks added up (analysed at the first call).
  const WaitStateReport& wait_states() const;

 private:
  std::map<std::string, std::map<std::int32_t, Stat>> mpi_;  // function -> rank
  std::map<RegionKey, Stat> regions_;
  std::map<std::string, std::map<std::int32_t, Stat>> kernels_;  // kernel name -> rank
  std::map<std::string, std::map<std::int32_t, Stat>> copies_;   // direction / kind -> rank
  CounterSummary counters_;
  std::uint64_t ranks_ = 0;
  // A watched rank's counter samples, added up into counters_ when it was read whole.
  std::shared_ptr<CounterSummary::RankPart> counter_part_;
  // What the wait-state analysis needs of each rank; a watched rank's, gathered while read.
  std::vector<RankWaitInput> wait_inputs_;
  std::vector<RankTime> rank_times_;
  RegionImbalanceInput region_input_;
  // A watched rank's regions by thread and name: the name and its instances.
  struct RegionSeriesPart {
    std::int32_t rank = -1;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::string, InstanceSeries>>
        series;
  };
  std::shared_ptr<RegionSeriesPart> region_part_;
  std::shared_ptr<RankTime> time_part_;
  std::shared_ptr<WaitInputGatherer> wait_part_;
  std::shared_ptr<WatchWorkers> workers_;     // null: watched on the reading threads
  std::shared_ptr<WatchWorkers::Feed> feed_;  // a watched rank's way to the workers
  mutable std::optional<WaitStateReport> wait_report_;
  mutable std::optional<CriticalPath> critical_path_;
  std::string window_problem_;
  bool analyse_waits_ = true;
  std::size_t expected_ranks_ = 1;
  std::size_t job_ranks_ = 0;    // 0: expected_ranks_
  unsigned finish_threads_ = 1;  // finish_on_threads
  std::shared_ptr<EndSpill> spill_;
  std::size_t analysis_memory_ = kAnalysisMemory;
  std::vector<std::shared_ptr<Summary>> watched_;         // a part per rank watched
  std::map<const AlignedRank*, std::size_t> watched_at_;  // each watched rank's part

  // Each watched rank's analysis input, finished (by index into watched_; empty for a part
  // that gathers none).
  std::vector<RankWaitInput> finish_wait_parts();
  // Sends the rank's rows to `part`.
  void install_watcher(const AlignedRank& rank, const std::shared_ptr<Summary>& part) const;
  WatchWorkers& workers() const;

  void merge(Summary& part);  // moves part's wait inputs
  // Each rank's first and last record, from the rank times added up here.
  RankSpans rank_spans() const;
};

}  // namespace rocprof::merge
