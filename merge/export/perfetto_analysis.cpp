#include "merge/export/perfetto_analysis.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <span>
#include <utility>

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

// Bytes encoded before they go to the file: a job's waits may not fit in memory.
constexpr std::size_t kFlushBytes = std::size_t{8} << 20;

// The analysis's packets, appended to the trace a few MiB at a time. Events go out track by
// track, each track's in time order (at one time: a slice's end, an instant, the next
// slice's begin); trace readers order a trace's events by time themselves.
class AnalysisPackets {
 public:
  explicit AnalysisPackets(const std::string& path)
      : file_(std::fopen(path.c_str(), "ab")), sequence_(memory_, kAnalysisSequence) {}
  AnalysisPackets(const AnalysisPackets&) = delete;
  AnalysisPackets& operator=(const AnalysisPackets&) = delete;
  ~AnalysisPackets() {
    if (file_ != nullptr) std::fclose(file_);
  }

  PacketSequence& sequence() { return sequence_; }
  void event(const PacketSequence::Event& event) {
    sequence_.write_event(event);
    if (memory_.memory().size() >= kFlushBytes) flush();
  }
  // False once a write failed.
  bool flush() {
    const std::span<const std::uint8_t> bytes = memory_.memory();
    if (file_ == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
      written_ = false;
    memory_.clear();
    return written_;
  }
  bool close() {
    flush();
    if (file_ != nullptr && std::fclose(file_) != 0) written_ = false;
    file_ = nullptr;
    return written_;
  }

 private:
  std::FILE* file_;
  PacketFile memory_;
  PacketSequence sequence_;
  bool written_ = true;
};

}  // namespace

bool append_analysis_to_perfetto(const std::string& path, const WaitStateReport& waits,
                                 const CriticalPath& path_of_job, std::string& error) {
  if (waits.edges.empty() && path_of_job.empty()) return true;
  AnalysisPackets out(path);
  PacketSequence& sequence = out.sequence();
  const std::uint64_t category = sequence.category("analysis");
  const auto& stretches = path_of_job.stretches;
  // The tracks first: every rank's that has a wait, is waited for or is on the path.
  std::set<std::pair<std::int32_t, std::uint32_t>> tracks;
  for (const std::int32_t rank : waits.edges.waiting_ranks()) tracks.insert({rank, kWaitsTrack});
  for (const std::int32_t rank : waits.edges.awaited_ranks())
    tracks.insert({rank, kWaitedForTrack});
  for (const CriticalPath::Stretch& stretch : stretches)
    if (stretch.to > stretch.from) tracks.insert({stretch.rank, kCriticalTrack});
  for (const auto& [rank, kind] : tracks) {
    pb::TrackDescriptor descriptor;
    descriptor.set_uuid(analysis_uuid(rank, kind));
    descriptor.set_parent_uuid(process_uuid(rank));
    descriptor.set_name(kind == kWaitsTrack       ? "wait states"
                        : kind == kWaitedForTrack ? "waited for by other ranks"
                                                  : "critical path");
    sequence.write_message(kTrackDescriptorField, descriptor);
  }
  std::uint64_t flows = 0;
  // A rank's waits, on one track: they must not overlap there (threads of one rank may
  // wait at once), so a later one starts where the one before ended. The edges come by
  // waiting rank and time.
  std::int32_t rank = 0;
  std::uint64_t free_from = 0;
  bool first_edge = true;
  waits.edges.for_each_piece([&](std::span<const WaitEdge> piece) {
    for (const WaitEdge& edge : piece) {
      if (first_edge || edge.waiting != rank) {
        rank = edge.waiting;
        free_from = 0;
        first_edge = false;
      }
      const std::uint64_t from = std::max(edge.from, free_from);
      if (edge.to <= from) continue;
      free_from = edge.to;
      std::uint64_t flow = analysis_flow_id(flows++);
      const std::uint64_t track = analysis_uuid(edge.waiting, kWaitsTrack);
      PacketSequence::Event begin{
          PacketSequence::EventType::kSliceBegin, from, track, category,
          sequence.event_name(
              fmt::format("{} for rank {}", wait_pattern_name(edge.pattern), edge.awaited))};
      begin.flows = std::span(&flow, 1);
      out.event(begin);
      out.event({PacketSequence::EventType::kSliceEnd, edge.to, track});
      PacketSequence::Event instant{PacketSequence::EventType::kInstant, edge.to,
                                    analysis_uuid(edge.awaited, kWaitedForTrack), category,
                                    sequence.event_name(waits.causes.at(edge.cause))};
      instant.terminating_flows = std::span(&flow, 1);
      out.event(instant);
    }
  });
  // The critical path in time order (its stretches come latest first), a flow from each
  // stretch to the next.
  std::uint64_t previous_flow = 0;
  for (std::size_t i = stretches.size(); i-- > 0;) {
    const CriticalPath::Stretch& stretch = stretches[i];
    if (stretch.to <= stretch.from) continue;
    const std::uint64_t track = analysis_uuid(stretch.rank, kCriticalTrack);
    std::uint64_t next_flow = i > 0 ? analysis_flow_id(flows++) : 0;
    // The begin ends the flow from the stretch before; the end starts the one to the next
    // (an instant at the end carries it, the slice's end cannot).
    PacketSequence::Event begin{PacketSequence::EventType::kSliceBegin, stretch.from, track,
                                category, sequence.event_name("critical path")};
    if (previous_flow != 0) begin.terminating_flows = std::span(&previous_flow, 1);
    out.event(begin);
    out.event({PacketSequence::EventType::kSliceEnd, stretch.to, track});
    if (i > 0) {
      PacketSequence::Event instant{PacketSequence::EventType::kInstant, stretch.to, track,
                                    category, sequence.event_name("to the next stretch")};
      instant.flows = std::span(&next_flow, 1);
      out.event(instant);
    }
    previous_flow = next_flow;
  }
  if (!out.close()) {
    error = fmt::format("cannot write {}", path);
    return false;
  }
  return true;
}

}  // namespace rocprof::merge
