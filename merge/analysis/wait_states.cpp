#include "merge/analysis/wait_states.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "merge/analysis/found_wait.hpp"
#include "merge/analysis/rank_doings.hpp"
#include "merge/analysis/receives_by_flow.hpp"
#include "merge/analysis/waiting_rank_runs.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {
namespace {

constexpr std::size_t kPageParts = kSliceRun;  // InstanceTable's page
constexpr std::uint64_t kRoundWorkingSet = 3;  // a round's memory / its items' bytes
// Waits each process sends in a piece of blame_in_pieces at least: with thousands of merge
// processes the budget's share would be a few waits, and each piece is an exchange.
constexpr std::size_t kLeastBlamePiece = 1024;
// A rank awaited by more of a step's waits than a process's even share of them (and by at
// least kLeastHotWaits) has its doings copied to every process (Analysis::share_hot_ranks);
// a process holds up to kSharedDoings doings of such ranks (24 bytes each).
constexpr std::uint64_t kLeastHotWaits = 64;
constexpr std::size_t kSharedDoings = std::size_t{1} << 18;

// A send as it travels to the process of the rank it went to, where its receive is: its rank
// and its function as an index into the job's function names (the same on every process).
struct SyncSend {
  std::uint64_t flow;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::int32_t rank;
  std::uint32_t thread_id;
  std::uint16_t function;
  std::uint8_t kind;
  std::uint8_t padding = 0;
  std::uint32_t padding2 = 0;
};

// What a collective instance's waits need of its calls, from some of them (one process's) or
// all: the latest call, the latest of the non-roots, the root's begin, and whether the calls
// agree on their function. Each process sends its part to the process the instance hashes to,
// which adds the parts up and sends the whole back to each process with calls in it.
struct InstancePart {
  std::uint64_t communicator;
  std::uint64_t latest_begin;          // of the latest call
  std::uint64_t latest_nonroot_begin;  // of the latest call not the root's
  std::uint64_t root_begin;            // of the root's call, if root_rank >= 0
  std::uint32_t sequence;
  std::uint32_t calls;
  std::int32_t latest_rank;          // -1: none
  std::int32_t latest_nonroot_rank;  // -1: none
  std::int32_t root_rank;            // -1: the root's call is not in the part
  std::uint16_t function;
  CollectiveKind kind;
  std::uint8_t mixed;  // the calls name different functions
};

// Whether a call of `rank` that began at `begin` counts as later than one of `than_rank` that
// began at `than_begin` (none if than_rank < 0): of calls that began at once, the lowest rank
// counts as the latest.
bool later(std::uint64_t begin, std::int32_t rank, std::uint64_t than_begin,
           std::int32_t than_rank) {
  return than_rank < 0 || begin > than_begin || (begin == than_begin && rank < than_rank);
}

// A part of no calls yet, of an instance of `function`.
InstancePart empty_part(std::uint64_t communicator, std::uint32_t sequence, std::uint16_t function,
                        CollectiveKind kind) {
  return {communicator, 0, 0, 0, sequence, 0, -1, -1, -1, function, kind, 0};
}

// Adds `rank`'s call that began at `begin` (the root's if `root`) to `part`.
void add_call(InstancePart& part, std::int32_t rank, std::uint64_t begin, bool root) {
  ++part.calls;
  if (later(begin, rank, part.latest_begin, part.latest_rank)) {
    part.latest_begin = begin;
    part.latest_rank = rank;
  }
  if (root) {
    part.root_begin = begin;
    part.root_rank = rank;
  } else if (later(begin, rank, part.latest_nonroot_begin, part.latest_nonroot_rank)) {
    part.latest_nonroot_begin = begin;
    part.latest_nonroot_rank = rank;
  }
}

// Adds `other` (calls of the same instance) to `part`.
void add_part(InstancePart& part, const InstancePart& other) {
  if (other.function != part.function || other.kind != part.kind) part.mixed = 1;
  part.mixed |= other.mixed;
  part.calls += other.calls;
  if (other.latest_rank >= 0 &&
      later(other.latest_begin, other.latest_rank, part.latest_begin, part.latest_rank)) {
    part.latest_begin = other.latest_begin;
    part.latest_rank = other.latest_rank;
  }
  if (other.latest_nonroot_rank >= 0 &&
      later(other.latest_nonroot_begin, other.latest_nonroot_rank, part.latest_nonroot_begin,
            part.latest_nonroot_rank)) {
    part.latest_nonroot_begin = other.latest_nonroot_begin;
    part.latest_nonroot_rank = other.latest_nonroot_rank;
  }
  if (other.root_rank >= 0) {
    part.root_begin = other.root_begin;
    part.root_rank = other.root_rank;
  }
}

// Collective instances by communicator and number, of every `stride`-th number where a
// process holds every stride-th (instance_process), in pages of kPageParts consecutive
// entries made as instances come: a round of the analysis holds some runs of instances only
// (slice_of(CollectiveCall)), and its table only the pages they fall in, whatever the
// communicator's highest number. Pages are found by hash, but a rank's calls come in order,
// so most calls find theirs in the last one used. An entry of no calls is none. The pages
// lie in one vector: a page allocated apiece made every analysis thread of a process
// contend for the allocator, round after round.
class InstanceTable {
 public:
  // `most` bounds a communicator's entries (damage past it is refused, not allocated).
  InstanceTable(std::size_t most, std::size_t stride) : most_(most), stride_(stride) {}
  InstancePart& at(std::uint64_t communicator, std::uint32_t sequence) {
    const std::size_t index = sequence / stride_;
    if (index >= most_)
      throw std::runtime_error("a merge process sent a damaged collective instance");
    const PageKey key{communicator, index / kPageParts};
    if (last_ == kNoPage || key != last_key_) {
      const auto [found, added] = page_of_.try_emplace(key, pages_.size());
      if (added) {
        pages_.emplace_back();
        pages_.back().fill(empty_part(communicator, 0, 0, CollectiveKind::kNone));
      }
      last_key_ = key;
      last_ = found->second;
    }
    InstancePart& part = pages_[last_][index % kPageParts];
    part.sequence = sequence;
    return part;
  }
  const InstancePart* find(std::uint64_t communicator, std::uint32_t sequence) const {
    const std::size_t index = sequence / stride_;
    const auto found = page_of_.find(PageKey{communicator, index / kPageParts});
    if (found == page_of_.end()) return nullptr;
    const InstancePart& part = pages_[found->second][index % kPageParts];
    return part.calls == 0 ? nullptr : &part;
  }
  template <typename Visit>
  void for_each(Visit visit) const {
    for (const Page& page : pages_)
      for (const InstancePart& part : page)
        if (part.calls > 0) visit(part);
  }

 private:
  using Page = std::array<InstancePart, kPageParts>;
  using PageKey = std::pair<std::uint64_t, std::size_t>;  // communicator, page
  static constexpr std::size_t kNoPage = ~std::size_t{0};
  std::size_t most_;
  std::size_t stride_;
  std::vector<Page> pages_;
  absl::flat_hash_map<PageKey, std::size_t> page_of_;  // index into pages_
  PageKey last_key_{};
  std::size_t last_ = kNoPage;
};

// A WaitStateReport::Key with the call path and cause as numbers, for adding up before the
// names are looked up.
struct NumberedWaitKey {
  WaitPattern pattern;
  std::int32_t waiting;
  std::uint32_t call_path;
  std::uint16_t function;
  std::int32_t awaited;
  std::uint32_t cause;
  bool operator==(const NumberedWaitKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H hash, const NumberedWaitKey& key) {
    return H::combine(std::move(hash), key.pattern, key.waiting, key.call_path, key.function,
                      key.awaited, key.cause);
  }
};

// Ranks cut into ranges of consecutive ranks whose items (`counts` per rank, `item_bytes`
// each) take at most `budget` bytes, but for a rank past it alone: range r is ranks
// [ranges[r], ranges[r + 1]). None for no ranks.
std::vector<std::int32_t> rank_ranges(const std::map<std::int32_t, std::uint64_t>& counts,
                                      std::size_t item_bytes, std::uint64_t budget) {
  std::vector<std::int32_t> ranges;
  std::uint64_t in_range = 0;
  for (const auto& [rank, count] : counts) {
    const std::uint64_t bytes = count * item_bytes;
    if (ranges.empty() || (in_range > 0 && in_range + bytes > budget)) {
      ranges.push_back(rank);
      in_range = 0;
    }
    in_range += bytes;
  }
  if (!counts.empty()) ranges.push_back(counts.rbegin()->first + 1);
  return ranges;
}

// Which process pairs the calls of `key` (a flow id, a collective instance): spread evenly.
std::size_t process_of(std::uint64_t key, std::size_t processes) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return static_cast<std::size_t>(key % processes);
}

// Items of one type bound for each process, appended as their bytes (no copy on the way).
template <typename T>
class Outgoing {
 public:
  explicit Outgoing(std::size_t processes) : parts_(processes) {}
  // Items added after what `parts` hold already, a part per process.
  explicit Outgoing(std::vector<std::vector<std::byte>> parts) : parts_(std::move(parts)) {}
  // Room for `count` more items to `process`: parts grow once, not by doubling.
  void reserve(std::size_t process, std::size_t count) {
    parts_[process].reserve(parts_[process].size() + count * sizeof(T));
  }
  void add(std::size_t process, const T& item) {
    const auto* bytes = reinterpret_cast<const std::byte*>(&item);
    parts_[process].insert(parts_[process].end(), bytes, bytes + sizeof(T));
  }
  // What was added, and none left for the next items.
  std::vector<std::vector<std::byte>> take() {
    std::vector<std::vector<std::byte>> parts = std::move(parts_);
    parts_.assign(parts.size(), {});
    return parts;
  }

 private:
  std::vector<std::vector<std::byte>> parts_;
};

// What arrived from each process, or a share of it, read in place.
using Parts = std::vector<std::span<const std::byte>>;
Parts views_of(const std::vector<std::vector<std::byte>>& parts) {
  return {parts.begin(), parts.end()};
}

// The items of a part, read in place.
template <typename T>
std::size_t items_in(std::span<const std::byte> part) {
  if (part.size() % sizeof(T) != 0)
    throw std::runtime_error("a merge process sent a damaged analysis message");
  return part.size() / sizeof(T);
}

// For --timings.
double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}
template <typename T>
T item_at(const std::byte* at) {
  T item;
  std::memcpy(&item, at, sizeof(T));
  return item;
}
template <typename T, typename Visit>
void for_each_item(const Parts& parts, Visit visit) {
  for (const std::span<const std::byte> part : parts) {
    const std::size_t count = items_in<T>(part);
    for (std::size_t i = 0; i < count; ++i) visit(item_at<T>(part.data() + i * sizeof(T)));
  }
}

class Analysis {
 public:
  Analysis(std::vector<RankWaitInput>& mine, const AnalysisExchange& exchange,
           const TimeWindow& window, std::size_t round_bytes)
      : mine_(mine),
        exchange_(exchange),
        window_(window),
        processes_(exchange.processes()),
        round_bytes_(std::max<std::size_t>(round_bytes, 1)),
        ends_(mine.size()),
        calls_(mine.size()),
        scratch_(scratch_of(mine)),
        // Both grow while the rounds hold their ends and calls: half the budget each.
        edges_(scratch_, round_bytes_ / 2),
        candidates_kept_(scratch_, round_bytes_ / 2) {
    for (std::size_t i = 0; i < mine.size(); ++i) local_[mine[i].rank] = i;
    cause_numbers_by_name_.resize(mine.size());
  }

  WaitStateReport run() {
    const auto began = std::chrono::steady_clock::now();
    rounds_ = share_ranks_and_functions();
    const std::uint32_t rounds = rounds_;
    // The ends and calls a range of slices at a time, so that a process holds about
    // round_bytes_ of them however many it gathered (the rest waits in memory or its spill).
    // A send goes to the process of the rank it went to, where the receive stays; that
    // process finds the message's waits. A collective instance's calls are added up on each
    // process, the parts on the process the instance hashes to, and the whole goes back to
    // each process with calls in it, which finds its calls' waits. Each wait then goes to the
    // waiting rank's process, and is blamed in the round it was found, but for a late
    // sender's: a receiving call waits for the latest of its messages, which may lie in other
    // rounds, so those wait for the last. Message ends and collective calls are let go once
    // used: the doings stay, for causes and call paths.
    // Every exchange waits for every thread of every process: a round has three.
    double taking = 0;
    for (std::uint32_t round = 0; round < rounds; ++round) {
      const auto taken_from = std::chrono::steady_clock::now();
      take_slices({round * kEndSlices / rounds, (round + 1) * kEndSlices / rounds});
      taking += seconds_between(taken_from, std::chrono::steady_clock::now());
      const std::vector<std::vector<std::byte>> arrived =
          exchange_.all_to_all(outgoing_sends(instance_parts()));
      const auto [instances, sends] = instances_and_sends(arrived);
      pair_messages(sends);
      finish_collectives(views_of(exchange_.all_to_all(add_up_instances(instances))));
      blame_and_keep_found();
    }
    for (RankWaitInput& rank : mine_) {
      std::vector<MessageEnd>().swap(rank.messages);
      std::vector<CollectiveCall>().swap(rank.collectives);
      rank.spilled_messages.clear();
      rank.spilled_collectives.clear();
      rank.spill.reset();
    }
    const auto found = std::chrono::steady_clock::now();
    blame_candidates();
    const auto blamed = std::chrono::steady_clock::now();
    WaitStateReport job = gathered();
    job.seconds = {.finding = seconds_between(began, found),
                   .late_senders = seconds_between(found, blamed),
                   .gathering = seconds_between(blamed, std::chrono::steady_clock::now()),
                   .taking = taking,
                   .exchanging = exchange_.seconds(),
                   .exchanges = exchange_.count()};
    return job;
  }

 private:
  // This round's ends and calls of each of this process's ranks.
  void take_slices(SliceRange range) {
    for (std::size_t r = 0; r < mine_.size(); ++r) {
      RankWaitInput& rank = mine_[r];
      if (range.whole() && !rank.spilled()) {
        ends_[r] = std::move(rank.messages);  // one round of what is held: no copy
        calls_[r] = std::move(rank.collectives);
        continue;
      }
      rank.messages_in(range, ends_[r]);
      rank.collectives_in(range, calls_[r]);
    }
  }

  // Each send of this process's ranks, to the process of the rank it went to (sends to a rank
  // no process holds have no receive to meet), after the instance parts for that process and
  // their length (split again by instances_and_sends).
  std::vector<std::vector<std::byte>> outgoing_sends(
      const std::vector<std::vector<std::byte>>& instances) {
    std::vector<std::vector<std::byte>> ahead(processes_);
    for (std::size_t p = 0; p < processes_; ++p) {
      ByteWriter header;
      header.put<std::uint64_t>(instances[p].size());
      ahead[p] = header.take();
      ahead[p].insert(ahead[p].end(), instances[p].begin(), instances[p].end());
    }
    Outgoing<SyncSend> sends(std::move(ahead));
    const auto receiver_process = [&](const MessageEnd& end) -> std::optional<std::size_t> {
      const auto found = owner_.find(
          static_cast<std::int32_t>(static_cast<std::uint32_t>(end.posted_or_receiver)));
      if (found == owner_.end()) return std::nullopt;
      return found->second;
    };
    std::vector<std::size_t> counts(processes_);
    for (const std::vector<MessageEnd>& ends : ends_)
      for (const MessageEnd& end : ends)
        if (end.sends())
          if (const auto process = receiver_process(end)) ++counts[*process];
    for (std::size_t p = 0; p < processes_; ++p) sends.reserve(p, counts[p]);
    for (std::size_t r = 0; r < mine_.size(); ++r) {
      std::vector<MessageEnd>& ends = ends_[r];
      for (const MessageEnd& end : ends)
        if (end.sends())
          if (const auto process = receiver_process(end))
            sends.add(*process, {end.flow, end.begin_ns, end.end_ns, mine_[r].rank, end.thread_id,
                                 function_id(r, end.function), end.kind});
      // The receives stay, for pair_messages.
      std::erase_if(ends, [](const MessageEnd& end) { return end.sends(); });
    }
    return sends.take();
  }

  // What each process sent by outgoing_sends: its instance parts, and its sends.
  static std::pair<Parts, Parts> instances_and_sends(
      const std::vector<std::vector<std::byte>>& arrived) {
    Parts instances;
    Parts sends;
    for (const std::vector<std::byte>& part : arrived) {
      ByteReader in(part);
      const auto length = in.get<std::uint64_t>();
      if (length > part.size() - sizeof(std::uint64_t))
        throw std::runtime_error("a merge process sent a damaged analysis message");
      const std::span<const std::byte> all(part);
      instances.push_back(all.subspan(sizeof(std::uint64_t), length));
      sends.push_back(all.subspan(sizeof(std::uint64_t) + length));
    }
    return {std::move(instances), std::move(sends)};
  }

  // This process's part of each collective instance its ranks called, to the process the
  // instance hashes to.
  std::vector<std::vector<std::byte>> instance_parts() {
    InstanceTable parts(my_collective_calls_ + 1, 1);
    for (std::size_t r = 0; r < mine_.size(); ++r) {
      const std::int32_t rank = mine_[r].rank;
      for (const CollectiveCall& call : calls_[r]) {
        const std::uint16_t function = function_id(r, call.function);
        InstancePart& part = parts.at(call.communicator, call.sequence);
        if (part.calls == 0)
          part = empty_part(call.communicator, call.sequence, function, call.kind);
        else if (part.function != function || part.kind != call.kind)
          part.mixed = 1;
        add_call(part, rank, call.begin_ns, call.root >= 0 && call.root == rank);
      }
    }
    Outgoing<InstancePart> out(processes_);
    std::vector<std::size_t> counts(processes_);
    parts.for_each([&](const InstancePart& part) {
      ++counts[instance_process(part.communicator, part.sequence)];
    });
    for (std::size_t p = 0; p < processes_; ++p) out.reserve(p, counts[p]);
    parts.for_each([&](const InstancePart& part) {
      out.add(instance_process(part.communicator, part.sequence), part);
    });
    return out.take();
  }

  // This process's ranks' collective calls (a rank numbers a communicator's from 0, so no
  // number of this process's reaches it).
  std::size_t collective_calls() const {
    std::size_t calls = 0;
    for (const RankWaitInput& rank : mine_) calls += rank.collective_count();
    return calls;
  }

  // Instances of a communicator go to the processes in turn, from one its id picks: each
  // process holds every `processes`-th of them (InstanceTable's stride).
  std::size_t instance_process(std::uint64_t communicator, std::uint32_t sequence) const {
    return (process_of(communicator, processes_) + sequence) % processes_;
  }

  // The instances that hash to this process: each one's parts added up, and the whole sent
  // back to every process that sent a part.
  std::vector<std::vector<std::byte>> add_up_instances(const Parts& parts) {
    std::size_t count = 0;
    for (const std::span<const std::byte> part : parts) count += items_in<InstancePart>(part);
    // No communicator has more instances than the job has calls.
    InstanceTable whole(job_collective_calls_ + 1, processes_);
    // (instance, process that sent a part of it), to send the whole back to each.
    std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> senders;
    senders.reserve(count);
    for (std::size_t p = 0; p < parts.size(); ++p)
      for (std::size_t at = 0; at < parts[p].size(); at += sizeof(InstancePart)) {
        const auto part = item_at<InstancePart>(parts[p].data() + at);
        InstancePart& into = whole.at(part.communicator, part.sequence);
        if (into.calls == 0)
          into = part;
        else
          add_part(into, part);
        senders.emplace_back(part.communicator, part.sequence, static_cast<std::uint32_t>(p));
      }
    whole.for_each([&](const InstancePart& part) {
      if (part.calls >= 2 && part.mixed != 0) ++mismatched_;  // the records contradict
    });
    Outgoing<InstancePart> back(processes_);
    for (std::size_t p = 0; p < parts.size(); ++p)
      back.reserve(p, items_in<InstancePart>(parts[p]));
    for (const auto& [communicator, sequence, process] : senders) {
      const InstancePart* part = whole.find(communicator, sequence);
      if (part != nullptr && part->calls >= 2 && part->mixed == 0) back.add(process, *part);
    }
    return back.take();
  }

  // The waits of this process's collective calls, from their instances added up.
  void finish_collectives(const Parts& parts) {
    InstanceTable instances(my_collective_calls_ + 1, 1);
    for_each_item<InstancePart>(parts, [&](const InstancePart& part) {
      instances.at(part.communicator, part.sequence) = part;
    });
    for (std::size_t r = 0; r < mine_.size(); ++r) {
      for (const CollectiveCall& call : calls_[r]) {
        const InstancePart* found = instances.find(call.communicator, call.sequence);
        if (found == nullptr) continue;  // one call only, or contradicting calls
        collective_waits(*found, mine_[r].rank, call, function_id(r, call.function));
      }
      std::vector<CollectiveCall>().swap(calls_[r]);  // a rank's next round may hold few
    }
  }

  // The wait of `rank`'s `call` in its instance, if any: at an N-to-N collective or barrier
  // every call waits for the latest; at a one-to-N the non-roots wait for the root; at an
  // N-to-one the root waits for the latest of the others.
  void collective_waits(const InstancePart& instance, std::int32_t rank, const CollectiveCall& call,
                        std::uint16_t function) {
    const auto waits_for = [&](WaitPattern pattern, std::uint64_t awaited_begin,
                               std::int32_t awaited) {
      const std::uint64_t to = std::min(call.end_ns, awaited_begin);
      if (to > call.begin_ns)
        found({call.begin_ns, call.end_ns, call.begin_ns, to, rank, awaited, call.thread_id,
               function, pattern, 0});
    };
    const bool is_root = call.root >= 0 && call.root == rank;
    switch (instance.kind) {
      case CollectiveKind::kNxN:
      case CollectiveKind::kBarrier:
        if (rank != instance.latest_rank)
          waits_for(instance.kind == CollectiveKind::kBarrier ? WaitPattern::kWaitAtBarrier
                                                              : WaitPattern::kWaitAtNxN,
                    instance.latest_begin, instance.latest_rank);
        return;
      case CollectiveKind::kOneToN:
        if (instance.root_rank >= 0 && !is_root)
          waits_for(WaitPattern::kLateBroadcast, instance.root_begin, instance.root_rank);
        return;
      case CollectiveKind::kNToOne:
        if (is_root && instance.latest_nonroot_rank >= 0)
          waits_for(WaitPattern::kEarlyReduce, instance.latest_nonroot_begin,
                    instance.latest_nonroot_rank);
        return;
      default:
        return;
    }
  }

  // Every process learns which process holds which rank, and the job's MPI function names
  // (few) by one index; they agree on how many rounds to take the ends and calls in (the
  // most any process needs to hold about round_bytes_ a round). Returns the rounds.
  std::uint32_t share_ranks_and_functions() {
    // The names each rank's ends and calls use, marked by index first: a look-up in a set of
    // names per end was most of this step. A spilled rank's are all its MPI functions.
    std::set<std::string> names;
    std::vector<bool> used;
    std::uint64_t bytes = 0;
    for (const RankWaitInput& rank : mine_) {
      bytes += (rank.message_count() + rank.collective_count()) * sizeof(MessageEnd);
      used.assign(rank.names.size(), false);
      const auto mark = [&](std::uint32_t name) {
        if (name >= used.size()) throw std::out_of_range("a message end names no function");
        used[name] = true;
      };
      for (const MessageEnd& end : rank.messages) mark(end.function);
      for (const CollectiveCall& call : rank.collectives) mark(call.function);
      if (rank.spilled())
        for (std::uint32_t name = 0; name < rank.message_names; ++name) mark(name);
      for (std::size_t i = 0; i < used.size(); ++i)
        if (used[i]) names.insert(rank.names[i]);
    }
    ByteWriter out;
    out.put<std::uint64_t>(mine_.size());
    for (const RankWaitInput& rank : mine_) out.put(rank.rank);
    out.put<std::uint64_t>(names.size());
    for (const std::string& name : names) out.put_string(name);
    my_collective_calls_ = collective_calls();
    out.put<std::uint64_t>(my_collective_calls_);
    std::uint64_t spilled = 0;
    for (const RankWaitInput& rank : mine_) spilled += rank.spilled_count();
    out.put<std::uint64_t>(spilled * sizeof(MessageEnd));
    // A round takes about three times what its ends and calls hold (the sends on their way,
    // the receives by stream, the instances' parts).
    const std::uint64_t taken = kRoundWorkingSet * bytes;
    out.put<std::uint64_t>(std::min<std::uint64_t>(
        kEndSlices, std::max<std::uint64_t>(1, (taken + round_bytes_ - 1) / round_bytes_)));
    const std::vector<std::vector<std::byte>> parts = all_gather(exchange_, out.take());
    std::set<std::string> all;
    std::uint64_t rounds = 1;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      ByteReader in(parts[p]);
      const auto ranks = in.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < ranks; ++i) owner_[in.get<std::int32_t>()] = p;
      const auto count = in.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < count; ++i) all.insert(in.get_string());
      job_collective_calls_ += in.get<std::uint64_t>();
      job_spilled_bytes_ += in.get<std::uint64_t>();
      rounds = std::max(rounds, in.get<std::uint64_t>());
    }
    if (all.size() > std::numeric_limits<std::uint16_t>::max())
      throw std::runtime_error("the job's records name too many MPI functions to analyse");
    if (rounds > kEndSlices)
      throw std::runtime_error("a merge process sent a damaged analysis message");
    functions_.assign(all.begin(), all.end());
    local_functions_.assign(mine_.size(), {});
    return static_cast<std::uint32_t>(rounds);
  }

  std::uint16_t function_id(std::size_t rank, std::uint32_t local) {
    std::vector<std::int32_t>& ids = local_functions_[rank];
    if (ids.empty()) ids.assign(mine_[rank].names.size(), -1);
    std::int32_t& id = ids.at(local);
    if (id < 0)
      id = static_cast<std::int32_t>(
          std::lower_bound(functions_.begin(), functions_.end(), mine_[rank].names[local]) -
          functions_.begin());
    return static_cast<std::uint16_t>(id);
  }

  std::size_t owner(std::int32_t rank) const { return owner_.at(rank); }

  void found(const FoundWait& wait) { found_.add(owner(wait.waiting), wait); }

  // The waits found so far, to the waiting rank's process: those settled for their call
  // paths, then to the awaited rank's for their causes; the late-sender candidates kept
  // there (past the budget in its scratch file) until every round has found its calls'
  // messages.
  void blame_and_keep_found() {
    std::vector<FoundWait> settled;
    {
      const std::vector<std::vector<std::byte>> parts = exchange_.all_to_all(found_.take());
      std::size_t count = 0;
      for (const std::vector<std::byte>& part : parts) count += items_in<FoundWait>(part);
      settled.reserve(count);
      for_each_item<FoundWait>(views_of(parts), [&](const FoundWait& wait) {
        if (wait.candidate != 0)
          candidates_kept_.add(wait);
        else
          settled.push_back(wait);
      });
    }
    blame_in_pieces(latest_senders_only(std::move(settled)));
  }

  // Each receiving call's latest sender blamed, a range of waiting ranks at a time (a call's
  // candidates are all of its rank's): every process takes as many ranges as the one with
  // the most.
  void blame_candidates() {
    // A range's candidates are copied about three times on their way (kept, with call paths).
    const std::vector<std::int32_t> ranges =
        rank_ranges(candidates_kept_.counts(), sizeof(FoundWait), round_bytes_ / kRoundWorkingSet);
    const std::uint64_t most = most_of_all(ranges.empty() ? 0 : ranges.size() - 1);
    for (std::uint64_t r = 0; r < most; ++r) {
      std::vector<FoundWait> waits;
      if (r + 1 < ranges.size()) waits = candidates_kept_.take(ranges[r], ranges[r + 1]);
      blame_in_pieces(latest_senders_only(std::move(waits)));
    }
  }

  // The most `count` of any process.
  std::uint64_t most_of_all(std::uint64_t count) const {
    ByteWriter out;
    out.put<std::uint64_t>(count);
    std::uint64_t most = 0;
    for (const std::vector<std::byte>& part : all_gather(exchange_, out.take())) {
      ByteReader in(part);
      most = std::max(most, in.get<std::uint64_t>());
    }
    return most;
  }

  // The waits blamed at their awaited ranks' processes, a piece at a time: the process of a
  // rank everyone waits for (a late rank) would otherwise receive every process's waits of
  // the round at once. Every process takes as many pieces as the one with the most.
  void blame_in_pieces(const std::vector<FoundWait>& waits) {
    share_hot_ranks(waits);
    const std::size_t piece = std::max<std::size_t>(
        kLeastBlamePiece, round_bytes_ / (kRoundWorkingSet * processes_ * sizeof(PathedWait)));
    const std::uint64_t pieces = most_of_all((waits.size() + piece - 1) / piece);
    for (std::uint64_t p = 0; p < pieces; ++p) {
      const std::size_t from = std::min(waits.size(), static_cast<std::size_t>(p) * piece);
      const std::size_t to = std::min(waits.size(), from + piece);
      blame(exchange_.all_to_all(with_call_paths(std::span(waits).subspan(from, to - from))));
    }
  }

  // The sends that came to this process, each met with its receive (of one of this
  // process's ranks) by their flow id; of two receives of one flow (damage), the first.
  void pair_messages(const Parts& parts) {
    const ReceivesByFlow receives(ends_);
    for_each_item<SyncSend>(parts, [&](const SyncSend& send) {
      const ReceivesByFlow::Receive found_receive = receives.find(send.flow);
      if (found_receive.end == nullptr) return;
      const MessageEnd& receive = *found_receive.end;
      const std::int32_t receiver = mine_[found_receive.rank].rank;
      const std::uint16_t function = function_id(found_receive.rank, receive.function);
      const auto kind = static_cast<MpiCallKind>(receive.kind);
      // A call waits for its latest sender only, and only if that one began after it did:
      // a message sent before the call began is no candidate. A call of one message waits
      // for its sender, until it ends at the latest.
      if ((kind == MpiCallKind::kReceive || kind == MpiCallKind::kCompletion ||
           kind == MpiCallKind::kSendrecv) &&
          send.begin_ns > receive.begin_ns) {
        if (!receive.sole_receive())
          found({receive.begin_ns, receive.end_ns, receive.begin_ns, send.begin_ns, receiver,
                 send.rank, receive.thread_id, function, WaitPattern::kLateSender, 1});
        else if (const std::uint64_t to = std::min(receive.end_ns, send.begin_ns);
                 to > receive.begin_ns)
          found({receive.begin_ns, receive.end_ns, receive.begin_ns, to, receiver, send.rank,
                 receive.thread_id, function, WaitPattern::kLateSender, 0});
      }
      // Late receiver: a blocking send that began before its receive was posted and ended
      // only after it was (it waited; an eager send returns at once).
      const std::uint64_t posted = receive.posted_or_receiver;
      if (static_cast<MpiCallKind>(send.kind) == MpiCallKind::kBlockingSend &&
          posted > send.begin_ns && send.end_ns >= posted)
        found({send.begin_ns, send.end_ns, send.begin_ns, posted, send.rank, receiver,
               send.thread_id, send.function, WaitPattern::kLateReceiver, 0});
    });
    // Let go, not cleared: each rank's largest round kept would add up to most of the job's
    // ends where a rank's messages fall in few slices (few streams).
    for (std::vector<MessageEnd>& ends : ends_) std::vector<MessageEnd>().swap(ends);
  }

  // A receiving call (an MPI_Waitall of several receives) waits for its latest sender only,
  // from its begin to that send's begin, no later than its end.
  // In place: the waits are as many as the round's calls.
  static std::vector<FoundWait> latest_senders_only(std::vector<FoundWait> waits) {
    absl::flat_hash_map<std::tuple<std::int32_t, std::uint32_t, std::uint64_t>, std::size_t>
        calls;  // (rank, thread, begin) -> kept
    std::size_t kept = 0;
    for (std::size_t i = 0; i < waits.size(); ++i) {
      const FoundWait wait = waits[i];
      if (wait.candidate != 0) {
        const auto [entry, added] =
            calls.try_emplace({wait.waiting, wait.thread_id, wait.call_begin}, kept);
        if (!added) {
          FoundWait& latest = waits[entry->second];
          if (std::tie(wait.to, latest.awaited) > std::tie(latest.to, wait.awaited)) latest = wait;
          continue;
        }
      }
      waits[kept++] = wait;
    }
    waits.resize(kept);
    std::erase_if(waits, [](FoundWait& wait) {
      if (wait.candidate != 0) wait.to = std::min(wait.call_end, wait.to);
      return wait.to <= wait.from;
    });
    return waits;
  }

  const RankDoings& doings_of(std::int32_t rank) { return doings_at(local_.at(rank)); }
  const RankDoings& doings_at(std::size_t index) {
    if (!doings_[index]) doings_[index] = std::make_unique<RankDoings>(mine_[index]);
    return *doings_[index];
  }

  // Each wait with the waiting call's regions, to the awaited rank's process: per process the
  // call paths its waits name, each once, then the waits with their path's number.
  std::vector<std::vector<std::byte>> with_call_paths(std::span<const FoundWait> waits) {
    doings_.resize(mine_.size());
    struct Outgoing {
      absl::flat_hash_map<std::string, std::uint32_t> numbers;
      std::vector<std::string> paths;
      std::vector<PathedWait> waits;
    };
    std::vector<Outgoing> out(processes_);
    for (FoundWait wait : waits) {
      wait.from = std::max(wait.from, window_.begin_ns);
      wait.to = std::min(wait.to, window_.end_ns);
      if (wait.to <= wait.from) continue;  // outside the window
      // Blamed here if this process holds the awaited rank's doings (its own or shared).
      Outgoing& to = out[shared_.contains(wait.awaited) ? exchange_.index() : owner(wait.awaited)];
      std::string path = doings_of(wait.waiting).call_path(wait.thread_id, wait.call_begin);
      const auto [entry, added] =
          to.numbers.try_emplace(path, static_cast<std::uint32_t>(to.paths.size()));
      if (added) to.paths.push_back(std::move(path));
      to.waits.push_back({wait, entry->second});
    }
    std::vector<std::vector<std::byte>> parts;
    parts.reserve(out.size());
    for (Outgoing& to : out) {
      ByteWriter writer;
      std::size_t bytes = 2 * sizeof(std::uint64_t) + to.waits.size() * sizeof(PathedWait);
      for (const std::string& path : to.paths) bytes += sizeof(std::uint64_t) + path.size();
      writer.reserve(bytes);
      writer.put<std::uint64_t>(to.paths.size());
      for (const std::string& path : to.paths) writer.put_string(path);
      writer.put_bytes(std::as_bytes(std::span(to.waits)));
      to = Outgoing{};
      parts.push_back(writer.take());
    }
    return parts;
  }

  // Each wait blamed on what its awaited rank (one of this process's) was doing then. The
  // totals are added up by numbers (call path, cause) first, and by names once per part.
  void blame(const std::vector<std::vector<std::byte>>& parts) {
    for (const std::vector<std::byte>& part : parts) {
      if (part.empty()) continue;  // from a thread that failed
      ByteReader in(part);
      const auto path_count = in.get<std::uint64_t>();
      if (path_count > part.size())
        throw std::runtime_error("a merge process sent a damaged analysis message");
      std::vector<std::string> paths;
      paths.reserve(path_count);
      for (std::uint64_t i = 0; i < path_count; ++i) paths.push_back(in.get_string());
      const std::span<const std::byte> waits = in.get_bytes();
      if (waits.size() % sizeof(PathedWait) != 0 || !in.done())
        throw std::runtime_error("a merge process sent a damaged analysis message");
      absl::flat_hash_map<NumberedWaitKey, WaitTotals> totals;
      // Waits come in runs of one awaited rank (often one late rank) and of one key: each
      // looked up once per run.
      std::optional<std::int32_t> awaited;
      Blamed blamed{};
      std::optional<NumberedWaitKey> last_key;
      WaitTotals* last_totals = nullptr;  // of last_key; valid until the next insertion
      for (std::size_t i = 0; i < waits.size() / sizeof(PathedWait); ++i) {
        const auto [wait, call_path] = item_at<PathedWait>(waits.data() + i * sizeof(PathedWait));
        // A wait must name a call path and function of the tables, a pattern, one of this
        // process's ranks as awaited, and end after it began.
        if (call_path >= paths.size() || wait.function >= functions_.size() ||
            static_cast<int>(wait.pattern) >= kWaitPatterns || wait.to < wait.from)
          throw std::runtime_error("a merge process sent a damaged analysis message");
        if (awaited != wait.awaited) {
          blamed = blamed_at(wait.awaited);
          awaited = wait.awaited;
        }
        const std::uint32_t cause = cause_of(blamed, wait.from, wait.to);
        edges_.add({wait.waiting, wait.awaited, wait.from, wait.to, wait.pattern, cause});
        const NumberedWaitKey key{wait.pattern,  wait.waiting, call_path,
                                  wait.function, wait.awaited, cause};
        if (last_key != key) {
          last_totals = &totals[key];
          last_key = key;
        }
        last_totals->add(static_cast<double>(wait.to - wait.from));
      }
      for (const auto& [key, sum] : totals) {
        WaitTotals& into = report_.waits[WaitStateReport::Key{
            key.pattern, key.waiting, paths[key.call_path], functions_[key.function], key.awaited,
            report_.causes[key.cause]}];
        into.count += sum.count;
        into.total_ns += sum.total_ns;
      }
    }
  }

  // An awaited rank's doings, and its cause numbers by RankDoings::named_alike (-1: not yet
  // named), for blaming waits on it here.
  struct Blamed {
    const RankDoings* doings = nullptr;
    std::vector<std::int64_t>* numbers = nullptr;
  };
  // Of one of this process's ranks or of one shared with it; a wait on any other rank is
  // damage (thrown).
  Blamed blamed_at(std::int32_t rank) {
    if (const auto local = local_.find(rank); local != local_.end())
      return {&doings_at(local->second), &cause_numbers_by_name_[local->second]};
    if (const auto shared = shared_.find(rank); shared != shared_.end())
      return {shared->second.doings.get(), &shared->second.cause_numbers};
    throw std::runtime_error("a merge process sent a damaged analysis message");
  }

  // The number in report_.causes of what the awaited rank was doing in [from, to): named once
  // per name of the rank's doings, not for every wait.
  std::uint32_t cause_of(const Blamed& blamed, std::uint64_t from, std::uint64_t to) {
    const Doing* doing = blamed.doings->cause_doing(from, to);
    std::vector<std::int64_t>& numbers = *blamed.numbers;
    const std::size_t slot = RankDoings::named_alike(doing);
    if (slot >= numbers.size()) numbers.resize(slot + 1, -1);
    if (numbers[slot] < 0) numbers[slot] = cause_number(blamed.doings->cause_name(doing));
    return static_cast<std::uint32_t>(numbers[slot]);
  }

  // Ranks that many of this step's waits wait for (a late rank everyone waits for) have
  // their doings copied to every process, which then blames its waits on them itself: a wait
  // is otherwise blamed by the awaited rank's process, which would blame every wait of the
  // job while the others wait for it. Every process learns how many waits each rank has
  // (so all choose the same ranks); each keeps the copies up to kSharedDoings doings.
  void share_hot_ranks(const std::vector<FoundWait>& waits) {
    if (processes_ == 1) return;
    absl::flat_hash_map<std::int32_t, std::uint64_t> mine;
    for (const FoundWait& wait : waits) ++mine[wait.awaited];
    ByteWriter out;
    out.put<std::uint64_t>(mine.size());
    for (const auto& [rank, count] : mine) {
      out.put(rank);
      out.put(count);
    }
    std::map<std::int32_t, std::uint64_t> counts;
    std::uint64_t total = 0;
    for (const std::vector<std::byte>& part : all_gather(exchange_, out.take())) {
      if (part.empty()) continue;  // from a thread that failed
      ByteReader in(part);
      // A count past the part is refused by the reader at its end: nothing is sized by it.
      const auto ranks = in.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < ranks; ++i) {
        const auto rank = in.get<std::int32_t>();
        const auto count = in.get<std::uint64_t>();
        counts[rank] += count;
        total += count;
      }
    }
    std::vector<std::int32_t> hot;
    for (const auto& [rank, count] : counts)
      if (count >= kLeastHotWaits && count * processes_ > total && owner_.contains(rank) &&
          shared_ranks_.insert(rank).second)
        hot.push_back(rank);
    if (hot.empty()) return;
    ByteWriter copies;
    for (const std::int32_t rank : hot) {
      const auto local = local_.find(rank);
      if (local == local_.end()) continue;
      mine_[local->second].put(copies, RankWaitInput::Part::kDoings);
    }
    for (const std::vector<std::byte>& part : all_gather(exchange_, copies.take())) {
      ByteReader in(part);
      while (!in.done()) {
        RankWaitInput input = RankWaitInput::get(in);
        if (local_.contains(input.rank) || shared_.contains(input.rank) ||
            shared_doings_ + input.doings.size() > kSharedDoings)
          continue;
        shared_doings_ += input.doings.size();
        SharedRank& shared = shared_[input.rank];
        shared.input = std::move(input);
        shared.doings = std::make_unique<RankDoings>(shared.input);
      }
    }
  }

  // A cause's number in report_.causes (added the first time).
  std::uint32_t cause_number(const std::string& cause) {
    const auto [entry, added] =
        cause_numbers_.try_emplace(cause, static_cast<std::uint32_t>(report_.causes.size()));
    if (added) report_.causes.push_back(cause);
    return entry->second;
  }

  // Where this process's analysis writes what outgrows its memory: the spill file its ranks'
  // ends and calls went to (none: everything is held).
  static std::shared_ptr<ScratchFile> scratch_of(const std::vector<RankWaitInput>& mine) {
    for (const RankWaitInput& rank : mine)
      if (rank.spill) return rank.spill->file();
    return nullptr;
  }

  // Every process's waits on the first, in one order whatever the number of processes: the
  // edges by waiting rank and time, then by the cause's name, and causes numbered by first
  // use. The totals, cause names and edge counts per waiting rank go first; the first process
  // cuts the waiting ranks into ranges of about round_bytes_ of edges, and the edges then come
  // a range at a time, so that the first process holds one range (and its JobEdges' memory).
  WaitStateReport gathered() {
    ByteWriter out;
    report_.mismatched_collectives = mismatched_;
    report_.put(out);
    const std::map<std::int32_t, std::uint64_t> counts = edges_.counts();
    out.put<std::uint64_t>(counts.size());
    for (const auto& [rank, count] : counts) {
      out.put(rank);
      out.put(count);
    }
    const bool first = exchange_.index() == 0;
    WaitStateReport job;
    std::vector<std::string> names;    // every cause, sorted
    std::vector<std::int32_t> ranges;  // range r: waiting ranks [ranges[r], ranges[r + 1])
    {
      std::vector<std::vector<std::byte>> parts = gather_to_first(exchange_, out.take());
      ByteWriter shared;
      if (first) {
        job = job_totals(parts, names, ranges);
        shared.put<std::uint64_t>(names.size());
        for (const std::string& name : names) shared.put_string(name);
        shared.put_vector(ranges);
      }
      const std::vector<std::byte> broadcast = broadcast_from_first(exchange_, shared.take());
      ByteReader in(broadcast);
      const auto count = in.get<std::uint64_t>();
      names.clear();
      for (std::uint64_t i = 0; i < count; ++i) names.push_back(in.get_string());
      ranges = in.get_vector<std::int32_t>();
    }
    // This process's causes as their rank among the names: the order's last key.
    std::vector<std::uint32_t> by_name(report_.causes.size());
    for (std::size_t c = 0; c < by_name.size(); ++c)
      by_name[c] = static_cast<std::uint32_t>(
          std::lower_bound(names.begin(), names.end(), report_.causes[c]) - names.begin());
    std::vector<std::int64_t> used(names.size(), -1);  // by name: its number in job.causes
    if (first) job.edges = JobEdges(scratch_, round_bytes_);
    // On the first process a range's ordered parts are merged and kept on a thread of their
    // own, while the next range is taken, dealt, ordered and gathered (the others wait for
    // the first process otherwise): one range at a time, in order.
    std::future<void> keeping;
    auto keep = [&](std::vector<std::vector<std::byte>> parts, std::size_t r) {
      std::vector<WaitEdge> range = merged_edges(parts, names.size(), ranges[r], ranges[r + 1]);
      std::vector<std::vector<std::byte>>().swap(parts);
      for (WaitEdge& edge : range) {
        std::int64_t& number = used[edge.cause];
        if (number < 0) {
          number = static_cast<std::int64_t>(job.causes.size());
          job.causes.push_back(names[edge.cause]);
        }
        edge.cause = static_cast<std::uint32_t>(number);
      }
      job.edges.append(range);
    };
    for (std::size_t r = 0; r + 1 < ranges.size(); ++r) {
      // Each process orders the edges of some of the range's waiting ranks (causes by their
      // names' rank, which every process knows); the first merges the ordered parts.
      std::vector<WaitEdge> taken = edges_.take(ranges[r], ranges[r + 1]);
      for (WaitEdge& edge : taken) edge.cause = by_name.at(edge.cause);
      std::vector<WaitEdge> mine = by_waiting_rank(std::move(taken));
      std::sort(mine.begin(), mine.end(), edge_order);
      const std::span<const std::byte> bytes = std::as_bytes(std::span(mine));
      std::vector<std::vector<std::byte>> parts =
          gather_to_first(exchange_, {bytes.begin(), bytes.end()});
      std::vector<WaitEdge>().swap(mine);
      if (!first) continue;
      if (keeping.valid()) keeping.get();  // rethrows its failure
      keeping = std::async(std::launch::async, keep, std::move(parts), r);
    }
    if (keeping.valid()) keeping.get();
    return job;
  }

  // Each of `edges` to a process its waiting rank picks, and what the others sent this one.
  // The edges are kept where they were blamed, mostly the awaited rank's process: where
  // every rank waited for one late rank, one process might hold most, and order them alone.
  std::vector<WaitEdge> by_waiting_rank(std::vector<WaitEdge> edges) const {
    Outgoing<WaitEdge> dealt(processes_);
    const auto process_of_rank = [&](const WaitEdge& edge) {
      return static_cast<std::uint32_t>(edge.waiting) % processes_;
    };
    std::vector<std::size_t> counts(processes_);
    for (const WaitEdge& edge : edges) ++counts[process_of_rank(edge)];
    for (std::size_t p = 0; p < processes_; ++p) dealt.reserve(p, counts[p]);
    for (const WaitEdge& edge : edges) dealt.add(process_of_rank(edge), edge);
    std::vector<WaitEdge>().swap(edges);
    const std::vector<std::vector<std::byte>> parts = exchange_.all_to_all(dealt.take());
    std::size_t count = 0;
    for (const std::vector<std::byte>& part : parts) count += items_in<WaitEdge>(part);
    std::vector<WaitEdge> mine;
    mine.reserve(count);
    for_each_item<WaitEdge>(views_of(parts), [&](const WaitEdge& edge) { mine.push_back(edge); });
    return mine;
  }

  // The edges' one order: by waiting rank and time, then the cause's rank among the names.
  static bool edge_order(const WaitEdge& a, const WaitEdge& b) {
    return std::tie(a.waiting, a.from, a.to, a.awaited, a.pattern, a.cause) <
           std::tie(b.waiting, b.from, b.to, b.awaited, b.pattern, b.cause);
  }

  // The processes' ordered parts of the edges of waiting ranks [first, last), merged into
  // their one order (each part freed once read); damage (a part out of order, a cause past
  // the `causes` names, an unknown pattern, a rank outside the range) is thrown.
  static std::vector<WaitEdge> merged_edges(std::vector<std::vector<std::byte>>& parts,
                                            std::size_t causes, std::int32_t first,
                                            std::int32_t last) {
    struct Cursor {
      std::vector<std::byte>* part;
      std::size_t next;
      std::size_t count;
      WaitEdge edge;
    };
    std::vector<Cursor> cursors;
    std::size_t total = 0;
    for (std::vector<std::byte>& part : parts) {
      const std::size_t count = items_in<WaitEdge>(part);
      total += count;
      if (count > 0) cursors.push_back({&part, 1, count, item_at<WaitEdge>(part.data())});
    }
    // A heap of the parts by their next edge, the earliest on top.
    const auto later = [](const Cursor& a, const Cursor& b) { return edge_order(b.edge, a.edge); };
    std::make_heap(cursors.begin(), cursors.end(), later);
    std::vector<WaitEdge> merged;
    merged.reserve(total);
    while (!cursors.empty()) {
      std::pop_heap(cursors.begin(), cursors.end(), later);
      Cursor& cursor = cursors.back();
      // The part's edges go in a run, until another part's next edge comes first (a part
      // holds whole waiting ranks, so a run is mostly a rank's edges).
      const WaitEdge* other = cursors.size() > 1 ? &cursors.front().edge : nullptr;
      bool ended = false;
      do {
        const WaitEdge& edge = cursor.edge;
        if (edge.cause >= causes || static_cast<int>(edge.pattern) >= kWaitPatterns ||
            edge.waiting < first || edge.waiting >= last)
          throw std::runtime_error("a merge process sent damaged wait edges");
        merged.push_back(edge);
        ended = cursor.next == cursor.count;
        if (ended) break;
        cursor.edge = item_at<WaitEdge>(cursor.part->data() + cursor.next++ * sizeof(WaitEdge));
        if (edge_order(cursor.edge, merged.back()))
          throw std::runtime_error("a merge process sent damaged wait edges");
      } while (other == nullptr || !edge_order(*other, cursor.edge));
      if (ended) {
        std::vector<std::byte>().swap(*cursor.part);
        cursors.pop_back();
        continue;
      }
      std::push_heap(cursors.begin(), cursors.end(), later);
    }
    return merged;
  }

  // On the first process: every process's totals added up, every cause's name (sorted) and
  // the ranges of waiting ranks the edges come in.
  WaitStateReport job_totals(std::vector<std::vector<std::byte>>& parts,
                             std::vector<std::string>& names,
                             std::vector<std::int32_t>& ranges) const {
    WaitStateReport job;
    job.rounds = rounds_;
    job.shared_ranks = static_cast<std::uint32_t>(shared_ranks_.size());
    job.spilled_bytes = job_spilled_bytes_;
    std::set<std::string> causes;
    std::map<std::int32_t, std::uint64_t> counts;
    for (std::vector<std::byte>& part : parts) {
      ByteReader in(part);
      WaitStateReport one = WaitStateReport::get(in);
      const auto ranks = in.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < ranks; ++i) {
        const auto rank = in.get<std::int32_t>();
        counts[rank] += in.get<std::uint64_t>();
      }
      std::vector<std::byte>().swap(part);
      job.mismatched_collectives += one.mismatched_collectives;
      for (auto& [key, totals] : one.waits) {
        WaitTotals& into = job.waits[key];
        into.count += totals.count;
        into.total_ns += totals.total_ns;
      }
      causes.insert(one.causes.begin(), one.causes.end());
    }
    names.assign(causes.begin(), causes.end());
    // The first process holds a range about three times on its way: sent, received, ordered.
    ranges = rank_ranges(counts, sizeof(WaitEdge), round_bytes_ / kRoundWorkingSet);
    return job;
  }

  std::vector<RankWaitInput>& mine_;
  TimedExchange exchange_;
  const TimeWindow& window_;
  const std::size_t processes_;
  const std::size_t round_bytes_;              // of ends and calls a round takes
  std::vector<std::vector<MessageEnd>> ends_;  // this round's, by index into mine_
  std::vector<std::vector<CollectiveCall>> calls_;
  absl::flat_hash_map<std::int32_t, std::size_t> local_;    // rank -> index into mine_
  absl::flat_hash_map<std::int32_t, std::size_t> owner_;    // rank -> process
  std::vector<std::string> functions_;                      // the job's, sorted
  std::vector<std::vector<std::int32_t>> local_functions_;  // by rank, name: -1 unknown
  std::vector<std::unique_ptr<RankDoings>> doings_;         // made at a rank's first question
  // To the waiting rank's process: waits found in this round, and late-sender candidates.
  Outgoing<FoundWait> found_{processes_};
  std::shared_ptr<ScratchFile> scratch_;  // null: the analysis holds everything
  ProcessEdges edges_;                    // of the waits this process blamed
  absl::flat_hash_map<std::string, std::uint32_t> cause_numbers_;  // into report_.causes
  // By index into mine_, then RankDoings::named_alike: cause numbers, -1 not yet named.
  std::vector<std::vector<std::int64_t>> cause_numbers_by_name_;
  // Other processes' ranks whose doings this process holds (share_hot_ranks); map nodes stay
  // put, as each RankDoings refers to its input.
  struct SharedRank {
    RankWaitInput input;
    std::unique_ptr<RankDoings> doings;
    std::vector<std::int64_t> cause_numbers;  // as cause_numbers_by_name_'s
  };
  std::map<std::int32_t, SharedRank> shared_;
  std::size_t shared_doings_ = 0;
  std::set<std::int32_t> shared_ranks_;         // chosen so far, the same on every process
  WaitingRankRuns<FoundWait> candidates_kept_;  // of this process's waiting ranks
  WaitStateReport report_;                      // the waits this process blamed (but their edges)
  std::uint64_t mismatched_ = 0;
  std::uint64_t my_collective_calls_ = 0;   // of this process's ranks, in every round
  std::uint64_t job_collective_calls_ = 0;  // of every process's ranks
  std::uint32_t rounds_ = 1;
  std::uint64_t job_spilled_bytes_ = 0;  // of every process's ranks' ends and calls
};

}  // namespace

WaitStateReport analyse_wait_states(std::vector<RankWaitInput>& mine,
                                    const AnalysisExchange& exchange, const TimeWindow& window,
                                    std::size_t round_bytes) {
  return Analysis(mine, exchange, window, round_bytes).run();
}

WaitStateReport analyse_wait_states(const std::vector<RankWaitInput>& ranks) {
  std::vector<RankWaitInput> copy = ranks;
  return analyse_wait_states(copy, SingleProcessExchange());
}

void WaitStateReport::put(ByteWriter& out) const {
  out.put<std::uint64_t>(waits.size());
  for (const auto& [key, totals] : waits) {
    out.put(std::get<0>(key));
    out.put(std::get<1>(key));
    out.put_string(std::get<2>(key));
    out.put_string(std::get<3>(key));
    out.put(std::get<4>(key));
    out.put_string(std::get<5>(key));
    out.put(totals);
  }
  out.put<std::uint64_t>(causes.size());
  for (const std::string& cause : causes) out.put_string(cause);
  out.put(mismatched_collectives);
}

WaitStateReport WaitStateReport::get(ByteReader& in) {
  WaitStateReport report;
  const auto waits = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < waits; ++i) {
    const auto pattern = in.get<WaitPattern>();
    if (static_cast<int>(pattern) >= kWaitPatterns)
      throw std::runtime_error("a merge process sent a damaged wait-state report");
    const auto rank = in.get<std::int32_t>();
    std::string call_path = in.get_string();
    std::string function = in.get_string();
    const auto awaited = in.get<std::int32_t>();
    std::string cause = in.get_string();
    report.waits[{pattern, rank, std::move(call_path), std::move(function), awaited,
                  std::move(cause)}] = in.get<WaitTotals>();
  }
  const auto causes = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < causes; ++i) report.causes.push_back(in.get_string());
  report.mismatched_collectives = in.get<std::uint64_t>();
  return report;
}

}  // namespace rocprof::merge
