// Point-to-point messages matched across ranks, and the causality check: a message cannot be
// received before it was sent. With clocks aligned from measurements, small errors remain; the
// correction moves the receiving rank's clock forward from each violating receive by the least
// amount that fixes it (StepFunction: every rank keeps its order and the durations of
// everything between two steps).
//
// Bounded memory whatever the number of messages: each merge process first writes its ranks'
// message endpoints (16 bytes each) to a spill file next to the output; then each walks its
// ranks' endpoints, a rank at a time up to a moving time horizon shared by all, holding only
// the messages in flight (sent, not yet received) to its ranks, and the processes hand each
// other the sends to the others' ranks and, at the end, the resulting corrections.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "merge/analysis/analysis_exchange.hpp"
#include "merge/clock/step_function.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/events/stream_table.hpp"
#include "merge/files/remove_on_signal.hpp"

namespace rocprof::merge {

// One endpoint in a spill file.
struct SpilledEndpoint {
  std::uint64_t time_ns;  // clock-aligned, uncorrected
  std::uint32_t stream;   // index into the spilling process's streams
  // ordinal << 2 (MessageEndpoint::ordinal), | 2 when unordered, | 1 for a receive
  std::uint32_t place;
  std::uint32_t ordinal() const noexcept { return place >> 2; }
  bool receive() const noexcept { return (place & 1U) != 0; }
  // A threaded rank's receive whose posting call overlapped another thread's post on the
  // same stream: its place is a guess (see RepairedReceive).
  bool unordered() const noexcept { return (place & 2U) != 0; }
  static std::uint32_t make_place(std::uint32_t ordinal, bool receive, bool unordered = false) {
    return ordinal << 2 | (unordered ? 2U : 0U) | (receive ? 1U : 0U);
  }
};

// Where a rank's endpoints are in its spill file (in file order).
struct SpillSection {
  std::int32_t rank;
  // 1: the rank's calls came from several threads, and its endpoints are numbered in each
  // stream in the order they were posted, not in file order (exporters number its flows so).
  std::uint32_t threaded = 0;
  std::uint64_t first;
  std::uint64_t count;
};

// What a merge process tells the others about its spill.
struct SpillSummary {
  std::string path;
  std::vector<StreamCount> streams;  // by the spill's stream index
  std::vector<InvisibleTarget> invisible;
  std::vector<SpillSection> sections;

  std::vector<std::byte> serialize() const;
  static SpillSummary deserialize(std::span<const std::byte> bytes);  // throws on bad bytes
};

// Each rank's endpoints go to a region of the file of their own, reserved for the most the
// rank can have (two per MPI call; the file is sparse past what is written): several ranks
// may be spilled at once, on several threads, in any order, while the sections stay listed
// in the order the ranks were reserved (the matching's order).
class EndpointSpill {
 public:
  // Creates the spill exclusively, named `prefix` and a random suffix (never an existing
  // file or link); throws std::runtime_error.
  explicit EndpointSpill(const std::string& prefix);
  ~EndpointSpill();  // removes the file
  EndpointSpill(const EndpointSpill&) = delete;
  EndpointSpill& operator=(const EndpointSpill&) = delete;

  // The rank's place (its section), next after those reserved before.
  std::size_t reserve(const AlignedRank& rank);
  // Writes the rank's endpoints into the place reserved for it (throws on I/O errors). Safe
  // on several threads at once, for different places.
  void fill(std::size_t place, const AlignedRank& rank);
  void add(const AlignedRank& rank) { fill(reserve(rank), rank); }
  const SpillSummary& finish();  // after every place is filled (fill() reports I/O errors)

 private:
  std::unique_ptr<RemoveOnSignal> remove_on_signal_;  // gone if the merge is interrupted
  int fd_ = -1;
  std::mutex mutex_;  // guards what follows
  SpillSummary summary_;
  std::uint64_t reserved_ = 0;  // records
  absl::flat_hash_map<StreamKey, std::uint32_t> local_;
  std::set<InvisibleTarget> invisible_;  // one per target (a Sendrecv loop repeats it)
};

// A receive of a threaded rank that met another message of its stream than its place says:
// the threads posted in another order than their calls' starts tell (a thread held up between
// the start of its call and the post, while another thread's call started and posted).
// Exporters draw its flow from `message`.
struct RepairedReceive {
  std::uint32_t stream;   // the job's stream table index
  std::uint32_t place;    // the receive's place in the stream (posting order)
  std::uint32_t message;  // the ordinal of the send it is paired with
};

// How this process's part of the matching went (--timings): not shared, not serialized.
struct MatchingSteps {
  double walking_s = 0;         // taking endpoints, its own cursors
  double exchanging_s = 0;      // the rounds' exchanges, waiting for the other processes included
  double rechecking_s = 0;      // counting what the correction left
  std::uint64_t endpoints = 0;  // taken by this process
  std::uint64_t rounds = 0;
  std::uint64_t exchanges = 0;  // iterations that ended in an exchange (with other processes)
  std::uint64_t handed = 0;     // sends handed to other processes
};

struct CausalityReport {
  std::uint64_t messages = 0;  // matched
  std::uint64_t violations_before = 0;
  std::uint64_t violations_after = 0;
  std::uint64_t max_shift_ns = 0;
  // Per rank with a correction (shared with the ranks it is applied to).
  std::map<std::int32_t, std::shared_ptr<const StepFunction>> corrections;
  // Streams whose order turned out inconsistent while matching (a receive that no send can
  // precede): left unmatched, like streams of unequal counts.
  std::vector<std::uint32_t> given_up;
  std::vector<RepairedReceive> repaired;
  std::vector<std::int32_t> repaired_ranks;  // the ranks that made them, once each
  MatchingSteps steps;                       // this process's own (not in serialize())

  std::vector<std::byte> serialize() const;
  static CausalityReport deserialize(std::span<const std::byte> bytes);
  // Whether a rank read before this report was applied reads otherwise now: it has a
  // correction or repaired receives, or a stream was given up (which changes the flows of
  // any rank it touches).
  bool changes(std::int32_t rank) const {
    return !given_up.empty() || corrections.contains(rank) ||
           std::find(repaired_ranks.begin(), repaired_ranks.end(), rank) != repaired_ranks.end();
  }
};

// Less than any MPI message takes from its send to its receive.
inline constexpr std::uint64_t kLeastLatencyNs = 100;

// Throws std::runtime_error naming the first spill that cannot be opened here (another
// process's, in a directory of its node's own).
void check_spills_seen(const std::vector<SpillSummary>& spills);

// Matches every spill's endpoints by stream, in order (MPI's non-overtaking rule), counts
// violations and, with `correct`, computes the correction. On a rank whose calls come from
// several threads, an unordered receive (SpilledEndpoint::unordered) that would end sooner
// than kLeastLatencyNs after its send began is paired instead with the earliest message of
// its stream not yet taken that was sent at least that long before it ended (see
// RepairedReceive); the receive whose place that message had gets the one given up.
// Deterministic: every process would compute the same, so only the first one does.
CausalityReport check_causality(const std::vector<SpillSummary>& spills, const StreamTable& table,
                                bool correct);
// The same, shared by the processes of `exchange` (collective: each calls it with the same
// arguments): process walkers[s] walks the ranks of spill s and holds the messages in flight
// of the streams they receive; the sends travel between the processes in rounds. Every
// process gets the whole report, the same as one process would compute. Where a rank or a
// stream's receives are in two spills, the first process walks them all.
CausalityReport check_causality(const std::vector<SpillSummary>& spills, const StreamTable& table,
                                bool correct, const AnalysisExchange& exchange,
                                const std::vector<std::uint32_t>& walkers);
// The same with a spill per process, process p's spill p (else spill_walkers' choice).
CausalityReport check_causality(const std::vector<SpillSummary>& spills, const StreamTable& table,
                                bool correct, const AnalysisExchange& exchange);
// Which process walks each spill: spill s is process places[s]'s own (its place in the
// exchange; -1: no process of the exchange wrote it), and each other spill goes to the
// process with the fewest endpoints to walk so far (ties: the lowest place), the largest
// first. `processes`: the exchange's.
std::vector<std::uint32_t> spill_walkers(const std::vector<SpillSummary>& spills,
                                         const std::vector<int>& places, std::size_t processes);

}  // namespace rocprof::merge
