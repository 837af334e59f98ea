#include "merge/analysis/wait_states.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "merge/analysis/rank_doings.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/files/csv_file.hpp"

namespace rocprof::merge {
namespace {

double ms(double ns) { return ns / 1e6; }

class Analysis {
 public:
  explicit Analysis(const std::vector<RankWaitInput>& ranks) : ranks_(ranks) {
    doings_.reserve(ranks.size());
    for (const RankWaitInput& rank : ranks) doings_.emplace_back(rank);
  }

  WaitStateReport run() {
    messages();
    collectives();
    return std::move(report_);
  }

 private:
  // A wait of rank index `waiting` in its call (thread, function, call begin) during [from,
  // to), on rank index `awaited`.
  void wait(WaitPattern pattern, std::size_t waiting, std::uint32_t thread,
            const std::string& function, std::uint64_t call_begin, std::uint64_t from,
            std::uint64_t to, std::size_t awaited) {
    if (to <= from) return;
    std::string cause = doings_[awaited].cause(from, to);
    const auto [entry, added] =
        causes_.try_emplace(cause, static_cast<std::uint32_t>(report_.causes.size()));
    if (added) report_.causes.push_back(cause);
    report_.edges.push_back(
        {ranks_[waiting].rank, ranks_[awaited].rank, from, to, pattern, entry->second});
    WaitStateReport::Key key{
        pattern,  ranks_[waiting].rank, doings_[waiting].call_path(thread, call_begin),
        function, ranks_[awaited].rank, std::move(cause)};
    report_.waits[std::move(key)].add(static_cast<double>(to - from));
  }

  void messages() {
    // Each send by its flow; each waiting call with the latest of the sends it waited for
    // (an MPI_Waitall of several receives waits for the last one, not for each in turn).
    absl::flat_hash_map<std::uint64_t, std::pair<std::size_t, const MessageEnd*>> sends;
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      for (const MessageEnd& end : ranks_[r].messages)
        if (end.send != 0) sends.emplace(end.flow, std::pair{r, &end});
    struct Waiting {
      const MessageEnd* receive;
      std::size_t sender;
      const MessageEnd* send;
    };
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      absl::flat_hash_map<std::pair<std::uint32_t, std::uint64_t>, Waiting>
          latest;  // (thread, begin)
      for (const MessageEnd& end : ranks_[r].messages) {
        if (end.send != 0) continue;
        const auto found = sends.find(end.flow);
        if (found == sends.end()) continue;
        const auto [sender, send] = found->second;
        const auto kind = static_cast<MpiCallKind>(end.kind);
        if (kind == MpiCallKind::kReceive || kind == MpiCallKind::kCompletion ||
            kind == MpiCallKind::kSendrecv) {
          auto [entry, added] =
              latest.try_emplace({end.thread_id, end.begin_ns}, Waiting{&end, sender, send});
          if (!added && send->begin_ns > entry->second.send->begin_ns)
            entry->second = {&end, sender, send};
        }
        // Late receiver: a blocking send that began before its receive was posted and ended
        // only after it was (it waited; an eager send returns at once).
        if (static_cast<MpiCallKind>(send->kind) == MpiCallKind::kBlockingSend &&
            end.posted_ns > send->begin_ns && send->end_ns >= end.posted_ns)
          wait(WaitPattern::kLateReceiver, sender, send->thread_id,
               ranks_[sender].names[send->function], send->begin_ns, send->begin_ns, end.posted_ns,
               r);
      }
      for (const auto& [call, waiting] : latest) {
        const MessageEnd& receive = *waiting.receive;
        wait(WaitPattern::kLateSender, r, receive.thread_id, ranks_[r].names[receive.function],
             receive.begin_ns, receive.begin_ns, std::min(receive.end_ns, waiting.send->begin_ns),
             waiting.sender);
      }
    }
  }

  void collectives() {
    struct Member {
      std::uint64_t communicator;
      std::uint64_t sequence;
      std::size_t rank;
      const CollectiveCall* call;
    };
    std::vector<Member> members;
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      for (const CollectiveCall& call : ranks_[r].collectives)
        members.push_back({call.communicator, call.sequence, r, &call});
    std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
      return std::tie(a.communicator, a.sequence, a.rank) <
             std::tie(b.communicator, b.sequence, b.rank);
    });
    for (std::size_t first = 0; first < members.size();) {
      std::size_t last = first + 1;
      while (last < members.size() && members[last].communicator == members[first].communicator &&
             members[last].sequence == members[first].sequence)
        ++last;
      instance<Member>(std::span<const Member>(members).subspan(first, last - first));
      first = last;
    }
  }

  template <typename Member>
  void instance(std::span<const Member> members) {
    if (members.size() < 2) return;
    const std::string& function = name(members[0]);
    for (const Member& member : members)
      if (name(member) != function) {
        ++report_.mismatched_collectives;
        return;
      }
    const CollectiveKind kind = members[0].call->kind;
    auto latest_of = [&](auto skip) {
      const Member* latest = nullptr;
      for (const Member& member : members)
        if (!skip(member) && (latest == nullptr || member.call->begin_ns > latest->call->begin_ns))
          latest = &member;
      return latest;
    };
    auto waits_for = [&](WaitPattern pattern, const Member& waiting, const Member& awaited) {
      const CollectiveCall& call = *waiting.call;
      wait(pattern, waiting.rank, call.thread_id, function, call.begin_ns, call.begin_ns,
           std::min(call.end_ns, awaited.call->begin_ns), awaited.rank);
    };
    if (kind == CollectiveKind::kNxN || kind == CollectiveKind::kBarrier) {
      const Member& latest = *latest_of([](const Member&) { return false; });
      const WaitPattern pattern =
          kind == CollectiveKind::kBarrier ? WaitPattern::kWaitAtBarrier : WaitPattern::kWaitAtNxN;
      for (const Member& member : members)
        if (&member != &latest) waits_for(pattern, member, latest);
      return;
    }
    if (kind != CollectiveKind::kOneToN && kind != CollectiveKind::kNToOne) return;
    const auto is_root = [&](const Member& member) {
      return ranks_[member.rank].rank == member.call->root;
    };
    const Member* root = nullptr;
    for (const Member& member : members)
      if (is_root(member)) root = &member;
    if (root == nullptr) return;  // the root was not traced
    if (kind == CollectiveKind::kOneToN) {
      for (const Member& member : members)
        if (&member != root) waits_for(WaitPattern::kLateBroadcast, member, *root);
      return;
    }
    if (const Member* latest = latest_of(is_root))
      waits_for(WaitPattern::kEarlyReduce, *root, *latest);
  }

  template <typename Member>
  const std::string& name(const Member& member) const {
    return ranks_[member.rank].names[member.call->function];
  }

  const std::vector<RankWaitInput>& ranks_;
  std::vector<RankDoings> doings_;
  WaitStateReport report_;
  absl::flat_hash_map<std::string, std::uint32_t> causes_;  // -> report_.causes
};

}  // namespace

WaitStateReport analyse_wait_states(const std::vector<RankWaitInput>& ranks) {
  return Analysis(ranks).run();
}

std::array<WaitTotals, kWaitPatterns> WaitStateReport::by_pattern() const {
  std::array<WaitTotals, kWaitPatterns> totals{};
  for (const auto& [key, total] : waits) {
    WaitTotals& into = totals[static_cast<std::size_t>(std::get<0>(key))];
    into.count += total.count;
    into.total_ns += total.total_ns;
  }
  return totals;
}

std::map<std::int32_t, std::array<double, kWaitPatterns>> WaitStateReport::by_rank() const {
  std::map<std::int32_t, std::array<double, kWaitPatterns>> totals;
  for (const auto& [key, total] : waits) {
    auto [entry, added] = totals.try_emplace(std::get<1>(key));
    if (added) entry->second.fill(0);
    entry->second[static_cast<std::size_t>(std::get<0>(key))] += total.total_ns;
  }
  return totals;
}

namespace {

// The waits added up by what `project` keeps of their key, largest total first.
template <typename Project>
auto added_up_by(const std::map<WaitStateReport::Key, WaitTotals>& waits, Project project) {
  using Key = decltype(project(waits.begin()->first));
  std::map<Key, WaitTotals> totals;
  for (const auto& [key, total] : waits) {
    WaitTotals& into = totals[project(key)];
    into.count += total.count;
    into.total_ns += total.total_ns;
  }
  std::vector<std::pair<Key, WaitTotals>> sorted(totals.begin(), totals.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });
  return sorted;
}

}  // namespace

std::vector<std::pair<std::tuple<WaitPattern, std::int32_t, std::string>, WaitTotals>>
WaitStateReport::by_cause() const {
  return added_up_by(waits, [](const Key& key) {
    return std::tuple{std::get<0>(key), std::get<4>(key), std::get<5>(key)};
  });
}

std::vector<std::pair<std::tuple<WaitPattern, std::string, std::string>, WaitTotals>>
WaitStateReport::by_call_path() const {
  return added_up_by(waits, [](const Key& key) {
    return std::tuple{std::get<0>(key), std::get<3>(key), std::get<2>(key)};
  });
}

void WaitStateReport::print(std::FILE* out, double mpi_ns, std::size_t top) const {
  if (empty()) return;
  fmt::print(out,
             "Wait states: MPI time spent waiting for another rank (ms; share = of all MPI "
             "time)\n  {:<16} {:>10} {:>11} {:>7}\n",
             "pattern", "instances", "total", "share");
  const auto patterns = by_pattern();
  for (int p = 0; p < kWaitPatterns; ++p) {
    const WaitTotals& total = patterns[static_cast<std::size_t>(p)];
    if (total.count == 0) continue;
    fmt::print(out, "  {:<16} {:>10} {:>11.3f} {:>6.1f}%\n",
               wait_pattern_name(static_cast<WaitPattern>(p)), total.count, ms(total.total_ns),
               mpi_ns > 0 ? 100.0 * total.total_ns / mpi_ns : 0.0);
  }
  fmt::print(out, "Wait states per waiting rank (ms)\n  {:>4}", "rank");
  for (int p = 0; p < kWaitPatterns; ++p)
    fmt::print(out, " {:>15}", wait_pattern_name(static_cast<WaitPattern>(p)));
  fmt::print(out, "\n");
  for (const auto& [rank, totals] : by_rank()) {
    fmt::print(out, "  {:>4}", rank);
    for (const double total : totals) fmt::print(out, " {:>15.3f}", ms(total));
    fmt::print(out, "\n");
  }
  fmt::print(out,
             "Wait states by cause: what the awaited rank was doing (ms)\n  {:<16} {:>7} "
             "{:<40} {:>10} {:>11}\n",
             "pattern", "awaited", "cause", "instances", "total");
  const auto causes = by_cause();
  for (std::size_t i = 0; i < causes.size() && i < top; ++i) {
    const auto& [key, total] = causes[i];
    fmt::print(out, "  {:<16} {:>7} {:<40} {:>10} {:>11.3f}\n", wait_pattern_name(std::get<0>(key)),
               std::get<1>(key), std::get<2>(key), total.count, ms(total.total_ns));
  }
  fmt::print(out,
             "Wait states by call path: the waiting call and its regions (ms)\n  {:<16} {:<16} "
             "{:<40} {:>10} {:>11}\n",
             "pattern", "function", "call path", "instances", "total");
  const auto paths = by_call_path();
  for (std::size_t i = 0; i < paths.size() && i < top; ++i) {
    const auto& [key, total] = paths[i];
    fmt::print(out, "  {:<16} {:<16} {:<40} {:>10} {:>11.3f}\n",
               wait_pattern_name(std::get<0>(key)), std::get<1>(key),
               std::get<2>(key).empty() ? "(no region)" : std::get<2>(key), total.count,
               ms(total.total_ns));
  }
  if (mismatched_collectives > 0)
    fmt::print(out,
               "  {} collective instances not analysed: their ranks' records name different "
               "functions\n",
               mismatched_collectives);
}

bool WaitStateReport::write_csv(const std::string& prefix, std::string& error) const {
  CsvFile file(prefix + "_waits.csv",
               "pattern,rank,call_path,function,awaited_rank,cause,count,total_ns");
  for (const auto& [key, total] : waits)
    file.row("{},{},{},{},{},{},{},{:.0f}", wait_pattern_name(std::get<0>(key)), std::get<1>(key),
             csv_text(std::get<2>(key)), std::get<3>(key), std::get<4>(key),
             csv_text(std::get<5>(key)), total.count, total.total_ns);
  return file.close(error);
}

}  // namespace rocprof::merge
