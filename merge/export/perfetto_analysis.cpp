#include "merge/export/perfetto_analysis.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "merge/events/flow_ids.hpp"
#include "merge/export/perfetto_encoder.hpp"
#include "merge/export/perfetto_tracks.hpp"
#include "perfetto_trace_subset.pb.h"

namespace rocprof::merge {
namespace {

namespace pb = rocprof::perfetto;

constexpr std::uint32_t kAnalysisSequence = 0x7ffffff0;
constexpr std::uint32_t kWaitsTrack = 0;
constexpr std::uint32_t kWaitedForTrack = 1;
constexpr std::uint32_t kCriticalTrack = 2;

struct Pending {
  std::uint64_t time;
  int order;  // at one time: slice ends, then instants, then slice begins
  PacketSequence::Event event;
  std::uint64_t flow;
  bool terminating;
};

}  // namespace

bool append_analysis_to_perfetto(const std::string& path, const WaitStateReport& waits,
                                 const CriticalPath& path_of_job, std::string& error) {
  if (waits.edges.empty() && path_of_job.empty()) return true;
  PacketFile memory;
  PacketSequence sequence(memory, kAnalysisSequence);
  std::set<std::pair<std::int32_t, std::uint32_t>> tracks;
  std::vector<Pending> events;
  const std::uint64_t category = sequence.category("analysis");
  std::uint64_t flows = 0;
  auto slice = [&](std::uint64_t track, std::uint64_t name, std::uint64_t from, std::uint64_t to,
                   std::uint64_t flow, bool terminating) {
    events.push_back({from,
                      2,
                      {PacketSequence::EventType::kSliceBegin, from, track, category, name},
                      flow,
                      terminating});
    events.push_back({to, 0, {PacketSequence::EventType::kSliceEnd, to, track}, 0, false});
  };
  // A rank's waits, on one track: they must not overlap there (threads of one rank may
  // wait at once), so a later one starts where the one before ended.
  std::vector<const WaitStateReport::Edge*> edges;
  for (const WaitStateReport::Edge& edge : waits.edges) edges.push_back(&edge);
  std::sort(edges.begin(), edges.end(), [](const auto* a, const auto* b) {
    return std::tie(a->waiting, a->from) < std::tie(b->waiting, b->from);
  });
  std::map<std::int32_t, std::uint64_t> free_from;
  for (const WaitStateReport::Edge* edge : edges) {
    std::uint64_t& free = free_from[edge->waiting];
    const std::uint64_t from = std::max(edge->from, free);
    if (edge->to <= from) continue;
    free = edge->to;
    const std::uint64_t flow = analysis_flow_id(flows++);
    tracks.insert({edge->waiting, kWaitsTrack});
    tracks.insert({edge->awaited, kWaitedForTrack});
    slice(analysis_uuid(edge->waiting, kWaitsTrack),
          sequence.event_name(
              fmt::format("{} for rank {}", wait_pattern_name(edge->pattern), edge->awaited)),
          from, edge->to, flow, false);
    events.push_back({edge->to,
                      1,
                      {PacketSequence::EventType::kInstant, edge->to,
                       analysis_uuid(edge->awaited, kWaitedForTrack), category,
                       sequence.event_name(waits.causes.at(edge->cause))},
                      flow,
                      true});
  }
  // The critical path in time order (its stretches come latest first), a flow from each
  // stretch to the next.
  const auto& stretches = path_of_job.stretches;
  const std::uint64_t critical_name = sequence.event_name("critical path");
  std::uint64_t previous_flow = 0;
  for (std::size_t i = stretches.size(); i-- > 0;) {
    const CriticalPath::Stretch& stretch = stretches[i];
    if (stretch.to <= stretch.from) continue;
    tracks.insert({stretch.rank, kCriticalTrack});
    const std::uint64_t track = analysis_uuid(stretch.rank, kCriticalTrack);
    const bool has_next = i > 0;
    const std::uint64_t next_flow = has_next ? analysis_flow_id(flows++) : 0;
    // The begin ends the flow from the stretch before; the end starts the one to the next
    // (an instant at the end carries it, the slice's end cannot).
    events.push_back(
        {stretch.from,
         2,
         {PacketSequence::EventType::kSliceBegin, stretch.from, track, category, critical_name},
         previous_flow,
         true});
    events.push_back(
        {stretch.to, 0, {PacketSequence::EventType::kSliceEnd, stretch.to, track}, 0, false});
    if (has_next)
      events.push_back({stretch.to,
                        1,
                        {PacketSequence::EventType::kInstant, stretch.to, track, category,
                         sequence.event_name("to the next stretch")},
                        next_flow,
                        false});
    previous_flow = next_flow;
  }
  for (const auto& [rank, kind] : tracks) {
    pb::TrackDescriptor descriptor;
    descriptor.set_uuid(analysis_uuid(rank, kind));
    descriptor.set_parent_uuid(process_uuid(rank));
    descriptor.set_name(kind == kWaitsTrack       ? "wait states"
                        : kind == kWaitedForTrack ? "waited for by other ranks"
                                                  : "critical path");
    sequence.write_message(kTrackDescriptorField, descriptor);
  }
  std::stable_sort(events.begin(), events.end(), [](const Pending& a, const Pending& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  });
  for (Pending& pending : events) {
    if (pending.flow != 0) {
      if (pending.terminating)
        pending.event.terminating_flows = std::span(&pending.flow, 1);
      else
        pending.event.flows = std::span(&pending.flow, 1);
    }
    sequence.write_event(pending.event);
  }
  const std::span<const std::uint8_t> bytes = memory.memory();
  std::FILE* file = std::fopen(path.c_str(), "ab");
  bool written =
      file != nullptr && std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  if (file != nullptr && std::fclose(file) != 0) written = false;
  if (!written) error = fmt::format("cannot write {}", path);
  return written;
}

}  // namespace rocprof::merge
