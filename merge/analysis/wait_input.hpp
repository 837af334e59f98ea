// What the wait-state analysis needs of one rank, gathered while the merge reads the rank's
// rows for its outputs: the calls that sent and completed each matched message (by the
// message's job-wide flow id), the rank's collective calls numbered per communicator, and
// what the rank was doing (nested regions, MPI calls, API calls, GPU work) so that another
// rank's wait on it can be blamed on something.
//
// Memory: 40 bytes per message end and collective call, of which a merge process holds a
// budget in memory and spills the rest (end_spill.hpp), and 24 per doing, of which a rank
// keeps a budget: past it, neighbouring doings are joined (doing_list.hpp), so that every
// call's time stays in.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "lib/format/records.hpp"
#include "merge/analysis/doing_list.hpp"
#include "merge/analysis/end_spill.hpp"
#include "merge/analysis/wait_patterns.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/op_names.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/timeline/message_flows.hpp"

namespace rocprof::merge {

// One end of a matched message: the drawn call that sent it or completed its receive.
struct MessageEnd {
  std::uint64_t flow;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  // A receive: when it was posted (MPI_Irecv's call). A send (posted as it began): the world
  // rank it went to, whose merge process the analysis takes it to.
  std::uint64_t posted_or_receiver;
  std::uint32_t thread_id;
  std::uint16_t function;  // index into RankWaitInput::names (MPI functions are few)
  std::uint8_t kind;       // MpiCallKind of the call
  std::uint8_t flags;      // kSendEnd, kSoleReceive
  static constexpr std::uint8_t kSendEnd = 1;
  // A receive whose call completed no other message: its wait is known once it meets its
  // send, without the call's other messages.
  static constexpr std::uint8_t kSoleReceive = 2;
  bool sends() const noexcept { return (flags & kSendEnd) != 0; }
  bool sole_receive() const noexcept { return (flags & kSoleReceive) != 0; }
};

// A collective call: the `sequence`-th collective of its rank on `communicator`.
struct CollectiveCall {
  std::uint64_t communicator;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::uint32_t sequence;
  std::int32_t root;  // world rank, -1 if none
  std::uint32_t thread_id;
  std::uint16_t function;  // index into RankWaitInput::names
  CollectiveKind kind;
  std::uint8_t padding = 0;
};

// The slice of a message end: its message's (both ends share it), and of a collective call:
// its instance's. A message shares its slice with the messages of its stream numbered close
// to it, an instance with the communicator's instances numbered close to it (kSliceRun of
// them), so that every round of the analysis holds a share of every stream and
// communicator. Slicing by stream alone put a rank's messages (few streams: its neighbours)
// into a few rounds, so that each round waited for the few threads whose ranks it held.
// Runs are short so that a job of few messages or instances (a few thousand per stream or
// communicator) still spreads them over every slice.
inline constexpr std::uint32_t kSliceRun = 16;
inline std::uint32_t slice_of_run(std::uint64_t key, std::uint64_t number) noexcept {
  return slice_of_key(key + (number / kSliceRun) * 0x9e3779b97f4a7c15ULL);
}
inline std::uint32_t slice_of(const MessageEnd& end) noexcept {
  return slice_of_run(end.flow >> 32, end.flow & 0xffffffffU);  // stream, ordinal
}
inline std::uint32_t slice_of(const CollectiveCall& call) noexcept {
  return slice_of_run(call.communicator, call.sequence);
}

struct RankWaitInput {
  std::int32_t rank = -1;
  std::vector<std::string> names;
  // The message ends and collective calls still in memory; past the process's budget the
  // rest went to `spill`, a block at a time.
  std::vector<MessageEnd> messages;
  std::vector<CollectiveCall> collectives;
  std::shared_ptr<const EndSpill> spill;
  std::vector<SpilledBlock> spilled_messages;
  std::vector<SpilledBlock> spilled_collectives;
  // names[0, message_names) are the functions of the ends and calls (spilled ones included).
  std::uint32_t message_names = 0;
  std::vector<Doing> doings;
  // The regions' lanes, for the call paths of waits.
  struct RegionLane {
    std::uint32_t lane;
    std::uint32_t thread_id;
    std::uint32_t level;
  };
  std::vector<RegionLane> region_lanes;
  std::uint64_t joined_within_ns = 0;  // doings less than this apart were joined (0: none)
  // Once a part of them was taken, `messages` (`collectives`) are ordered by slice, each
  // slice's in the order gathered: where each slice begins.
  std::optional<std::array<std::uint32_t, kEndSlices + 1>> held_message_starts;
  std::optional<std::array<std::uint32_t, kEndSlices + 1>> held_collective_starts;
  // `doings` are in doing_order (the gatherer leaves them so; get() refuses others).

  std::size_t message_count() const;
  std::size_t collective_count() const;
  std::size_t spilled_count() const;  // ends and calls
  bool spilled() const noexcept {
    return !spilled_messages.empty() || !spilled_collectives.empty();
  }
  // The ends and calls of the slices in `range`, in memory and spilled, each slice's in the
  // order gathered (appended to `out`). The first range short of the whole orders those in
  // memory by slice, so that each range is then copied rather than looked for.
  void messages_in(SliceRange range, std::vector<MessageEnd>& out);
  void collectives_in(SliceRange range, std::vector<CollectiveCall>& out);

  // Of one held in memory whole (spilled() false: put throws std::logic_error otherwise).
  // `kDoings`: its doings alone (what blaming needs), its ends and calls sent as none.
  enum class Part : std::uint8_t { kWhole, kDoings };
  void put(ByteWriter& out, Part part = Part::kWhole) const;
  static RankWaitInput get(ByteReader& in);
};

// Gathers one rank's RankWaitInput from the rows the merge hands its watchers (MPI calls in
// file order, ranges, API calls, GPU work; the tables in any order). Two halves that share
// nothing, so that two threads may feed them at once: the message ends and collective calls
// (from the MPI calls), and the doings (from every row).
class WaitInputGatherer {
 public:
  // The doings the job's ranks keep together (24 bytes each), shared out among them: a
  // rank's share does not depend on how many merge processes there are, so that every
  // number of processes keeps the same doings, and a process keeps at most this many of its
  // ranks'. No rank keeps fewer than kLeastDoingsPerRank.
  static constexpr std::size_t kDoingsPerJob = std::size_t{1} << 23;
  static constexpr std::size_t kLeastDoingsPerRank = std::size_t{1} << 12;
  static std::size_t doings_budget(std::size_t job_ranks) {
    return std::max(kLeastDoingsPerRank, kDoingsPerJob / std::max<std::size_t>(job_ranks, 1));
  }
  // How many ends and calls a rank's gatherer takes on between two looks at the process's
  // budget: what the ranks hold unchecked stays within a quarter of it. Over the budget, a
  // gatherer spills once it holds kSpillShare steps (a rank's share of the budget), so the
  // ranks together may hold up to about twice the budget before their blocks go.
  static constexpr std::size_t kSpillShare = 4;
  static std::size_t spill_step(std::size_t budget, std::size_t ranks) {
    return std::clamp<std::size_t>(
        budget / (4 * sizeof(MessageEnd) * std::max<std::size_t>(ranks, 1)), 256, 65536);
  }

  // The message ends and collective calls of the rank's MPI calls.
  class Messages {
   public:
    // With a spill, ends and calls past the process's budget go to it, a block at a time
    // (`step` items between two looks at the budget).
    Messages(const AlignedRank& rank, std::shared_ptr<EndSpill> spill, std::size_t step);
    ~Messages();
    Messages(const Messages&) = delete;
    Messages& operator=(const Messages&) = delete;
    void mpi_call(const format::MpiCallRow& row);
    // What mpi_call makes from the rank's file at the first row (reading the rank's tables:
    // on the thread that reads the rank, for a half fed on another).
    void prepare();

   private:
    friend class WaitInputGatherer;
    // What the half needs of a function, found once per function.
    struct Function {
      std::int32_t name = -1;  // index into names_; -1: not looked up yet
      std::uint8_t kind = 0;   // MpiCallKind
      CollectiveKind collective = CollectiveKind::kNone;
    };
    const Function& function(format::StringId id);
    // Counts what came since the last look at the budget; spills all held past it.
    void took_on();
    void spill_all();

    const AlignedRank& rank_;
    MpiFunctions functions_;
    std::optional<MessageFlowCursor> flows_;  // made at the first MPI call (reads the rank)
    std::vector<Function> by_id_;             // by the rank's string id
    std::vector<std::string> names_;
    std::vector<MessageEnd> messages_;
    std::vector<CollectiveCall> collectives_;
    absl::flat_hash_map<std::uint64_t, std::uint32_t> sequences_;  // communicator -> next
    std::shared_ptr<EndSpill> spill_;                              // null: everything is held
    std::size_t step_ = 0;
    std::size_t unchecked_ = 0;  // ends and calls since the last look at the budget
    std::size_t held_ = 0;       // bytes this half told the spill it holds
    std::vector<SpilledBlock> spilled_messages_;
    std::vector<SpilledBlock> spilled_collectives_;
    bool finished_ = false;  // its held bytes stay the process's, with the rank's input
  };

  // What the rank was doing: its MPI calls, ranges, API calls and GPU work.
  class Doings {
   public:
    Doings(const AlignedRank& rank, std::size_t budget);
    void mpi_call(const format::MpiCallRow& row);
    void range(const Range& range);
    void api_call(const format::ApiCallRow& row);
    void activity(const format::ActivityRow& row);
    // What api_call and activity make from the rank's file at the first row.
    void prepare_names() { op_names(); }

   private:
    friend class WaitInputGatherer;
    std::uint32_t intern(std::uint64_t key, const std::function<std::string()>& name);
    std::uint32_t lane(std::uint64_t kind, std::uint64_t key);
    std::uint32_t thread_lane(std::uint32_t thread_id);
    const OpNames& op_names();

    const AlignedRank& rank_;
    MpiFunctions functions_;
    std::optional<OpNames> op_names_;           // made at the first API call or GPU work
    std::vector<std::int32_t> function_names_;  // by the rank's string id: -1 not yet
    std::vector<std::string> names_;
    DoingList doings_;
    std::vector<RankWaitInput::RegionLane> region_lanes_;
    absl::flat_hash_map<std::uint64_t, std::uint32_t> name_keys_;
    absl::flat_hash_map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t> lanes_;
    std::uint32_t lane_count_ = 0;
    std::uint32_t last_thread_ = 0;  // the lane of the thread of the last call, cached
    std::uint32_t last_thread_lane_ = ~0U;
  };

  WaitInputGatherer(const AlignedRank& rank, std::size_t doings_budget,
                    std::shared_ptr<EndSpill> spill = nullptr, std::size_t spill_step = 0);
  Messages& messages() noexcept { return messages_; }
  Doings& doings() noexcept { return doings_; }
  // The rank's input, once every rank was read; what it still holds is spilled first if the
  // process spilled anything.
  RankWaitInput finish();

 private:
  std::int32_t rank_;
  Messages messages_;
  Doings doings_;
};

}  // namespace rocprof::merge
