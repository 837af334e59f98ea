#include "merge/causality/messages.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "merge/events/mpi_call_rows.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

using Key = std::tuple<std::int32_t, std::int32_t, std::uint64_t, std::int32_t>;

struct Stream {
  std::vector<const Endpoint*> sends;
  std::vector<const Endpoint*> receives;
  bool broken = false;
};

std::map<Key, Stream> streams_of(const std::vector<Endpoint>& endpoints) {
  std::map<Key, Stream> streams;
  std::set<std::pair<std::int32_t, std::uint64_t>> invisible;  // (destination, communicator)
  for (const Endpoint& e : endpoints) {
    if (e.kind == 2) {
      invisible.emplace(e.destination, e.communicator);
      continue;
    }
    Stream& stream = streams[{e.source, e.destination, e.communicator, e.tag}];
    (e.kind == 0 ? stream.sends : stream.receives).push_back(&e);
  }
  for (auto& [key, stream] : streams) {
    if (invisible.contains({std::get<1>(key), std::get<2>(key)})) stream.broken = true;
    // Sends in their rank's order; receives too (both come from one rank each).
    auto by_sequence = [](const Endpoint* a, const Endpoint* b) {
      return a->sequence < b->sequence;
    };
    std::sort(stream.sends.begin(), stream.sends.end(), by_sequence);
    std::sort(stream.receives.begin(), stream.receives.end(), by_sequence);
  }
  return streams;
}

}  // namespace

std::vector<Endpoint> collect_endpoints(const AlignedRank& rank) {
  std::vector<Endpoint> endpoints;
  const RankFileReader& reader = rank.reader();
  std::unordered_map<std::uint64_t, bool> receive_request;  // handle -> is a receive
  std::uint32_t sequence = 0;
  const std::int32_t me = rank.rank();
  MpiFunctions functions(reader);
  TableCursor<MpiCallRow> cursor(reader);
  std::vector<MpiCallRow> rows;
  while (cursor.next(rows))
    for (const MpiCallRow& row : rows) {
      ++sequence;
      using enum MpiCallKind;
      const MpiCallKind kind = functions.kind(row.function);
      if ((kind == kBlockingSend || kind == kSendrecv || kind == kImmediateSend) && row.peer >= 0) {
        endpoints.push_back({row.communicator, rank.align_uncorrected(row.begin_ns), me, row.peer,
                             row.tag, me, sequence, 0});
        if (kind == kSendrecv)
          endpoints.push_back({row.communicator, 0, -1, me, -1, me, sequence, 2});
      }
      if ((kind == kImmediateSend || kind == kPersistentSend) && row.request != 0)
        receive_request[row.request] = false;
      if ((kind == kImmediateReceive || kind == kPersistentReceive) && row.request != 0)
        receive_request[row.request] = true;
      bool received = kind == kReceive;
      if (kind == kCompletion && row.request != 0) {
        const auto found = receive_request.find(row.request);
        received = found != receive_request.end() && found->second;
      }
      if (received && row.peer >= 0)
        endpoints.push_back({row.communicator, rank.align_uncorrected(row.end_ns), row.peer, me,
                             row.tag, me, sequence, 1});
    }
  reader.release();
  return endpoints;
}

CausalityReport check_causality(const std::vector<Endpoint>& endpoints, bool correct,
                                int max_passes) {
  CausalityReport report;
  const std::map<Key, Stream> streams = streams_of(endpoints);
  auto corrected = [&](const Endpoint* e) {
    const auto found = report.corrections.find(e->rank);
    return e->time_ns + (found == report.corrections.end() ? 0 : found->second.at(e->time_ns));
  };
  auto violations =
      [&](bool collect,
          std::map<std::int32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>>* steps) {
        std::uint64_t count = 0;
        for (const auto& [key, stream] : streams) {
          if (stream.broken || stream.sends.size() != stream.receives.size()) continue;
          for (std::size_t i = 0; i < stream.sends.size(); ++i) {
            const std::uint64_t sent = corrected(stream.sends[i]);
            const std::uint64_t received = corrected(stream.receives[i]);
            if (received >= sent) continue;
            ++count;
            if (collect)
              (*steps)[stream.receives[i]->rank].emplace_back(stream.receives[i]->time_ns,
                                                              sent - received);
          }
        }
        return count;
      };
  for (const auto& [key, stream] : streams) {
    if (stream.broken || stream.sends.size() != stream.receives.size()) continue;
    report.messages += stream.sends.size();
    for (std::size_t i = 0; i < stream.sends.size(); ++i) {
      const Endpoint& send = *stream.sends[i];
      const std::uint64_t flow =
          (static_cast<std::uint64_t>(send.rank) << 40) ^ send.sequence ^ (std::uint64_t{1} << 63);
      report.flows[send.rank].push_back({flow, send.sequence, true});
      report.flows[stream.receives[i]->rank].push_back({flow, stream.receives[i]->sequence, false});
    }
  }
  for (auto& [rank, ends] : report.flows)
    std::sort(ends.begin(), ends.end(),
              [](const AlignedRank::MessageFlow& a, const AlignedRank::MessageFlow& b) {
                return a.sequence < b.sequence;
              });
  report.violations_before = violations(false, nullptr);
  report.violations_after = report.violations_before;
  for (int pass = 0; correct && pass < max_passes && report.violations_after > 0; ++pass) {
    std::map<std::int32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> steps;
    violations(true, &steps);
    for (auto& [rank, list] : steps) {
      std::sort(list.begin(), list.end());
      StepFunction& function = report.corrections[rank];
      // Latest first: a step never moves the receives after it in the same pass.
      // NOLINTNEXTLINE(modernize-loop-convert): a reverse walk
      for (auto it = list.rbegin(); it != list.rend(); ++it) function.raise(it->first, it->second);
      report.max_shift_ns = std::max(report.max_shift_ns, function.max());
    }
    report.violations_after = violations(false, nullptr);
  }
  return report;
}

}  // namespace rocprof::merge
