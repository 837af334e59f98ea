// One rank's timeline, as every drawing sink sees it: the process, its thread tracks, its GPU
// queue tracks, and on them the MPI calls, ROC-TX marks and ranges, user regions, API calls
// and device work, with the flows between them under job-wide ids (merge/events/flow_ids.hpp):
// messages (send -> completed receive), "issued inside" (MPI call or user region -> the API
// calls made inside it) and "issued" (API call -> the device work it launched).
//
// What is drawn, on which track, under which name and with which flows is decided here, once;
// a sink only encodes it. The timeline is walked, not stored: a rank's rows are read a block at
// a time and handed on in file order, so memory stays bounded whatever the rank's size.
//
// walk_rank_timeline calls, in this order, on a visitor:
//   process(const TimelineProcess&)
//   thread(std::uint32_t thread_id, const std::string& name)   each row of the threads table
//   mpi_call(const TimelineMpiCall&)      every MPI-call row (see TimelineMpiCall::drawn)
//   mark(const TimelineMark&) and range(const TimelineRange&)  in the order their end is recorded
//   api_call(const TimelineApiCall&)
//   gpu_work(const TimelineGpuWork&)
//   counter(const TimelineCounter&)       device counter samples, a track per session and counter
// Ranges and marks come before the API calls: a user region starts flows the API calls end.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/flow_ids.hpp"
#include "merge/events/gpu_names.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/op_names.hpp"
#include "merge/timeline/attribution_flows.hpp"
#include "merge/timeline/message_flows.hpp"
#include "merge/timeline/user_annotations.hpp"

namespace rocprof::merge {

struct TimelineProcess {
  std::int32_t rank;
  const std::string& hostname;
  const format::RankFileReader& reader;  // the rank's strings
};

struct TimelineMpiCall {
  const format::MpiCallRow& row;
  // False for a per-request row of a completion call (MPI_Waitall's, one per request): not
  // drawn; its message flows go on the next drawn call of its thread, the completion itself.
  bool drawn;
  std::span<const MessageFlow> messages;         // drawn calls: the message flows on it
  std::span<const std::uint64_t> issued_inside;  // drawn calls: flows to API calls inside it
};

struct TimelineMark {
  const format::MarkerRow& row;
  const UserAnnotations& annotations;  // for_marker(row.id, ...): its user annotations
};

struct TimelineRange {
  const Range& range;
  const UserAnnotations& annotations;            // a user region's: for_marker(range.id, ...)
  std::span<const std::uint64_t> issued_inside;  // a user region: flows to API calls inside it
};

struct TimelineApiCall {
  const format::ApiCallRow& row;
  const OpNames& names;       // names(row.domain, row.op)
  std::uint64_t issued_flow;  // the flow to the device work it launched, if any came
  // The "issued inside" flow it ends (from its MPI call or user region), if one was drawn.
  bool ends_inside_flow;
  std::uint64_t inside_flow;
};

struct TimelineGpuWork {
  const format::ActivityRow& row;
  const OpNames& names;  // names.of_activity(row)
  // The queue's track: first_on_queue for the queue's first work, with its track's name.
  bool first_on_queue;
  const std::string* queue_name;  // when first_on_queue
  // The API call that launched it, if the rank recorded it: the flow, and where it starts.
  bool issued;
  std::uint64_t issued_flow;
  std::uint32_t issued_thread;
  std::uint64_t issued_ns;  // the call's begin
};

// Whether the walk works out the flows (a sink that draws none saves reading for them).
enum class TimelineFlows { kDrawn, kNone };

// A device counter's sample, on the counter's track: one per counter of a sampling session
// (a device sampled by this rank), named "<device> <counter>" ("GPU 0 (NVIDIA H200) GPU_UTIL").
struct TimelineCounter {
  const format::CounterSampleRow& row;
  std::uint64_t track;  // the rank's counter track: session << 32 | counter name's string id
  bool first_on_track;
  const std::string* track_name;
  std::int32_t device_id;     // the session's device, -1 for the host
  const std::string* device;  // its name ("GPU 0 (NVIDIA H200)"; "session N" if undeclared)
};

template <typename Visitor>
void walk_rank_timeline(const AlignedRank& rank, Visitor& visitor,
                        TimelineFlows flows = TimelineFlows::kDrawn) {
  // Reused from rank to rank on a thread (one rank at a time on each).
  thread_local std::vector<std::uint64_t> issued_inside;
  issued_inside.clear();  // a rank that failed on this thread may have left some
  const format::RankFileReader& reader = rank.reader();
  const std::int32_t pid = rank.rank();
  visitor.process(TimelineProcess{pid, reader.metadata().hostname, reader});
  for (const format::ThreadRow& thread : reader.read_all<format::ThreadRow>())
    visitor.thread(thread.thread_id, reader.string(thread.name));

  const bool drawn_flows = flows == TimelineFlows::kDrawn;
  std::optional<AttributionFlows> attribution;
  std::optional<MessageFlowCursor> message_flows;
  if (drawn_flows) {
    attribution.emplace(rank);
    message_flows.emplace(rank);
  }
  MpiFunctions functions(reader);
  rank.for_each_mpi_call([&](const format::MpiCallRow& row) {
    std::vector<MessageFlow>* pending = drawn_flows ? &message_flows->advance(row) : nullptr;
    if (functions.is_per_request_row(row)) {
      visitor.mpi_call(TimelineMpiCall{row, false, {}, {}});
      return;
    }
    if (!drawn_flows) {
      visitor.mpi_call(TimelineMpiCall{row, true, {}, {}});
      return;
    }
    attribution->starts(row, issued_inside);
    visitor.mpi_call(TimelineMpiCall{row, true, *pending, issued_inside});
    pending->clear();
    issued_inside.clear();
  });

  const UserAnnotations user_annotations(reader);
  rank.for_each_marker(
      [&](const format::MarkerRow& mark) {
        visitor.mark(TimelineMark{mark, user_annotations});
      },
      [&](const Range& range) {
        if (range.region && drawn_flows)
          attribution->starts(format::kRegionExternalBit | range.id, issued_inside);
        visitor.range(TimelineRange{range, user_annotations, issued_inside});
        issued_inside.clear();
      });

  // Which API call launched what: by correlation id, where it ran and when it began.
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint64_t>> launched;
  const OpNames op_names(reader);
  rank.for_each_api_call([&](const format::ApiCallRow& row) {
    TimelineApiCall call{row, op_names, issued_flow_id(pid, row.correlation_id), false, 0};
    if (drawn_flows) {
      launched[row.correlation_id] = {row.thread_id, row.begin_ns};
      call.ends_inside_flow = attribution->ends(row, call.inside_flow);
    }
    visitor.api_call(call);
  });

  std::unordered_map<std::uint64_t, std::string> queues;
  rank.for_each_activity([&](const format::ActivityRow& row) {
    TimelineGpuWork work{row, op_names, false, nullptr, false, 0, 0, 0};
    auto [queue, added] = queues.try_emplace(row.queue_id);
    if (added) {
      queue->second = gpu_track_name(row.domain, row.device_id, row.queue_id);
      work.first_on_queue = true;
      work.queue_name = &queue->second;
    }
    if (const auto source = launched.find(row.correlation_id); source != launched.end()) {
      work.issued = true;
      work.issued_flow = issued_flow_id(pid, row.correlation_id);
      work.issued_thread = source->second.first;
      work.issued_ns = source->second.second;
    }
    visitor.gpu_work(work);
  });

  if (reader.row_count<format::CounterSampleRow>() == 0) return;
  // Sessions by number: the device sampled and its name.
  std::unordered_map<std::uint32_t, std::pair<std::int32_t, std::string>> sessions;
  for (const format::CounterSessionRow& session : reader.read_all<format::CounterSessionRow>())
    sessions.emplace(session.session, std::pair{session.device_id, reader.string(session.name)});
  std::unordered_map<std::uint64_t, std::string> tracks;
  rank.for_each_counter_sample([&](const format::CounterSampleRow& row) {
    if (!std::isfinite(row.value)) return;  // a reading the device did not give
    auto session = sessions.find(row.session);
    if (session == sessions.end())
      session = sessions.emplace(row.session, std::pair{-1, fmt::format("session {}", row.session)})
                    .first;
    TimelineCounter counter{row,
                            std::uint64_t{row.session} << 32 | row.counter,
                            false,
                            nullptr,
                            session->second.first,
                            &session->second.second};
    auto [track, added] = tracks.try_emplace(counter.track);
    if (added) {
      track->second = fmt::format("{} {}", session->second.second, reader.string(row.counter));
      counter.first_on_track = true;
    }
    counter.track_name = &track->second;
    visitor.counter(counter);
  });
}

}  // namespace rocprof::merge
