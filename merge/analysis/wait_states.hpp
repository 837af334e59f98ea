// The job's wait states (wait_patterns.hpp), found from every rank's RankWaitInput: per
// waiting call the time it waited, the rank it waited for and what that rank was doing
// meanwhile, added up per pattern, per rank, per call path and per cause.
//
// Matching: a message's two ends by its flow id (the merge's message matching); a
// collective's calls as the same-numbered collective of each rank on one communicator (MPI
// runs a communicator's collectives in one order on all its ranks). Ranks that were not
// traced are missing from their collectives, which are analysed over the ranks present.
//
// Spread over the merge's processes, each holding its own ranks' inputs only: a send goes to
// the process of the rank it went to, where its receive is; a collective instance's calls
// are added up per process and the parts meet on the process the instance falls to. That
// process finds the waits, the waiting rank's process their call paths, the awaited rank's
// their causes. The first process adds up the waits.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "merge/analysis/analysis_exchange.hpp"
#include "merge/analysis/analysis_window.hpp"
#include "merge/analysis/job_edges.hpp"
#include "merge/analysis/wait_input.hpp"
#include "merge/analysis/wait_patterns.hpp"
#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {

struct WaitTotals {
  std::uint64_t count = 0;
  double total_ns = 0;
  void add(double ns) {
    ++count;
    total_ns += ns;
  }
};

struct WaitStateReport {
  // pattern, waiting rank, call path ("solve > exchange", "" outside regions), waiting MPI
  // function, awaited rank, cause ("kernel jacobi", "MPI_Recv", "region compute", ...).
  using Key =
      std::tuple<WaitPattern, std::int32_t, std::string, std::string, std::int32_t, std::string>;
  std::map<Key, WaitTotals> waits;
  // Each wait (the edges of the critical path), on the first process.
  using Edge = WaitEdge;
  JobEdges edges;
  std::vector<std::string> causes;
  // Collective instances whose ranks called different functions (the records contradict
  // each other there): not analysed.
  std::uint64_t mismatched_collectives = 0;
  // In how many rounds the message ends and collective calls were taken (not exchanged).
  std::uint32_t rounds = 1;
  // Ranks so many waited for that their doings went to every process (not exchanged).
  std::uint32_t shared_ranks = 0;
  // Bytes of ends and calls that every process together had spilled (not exchanged).
  std::uint64_t spilled_bytes = 0;
  // How long the first process's steps took, in seconds (not exchanged): for --timings.
  struct StepSeconds {
    double finding = 0;       // the rounds: ends paired, collectives added up, waits blamed
    double late_senders = 0;  // receives of several messages blamed after the last round
    double gathering = 0;     // totals, causes and edges gathered on the first process
    double taking = 0;        // of finding: the rounds' ends and calls taken (spilled: read)
    double exchanging = 0;    // of all three, in exchanges with the other processes
    std::size_t exchanges = 0;
  } seconds;

  bool empty() const noexcept { return waits.empty(); }
  std::array<WaitTotals, kWaitPatterns> by_pattern() const;
  // Per waiting rank, per pattern.
  std::map<std::int32_t, std::array<double, kWaitPatterns>> by_rank() const;
  // (pattern, awaited rank, cause) and (pattern, function, call path), by total time.
  std::vector<std::pair<std::tuple<WaitPattern, std::int32_t, std::string>, WaitTotals>> by_cause()
      const;
  std::vector<std::pair<std::tuple<WaitPattern, std::string, std::string>, WaitTotals>>
  by_call_path() const;

  // `mpi_ns`: all ranks' MPI time, for the patterns' shares of it.
  void print(std::FILE* out, double mpi_ns, std::size_t top) const;
  // <prefix>_waits.csv; false with `error`.
  bool write_csv(const std::string& prefix, std::string& error) const;

  // As merge processes exchange it, without the edges (they travel apart); get() throws on
  // damaged bytes.
  void put(ByteWriter& out) const;
  static WaitStateReport get(ByteReader& in);
};

// What a merge process holds of message ends and collective calls by default: in memory
// while gathering (the rest spilled), and in each round of the analysis.
inline constexpr std::size_t kAnalysisMemory = std::size_t{128} << 20;

// Collective over the merge's processes: each passes its own ranks' inputs (a rank on one
// process only), whose message ends and collective calls it consumes (the doings stay, for
// the critical path). The job's report comes back on the first process (exchange.index()
// 0), an empty one elsewhere. Edges are ordered by waiting rank and time, causes by first
// use.
// Waits are cut to `window` (those outside it left out). The ends and calls are taken in
// rounds, each a range of slices (end_spill.hpp), so that no process holds much more than
// `round_bytes` of them at once, whatever it gathered; all processes take as many rounds as
// the one with the most needs.
WaitStateReport analyse_wait_states(std::vector<RankWaitInput>& mine,
                                    const AnalysisExchange& exchange, const TimeWindow& window = {},
                                    std::size_t round_bytes = kAnalysisMemory);
// Every rank's input in this one process.
WaitStateReport analyse_wait_states(const std::vector<RankWaitInput>& ranks);

}  // namespace rocprof::merge
