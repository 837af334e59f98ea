#include "merge/analysis/wait_states.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "merge/analysis/rank_doings.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {
namespace {

// A message end or collective call as it travels to the process that pairs it: its rank and
// its function as an index into the job's function names (the same on every process).
struct SyncEnd {
  std::uint64_t flow;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::uint64_t posted_ns;
  std::int32_t rank;
  std::uint32_t thread_id;
  std::uint16_t function;
  std::uint8_t kind;
  std::uint8_t send;
  std::uint32_t padding = 0;
};

struct SyncCollective {
  std::uint64_t communicator;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::uint32_t sequence;
  std::int32_t root;
  std::int32_t rank;
  std::uint32_t thread_id;
  std::uint16_t function;
  CollectiveKind kind;
  std::uint8_t padding = 0;
  std::uint32_t padding2 = 0;
};

// A wait found where its calls met, on its way to the waiting rank's process (its call path)
// and then to the awaited rank's (its cause). A late-sender candidate is one message of a
// receiving call; the call waits only for the latest of its messages' senders.
struct FoundWait {
  std::uint64_t call_begin;
  std::uint64_t call_end;
  std::uint64_t from;
  std::uint64_t to;  // a candidate: its send's begin
  std::int32_t waiting;
  std::int32_t awaited;
  std::uint32_t thread_id;
  std::uint16_t function;
  WaitPattern pattern;
  std::uint8_t candidate;
};

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
  // Room for `count` more items to `process`: parts grow once, not by doubling.
  void reserve(std::size_t process, std::size_t count) {
    parts_[process].reserve(parts_[process].size() + count * sizeof(T));
  }
  void add(std::size_t process, const T& item) {
    const auto* bytes = reinterpret_cast<const std::byte*>(&item);
    parts_[process].insert(parts_[process].end(), bytes, bytes + sizeof(T));
  }
  std::vector<std::vector<std::byte>> take() { return std::move(parts_); }

 private:
  std::vector<std::vector<std::byte>> parts_;
};

// The items of a part, read in place.
template <typename T>
std::size_t items_in(const std::vector<std::byte>& part) {
  if (part.size() % sizeof(T) != 0)
    throw std::runtime_error("a merge process sent a damaged analysis message");
  return part.size() / sizeof(T);
}
template <typename T>
T item_at(const std::byte* at) {
  T item;
  std::memcpy(&item, at, sizeof(T));
  return item;
}
template <typename T, typename Visit>
void for_each_item(const std::vector<std::vector<std::byte>>& parts, Visit visit) {
  for (const std::vector<std::byte>& part : parts) {
    const std::size_t count = items_in<T>(part);
    for (std::size_t i = 0; i < count; ++i) visit(item_at<T>(part.data() + i * sizeof(T)));
  }
}

class Analysis {
 public:
  Analysis(std::vector<RankWaitInput>& mine, const AnalysisExchange& exchange,
           const TimeWindow& window)
      : mine_(mine), exchange_(exchange), window_(window), processes_(exchange.processes()) {
    for (std::size_t i = 0; i < mine.size(); ++i) local_[mine[i].rank] = i;
  }

  WaitStateReport run() {
    share_ranks_and_functions();
    // Each message's and collective instance's calls meet on one process, which finds the
    // waits and sends each to the waiting rank's process. Each rank's message ends and
    // collective calls are let go once packed: the doings stay, for causes and call paths.
    Outgoing<SyncEnd> ends(processes_);
    Outgoing<SyncCollective> collectives(processes_);
    // A stream's messages all meet on one process (pair_messages).
    const auto end_process = [&](const MessageEnd& end) {
      return process_of(end.flow >> 32, processes_);
    };
    const auto call_process = [&](const CollectiveCall& call) {
      return process_of(call.communicator * 0x9e3779b97f4a7c15ULL ^ call.sequence, processes_);
    };
    {
      std::vector<std::size_t> end_counts(processes_);
      std::vector<std::size_t> call_counts(processes_);
      for (const RankWaitInput& rank : mine_) {
        for (const MessageEnd& end : rank.messages) ++end_counts[end_process(end)];
        for (const CollectiveCall& call : rank.collectives) ++call_counts[call_process(call)];
      }
      for (std::size_t p = 0; p < processes_; ++p) {
        ends.reserve(p, end_counts[p]);
        collectives.reserve(p, call_counts[p]);
      }
    }
    for (std::size_t r = 0; r < mine_.size(); ++r) {
      RankWaitInput& rank = mine_[r];
      for (const MessageEnd& end : rank.messages)
        ends.add(end_process(end),
                 {end.flow, end.begin_ns, end.end_ns, end.posted_ns, rank.rank, end.thread_id,
                  function_id(r, end.function), end.kind, end.send});
      for (const CollectiveCall& call : rank.collectives)
        collectives.add(call_process(call),
                        {call.communicator, call.begin_ns, call.end_ns, call.sequence, call.root,
                         rank.rank, call.thread_id, function_id(r, call.function), call.kind});
      std::vector<MessageEnd>().swap(rank.messages);
      std::vector<CollectiveCall>().swap(rank.collectives);
    }
    pair_messages(exchange_.all_to_all(ends.take()));
    pair_collectives(exchange_.all_to_all(collectives.take()));
    std::vector<FoundWait> waits;
    for_each_item<FoundWait>(exchange_.all_to_all(found_.take()),
                             [&](const FoundWait& wait) { waits.push_back(wait); });
    blame(exchange_.all_to_all(with_call_paths(latest_senders_only(waits))));
    return gathered();
  }

 private:
  // Every process learns which process holds which rank, and the job's MPI function names
  // (few) by one index.
  void share_ranks_and_functions() {
    std::set<std::string> names;
    for (const RankWaitInput& rank : mine_) {
      for (const MessageEnd& end : rank.messages) names.insert(rank.names.at(end.function));
      for (const CollectiveCall& call : rank.collectives)
        names.insert(rank.names.at(call.function));
    }
    ByteWriter out;
    out.put<std::uint64_t>(mine_.size());
    for (const RankWaitInput& rank : mine_) out.put(rank.rank);
    out.put<std::uint64_t>(names.size());
    for (const std::string& name : names) out.put_string(name);
    const std::vector<std::vector<std::byte>> parts = all_gather(exchange_, out.take());
    std::set<std::string> all;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      ByteReader in(parts[p]);
      const auto ranks = in.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < ranks; ++i) owner_[in.get<std::int32_t>()] = p;
      const auto count = in.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < count; ++i) all.insert(in.get_string());
    }
    if (all.size() > std::numeric_limits<std::uint16_t>::max())
      throw std::runtime_error("the job's records name too many MPI functions to analyse");
    functions_.assign(all.begin(), all.end());
    local_functions_.assign(mine_.size(), {});
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

  // The ends of the messages of the streams that hash to this process, read in place. A
  // flow id is its stream's index and the message's ordinal there (from 0): each stream's
  // sends are found by ordinal.
  void pair_messages(const std::vector<std::vector<std::byte>>& parts) {
    std::size_t count = 0;
    for (const std::vector<std::byte>& part : parts) count += items_in<SyncEnd>(part);
    const std::size_t largest_ordinal = 2 * count + 1024;  // past it: damage, looked up apart
    absl::flat_hash_map<std::uint64_t, std::vector<const std::byte*>> streams;
    absl::flat_hash_map<std::uint64_t, const std::byte*> scattered;
    for (const std::vector<std::byte>& part : parts)
      for (std::size_t at = 0; at < part.size(); at += sizeof(SyncEnd)) {
        const auto end = item_at<SyncEnd>(part.data() + at);
        if (end.send == 0) continue;
        const std::uint64_t ordinal = end.flow & 0xffffffffU;
        if (ordinal >= largest_ordinal) {
          scattered.emplace(end.flow, part.data() + at);
          continue;
        }
        std::vector<const std::byte*>& sends = streams[end.flow >> 32];
        if (ordinal >= sends.size()) sends.resize(ordinal + 1, nullptr);
        if (sends[ordinal] == nullptr) sends[ordinal] = part.data() + at;
      }
    const auto send_of = [&](std::uint64_t flow) -> const std::byte* {
      const std::uint64_t ordinal = flow & 0xffffffffU;
      if (ordinal >= largest_ordinal) {
        const auto found = scattered.find(flow);
        return found == scattered.end() ? nullptr : found->second;
      }
      const auto stream = streams.find(flow >> 32);
      if (stream == streams.end() || ordinal >= stream->second.size()) return nullptr;
      return stream->second[ordinal];
    };
    for_each_item<SyncEnd>(parts, [&](const SyncEnd& receive) {
      if (receive.send != 0) return;
      const std::byte* found_send = send_of(receive.flow);
      if (found_send == nullptr) return;
      const auto send = item_at<SyncEnd>(found_send);
      const auto kind = static_cast<MpiCallKind>(receive.kind);
      // A call waits for its latest sender only, and only if that one began after it did:
      // a message sent before the call began is no candidate.
      if ((kind == MpiCallKind::kReceive || kind == MpiCallKind::kCompletion ||
           kind == MpiCallKind::kSendrecv) &&
          send.begin_ns > receive.begin_ns)
        found({receive.begin_ns, receive.end_ns, receive.begin_ns, send.begin_ns, receive.rank,
               send.rank, receive.thread_id, receive.function, WaitPattern::kLateSender, 1});
      // Late receiver: a blocking send that began before its receive was posted and ended
      // only after it was (it waited; an eager send returns at once).
      if (static_cast<MpiCallKind>(send.kind) == MpiCallKind::kBlockingSend &&
          receive.posted_ns > send.begin_ns && send.end_ns >= receive.posted_ns)
        found({send.begin_ns, send.end_ns, send.begin_ns, receive.posted_ns, send.rank,
               receive.rank, send.thread_id, send.function, WaitPattern::kLateReceiver, 0});
    });
  }

  void pair_collectives(const std::vector<std::vector<std::byte>>& parts) {
    std::vector<SyncCollective> calls;
    for_each_item<SyncCollective>(parts,
                                  [&](const SyncCollective& call) { calls.push_back(call); });
    std::sort(calls.begin(), calls.end(), [](const SyncCollective& a, const SyncCollective& b) {
      return std::tie(a.communicator, a.sequence, a.rank) <
             std::tie(b.communicator, b.sequence, b.rank);
    });
    for (std::size_t first = 0; first < calls.size();) {
      std::size_t last = first + 1;
      while (last < calls.size() && calls[last].communicator == calls[first].communicator &&
             calls[last].sequence == calls[first].sequence)
        ++last;
      instance(std::span<const SyncCollective>(calls).subspan(first, last - first));
      first = last;
    }
  }

  void instance(std::span<const SyncCollective> members) {
    if (members.size() < 2) return;
    for (const SyncCollective& member : members)
      if (member.function != members[0].function) {
        ++mismatched_;
        return;
      }
    const CollectiveKind kind = members[0].kind;
    auto latest_of = [&](auto skip) {
      const SyncCollective* latest = nullptr;
      for (const SyncCollective& member : members)
        if (!skip(member) && (latest == nullptr || member.begin_ns > latest->begin_ns))
          latest = &member;
      return latest;
    };
    auto waits_for = [&](WaitPattern pattern, const SyncCollective& waiting,
                         const SyncCollective& awaited) {
      const std::uint64_t to = std::min(waiting.end_ns, awaited.begin_ns);
      if (to > waiting.begin_ns)
        found({waiting.begin_ns, waiting.end_ns, waiting.begin_ns, to, waiting.rank, awaited.rank,
               waiting.thread_id, waiting.function, pattern, 0});
    };
    if (kind == CollectiveKind::kNxN || kind == CollectiveKind::kBarrier) {
      const SyncCollective& latest = *latest_of([](const SyncCollective&) { return false; });
      const WaitPattern pattern =
          kind == CollectiveKind::kBarrier ? WaitPattern::kWaitAtBarrier : WaitPattern::kWaitAtNxN;
      for (const SyncCollective& member : members)
        if (&member != &latest) waits_for(pattern, member, latest);
      return;
    }
    if (kind != CollectiveKind::kOneToN && kind != CollectiveKind::kNToOne) return;
    const auto is_root = [](const SyncCollective& member) { return member.rank == member.root; };
    const SyncCollective* root = nullptr;
    for (const SyncCollective& member : members)
      if (is_root(member)) root = &member;
    if (root == nullptr) return;  // the root was not traced
    if (kind == CollectiveKind::kOneToN) {
      for (const SyncCollective& member : members)
        if (&member != root) waits_for(WaitPattern::kLateBroadcast, member, *root);
      return;
    }
    if (const SyncCollective* latest = latest_of(is_root))
      waits_for(WaitPattern::kEarlyReduce, *root, *latest);
  }

  // A receiving call (an MPI_Waitall of several receives) waits for its latest sender only,
  // from its begin to that send's begin, no later than its end.
  static std::vector<FoundWait> latest_senders_only(const std::vector<FoundWait>& waits) {
    std::vector<FoundWait> kept;
    absl::flat_hash_map<std::tuple<std::int32_t, std::uint32_t, std::uint64_t>, std::size_t>
        calls;  // (rank, thread, begin) -> kept
    for (const FoundWait& wait : waits) {
      if (wait.candidate == 0) {
        kept.push_back(wait);
        continue;
      }
      const auto [entry, added] =
          calls.try_emplace({wait.waiting, wait.thread_id, wait.call_begin}, kept.size());
      if (added) {
        kept.push_back(wait);
        continue;
      }
      FoundWait& latest = kept[entry->second];
      if (std::tie(wait.to, latest.awaited) > std::tie(latest.to, wait.awaited)) latest = wait;
    }
    std::erase_if(kept, [](FoundWait& wait) {
      if (wait.candidate != 0) wait.to = std::min(wait.call_end, wait.to);
      return wait.to <= wait.from;
    });
    return kept;
  }

  const RankDoings& doings_of(std::int32_t rank) {
    const std::size_t index = local_.at(rank);
    if (!doings_[index]) doings_[index] = std::make_unique<RankDoings>(mine_[index]);
    return *doings_[index];
  }

  // Each wait with the waiting call's regions, to the awaited rank's process.
  std::vector<std::vector<std::byte>> with_call_paths(const std::vector<FoundWait>& waits) {
    doings_.resize(mine_.size());
    std::vector<ByteWriter> out(processes_);
    for (FoundWait wait : waits) {
      wait.from = std::max(wait.from, window_.begin_ns);
      wait.to = std::min(wait.to, window_.end_ns);
      if (wait.to <= wait.from) continue;  // outside the window
      ByteWriter& to = out[owner(wait.awaited)];
      to.put(wait);
      to.put_string(doings_of(wait.waiting).call_path(wait.thread_id, wait.call_begin));
    }
    std::vector<std::vector<std::byte>> parts;
    parts.reserve(out.size());
    for (ByteWriter& writer : out) parts.push_back(writer.take());
    return parts;
  }

  // Each wait blamed on what its awaited rank (one of this process's) was doing then.
  void blame(const std::vector<std::vector<std::byte>>& parts) {
    absl::flat_hash_map<std::string, std::uint32_t> causes;
    for (const std::vector<std::byte>& part : parts) {
      ByteReader in(part);
      while (!in.done()) {
        const auto wait = in.get<FoundWait>();
        std::string call_path = in.get_string();
        std::string cause = doings_of(wait.awaited).cause(wait.from, wait.to);
        const auto [entry, added] =
            causes.try_emplace(cause, static_cast<std::uint32_t>(report_.causes.size()));
        if (added) report_.causes.push_back(cause);
        report_.edges.push_back(
            {wait.waiting, wait.awaited, wait.from, wait.to, wait.pattern, entry->second});
        WaitStateReport::Key key{wait.pattern,         wait.waiting,
                                 std::move(call_path), functions_.at(wait.function),
                                 wait.awaited,         std::move(cause)};
        report_.waits[std::move(key)].add(static_cast<double>(wait.to - wait.from));
      }
    }
  }

  // Every process's waits on the first, in one order whatever the number of processes: the
  // edges by waiting rank and time, the causes by their first edge.
  WaitStateReport gathered() {
    ByteWriter out;
    report_.mismatched_collectives = mismatched_;
    report_.put(out);
    const std::vector<std::vector<std::byte>> parts = gather_to_first(exchange_, out.take());
    if (exchange_.index() != 0) return {};
    WaitStateReport job;
    std::vector<std::pair<WaitStateReport::Edge, std::string>> edges;
    for (const std::vector<std::byte>& part : parts) {
      ByteReader in(part);
      WaitStateReport one = WaitStateReport::get(in);
      job.mismatched_collectives += one.mismatched_collectives;
      for (auto& [key, totals] : one.waits) {
        WaitTotals& into = job.waits[key];
        into.count += totals.count;
        into.total_ns += totals.total_ns;
      }
      for (const WaitStateReport::Edge& edge : one.edges)
        edges.emplace_back(edge, one.causes.at(edge.cause));
    }
    std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first.waiting, a.first.from, a.first.to, a.first.awaited, a.first.pattern,
                      a.second) < std::tie(b.first.waiting, b.first.from, b.first.to,
                                           b.first.awaited, b.first.pattern, b.second);
    });
    absl::flat_hash_map<std::string, std::uint32_t> causes;
    job.edges.reserve(edges.size());
    for (auto& [edge, cause] : edges) {
      const auto [entry, added] =
          causes.try_emplace(cause, static_cast<std::uint32_t>(job.causes.size()));
      if (added) job.causes.push_back(std::move(cause));
      edge.cause = entry->second;
      job.edges.push_back(edge);
    }
    return job;
  }

  std::vector<RankWaitInput>& mine_;
  const AnalysisExchange& exchange_;
  const TimeWindow& window_;
  const std::size_t processes_;
  absl::flat_hash_map<std::int32_t, std::size_t> local_;    // rank -> index into mine_
  absl::flat_hash_map<std::int32_t, std::size_t> owner_;    // rank -> process
  std::vector<std::string> functions_;                      // the job's, sorted
  std::vector<std::vector<std::int32_t>> local_functions_;  // by rank, name: -1 unknown
  std::vector<std::unique_ptr<RankDoings>> doings_;         // made at a rank's first question
  Outgoing<FoundWait> found_{processes_};                   // to the waiting rank's process
  WaitStateReport report_;                                  // this process's awaited ranks' waits
  std::uint64_t mismatched_ = 0;
};

}  // namespace

WaitStateReport analyse_wait_states(std::vector<RankWaitInput>& mine,
                                    const AnalysisExchange& exchange, const TimeWindow& window) {
  return Analysis(mine, exchange, window).run();
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
  out.put_vector(edges);
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
  report.edges = in.get_vector<Edge>();
  const auto causes = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < causes; ++i) report.causes.push_back(in.get_string());
  for (const Edge& edge : report.edges)
    if (edge.cause >= report.causes.size() || static_cast<int>(edge.pattern) >= kWaitPatterns)
      throw std::runtime_error("a merge process sent a damaged wait-state report");
  report.mismatched_collectives = in.get<std::uint64_t>();
  return report;
}

}  // namespace rocprof::merge
