#include "merge/export/perfetto_trace.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fcntl.h>
#include <unistd.h>

#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "merge/events/attribution_flows.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/op_names.hpp"
#include "merge/events/rank_progress.hpp"
#include "perfetto_trace_subset.pb.h"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;
namespace pb = rocprof::perfetto;

constexpr std::uint32_t kSequence = 1;

// Track uuids: rank in the top 16 bits, then a kind, then the thread or queue.
std::uint64_t process_uuid(std::int32_t rank) { return (std::uint64_t(rank) + 1) << 48; }
std::uint64_t thread_uuid(std::int32_t rank, std::uint32_t tid) {
  return process_uuid(rank) | (std::uint64_t{1} << 40) | tid;
}
std::uint64_t queue_uuid(std::int32_t rank, std::uint64_t queue) {
  return process_uuid(rank) | (std::uint64_t{2} << 40) | (queue & 0xffffffffffULL);
}

class PacketWriter {
 public:
  explicit PacketWriter(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)), path_(path) {
    if (fd_ < 0) throw std::runtime_error(fmt::format("cannot write {}", path));
    file_ = std::make_unique<google::protobuf::io::FileOutputStream>(fd_);
    coded_ = std::make_unique<google::protobuf::io::CodedOutputStream>(file_.get());
  }
  ~PacketWriter() {
    coded_.reset();
    file_.reset();
    if (fd_ >= 0) ::close(fd_);
  }
  // As field 1 (packet) of the Trace message.
  void write(const pb::TracePacket& packet) {
    coded_->WriteTag(0x0A);
    coded_->WriteVarint64(packet.ByteSizeLong());
    packet.SerializeWithCachedSizes(coded_.get());
    ++count_;
  }
  void close() {
    const bool failed = coded_->HadError();
    coded_.reset();
    if (failed || !file_->Close())
      throw std::runtime_error(fmt::format("writing {} failed", path_));
    file_.reset();
    fd_ = -1;
  }
  std::uint64_t count() const { return count_; }

 private:
  int fd_;
  std::string path_;
  std::unique_ptr<google::protobuf::io::FileOutputStream> file_;
  std::unique_ptr<google::protobuf::io::CodedOutputStream> coded_;
  std::uint64_t count_ = 0;
};

void annotate(pb::TrackEvent& event, const char* name, std::int64_t value) {
  auto* annotation = event.add_debug_annotations();
  annotation->set_name(name);
  annotation->set_int_value(value);
}

}  // namespace

PerfettoStats export_perfetto(const std::vector<const AlignedRank*>& ranks, const std::string& path,
                              bool first_part, const ProgressReport& progress) {
  PacketWriter writer(path);
  PerfettoStats stats;
  bool first = first_part;
  pb::TracePacket packet;
  auto emit = [&] {
    packet.set_trusted_packet_sequence_id(kSequence);
    if (first) {
      packet.set_sequence_flags(1);  // SEQ_INCREMENTAL_STATE_CLEARED
      first = false;
    }
    writer.write(packet);
    packet.Clear();
  };
  auto slice = [&](std::uint64_t track, const std::string& name, const char* category,
                   std::uint64_t begin, std::uint64_t end, auto&& decorate) {
    packet.set_timestamp(begin);
    auto* event = packet.mutable_track_event();
    event->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
    event->set_track_uuid(track);
    event->set_name(name);
    event->add_categories(category);
    decorate(*event);
    emit();
    packet.set_timestamp(std::max(end, begin));
    auto* close = packet.mutable_track_event();
    close->set_type(pb::TrackEvent::TYPE_SLICE_END);
    close->set_track_uuid(track);
    emit();
    ++stats.slices;
  };
  auto none = [](pb::TrackEvent&) {};

  ProgressSteps steps(progress, ranks.size());
  for (const AlignedRank* rank : ranks) {
    const RankFileReader& reader = rank->reader();
    const std::int32_t pid = rank->rank();
    {
      auto* track = packet.mutable_track_descriptor();
      track->set_uuid(process_uuid(pid));
      track->mutable_process()->set_pid(pid);
      track->mutable_process()->set_process_name(
          fmt::format("rank {} ({})", pid, reader.metadata().hostname));
      emit();
    }
    std::set<std::uint32_t> threads;
    auto thread_track = [&](std::uint32_t tid, const std::string& name) {
      if (!threads.insert(tid).second) return;
      auto* track = packet.mutable_track_descriptor();
      track->set_uuid(thread_uuid(pid, tid));
      track->set_parent_uuid(process_uuid(pid));
      track->mutable_thread()->set_pid(pid);
      track->mutable_thread()->set_tid(static_cast<std::int32_t>(tid));
      track->mutable_thread()->set_thread_name(name.empty() ? fmt::format("thread {}", tid) : name);
      emit();
    };
    for (const ThreadRow& thread : reader.read_all<ThreadRow>())
      thread_track(thread.thread_id, reader.string(thread.name));

    AttributionFlows attribution(*rank);
    MessageFlowCursor message_flows(*rank);
    rank->for_each_mpi_call([&](const MpiCallRow& row) {
      const std::string& name = reader.string(row.function);
      std::vector<AlignedRank::MessageFlow>& flows = message_flows.advance(row);
      if (is_per_request_row(name, row)) return;
      thread_track(row.thread_id, "");
      stats.flows += flows.size();
      const std::vector<std::uint64_t> api_flows = attribution.starts(row);
      slice(thread_uuid(pid, row.thread_id), name, "mpi", row.begin_ns, row.end_ns,
            [&](pb::TrackEvent& event) {
              for (const std::uint64_t flow : api_flows) event.add_flow_ids(flow);
              for (const auto& flow : flows) {
                if (flow.starts)
                  event.add_flow_ids(flow.flow);
                else
                  event.add_terminating_flow_ids(flow.flow);
              }
              flows.clear();
              annotate(event, "peer", row.peer);
              annotate(event, "tag", row.tag);
              annotate(event, "bytes_sent", static_cast<std::int64_t>(row.bytes_sent));
              annotate(event, "bytes_received", static_cast<std::int64_t>(row.bytes_received));
              annotate(event, "communicator", static_cast<std::int64_t>(row.communicator));
              annotate(event, "external_id", static_cast<std::int64_t>(row.external_id));
            });
    });
    const OpNames op_name(reader);
    // A flow id per correlation id, qualified by rank: API call -> device work.
    auto flow_id = [pid](std::uint64_t correlation) {
      return (static_cast<std::uint64_t>(pid) << 44) ^ correlation;
    };
    std::set<std::uint64_t> issued;
    rank->for_each_api_call([&](const ApiCallRow& row) {
      thread_track(row.thread_id, "");
      issued.insert(row.correlation_id);
      slice(thread_uuid(pid, row.thread_id), op_name(row.domain, row.op), "api", row.begin_ns,
            row.end_ns, [&](pb::TrackEvent& event) {
              annotate(event, "correlation_id", static_cast<std::int64_t>(row.correlation_id));
              event.add_flow_ids(flow_id(row.correlation_id));
              if (std::uint64_t flow = 0; attribution.ends(row, flow)) {
                annotate(event, "external_id", static_cast<std::int64_t>(row.external_id));
                event.add_terminating_flow_ids(flow);
                ++stats.flows;
              }
            });
    });
    std::set<std::uint64_t> queues;
    rank->for_each_activity([&](const ActivityRow& row) {
      const std::uint64_t track = queue_uuid(pid, row.queue_id);
      if (queues.insert(track).second) {
        auto* descriptor = packet.mutable_track_descriptor();
        descriptor->set_uuid(track);
        descriptor->set_parent_uuid(process_uuid(pid));
        descriptor->set_name(fmt::format("GPU {} queue {}", row.device_id, row.queue_id));
        emit();
      }
      const std::string name = op_name.of_activity(row);
      const bool linked = issued.contains(row.correlation_id);
      stats.flows += linked ? 1 : 0;
      slice(track, name, "gpu", row.begin_ns, row.end_ns, [&](pb::TrackEvent& event) {
        annotate(event, "correlation_id", static_cast<std::int64_t>(row.correlation_id));
        if (linked) event.add_terminating_flow_ids(flow_id(row.correlation_id));
      });
    });
    rank->for_each_marker(
        [&](const MarkerRow& mark) {
          thread_track(mark.thread_id, "");
          packet.set_timestamp(mark.timestamp_ns);
          auto* event = packet.mutable_track_event();
          event->set_type(pb::TrackEvent::TYPE_INSTANT);
          event->set_track_uuid(thread_uuid(pid, mark.thread_id));
          event->set_name(reader.string(mark.message));
          event->add_categories("marker");
          emit();
          ++stats.instants;
        },
        [&](const Range& range) {
          thread_track(range.thread_id, "");
          slice(thread_uuid(pid, range.thread_id), reader.string(range.name), "range",
                range.begin_ns, range.end_ns, none);
        });
    steps.step();
  }
  writer.close();
  stats.packets = writer.count();
  return stats;
}

}  // namespace rocprof::merge
