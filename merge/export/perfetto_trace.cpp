#include "merge/export/perfetto_trace.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "merge/events/flow_ids.hpp"
#include "merge/events/gpu_names.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/op_names.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/export/encode_ahead.hpp"
#include "merge/export/perfetto_encoder.hpp"
#include "merge/export/perfetto_tracks.hpp"
#include "merge/timeline/rank_timeline.hpp"
#include "perfetto_trace_subset.pb.h"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;
namespace pb = rocprof::perfetto;

// One rank's timeline as a packet sequence, into `file` (the output, or memory for a rank
// encoded aside). One rank at a time on each thread: the buffers below are reused from rank
// to rank.
class RankEncoder {
 public:
  RankEncoder(std::int32_t pid, const RankFileReader& reader, PacketFile& file)
      : pid_(pid),
        reader_(reader),
        sequence_(file, static_cast<std::uint32_t>(pid) + 1),
        string_iids_(reader.string_count(), 0),
        op_name_(reader) {
    annotations_.clear();  // a rank that failed on this thread may have left some
    flows_.clear();
    terminating_.clear();
  }

  PerfettoStats stats() const noexcept { return stats_; }

  void process(const TimelineProcess& process) {
    pb::TrackDescriptor track;
    track.set_uuid(process_uuid(pid_));
    track.mutable_process()->set_pid(pid_);
    track.mutable_process()->set_process_name(fmt::format("rank {} ({})", pid_, process.hostname));
    sequence_.write_message(kTrackDescriptorField, track);
  }

  void thread(std::uint32_t tid, const std::string& name) { thread_track(tid, name); }

  void mpi_call(const TimelineMpiCall& call) {
    if (!call.drawn) return;
    intern_names();
    const MpiCallRow& row = call.row;
    thread_track(row.thread_id, "");
    stats_.flows += call.messages.size();
    flows_.insert(flows_.end(), call.issued_inside.begin(), call.issued_inside.end());
    for (const auto& flow : call.messages)
      (flow.starts ? flows_ : terminating_).push_back(flow.flow);
    // Only what the call has: a collective names no peer, a receive sends no bytes.
    if (row.peer >= 0) annotate(names_.peer, row.peer);
    if (row.tag >= 0) annotate(names_.tag, row.tag);
    if (row.bytes_sent != 0) annotate(names_.bytes_sent, static_cast<std::int64_t>(row.bytes_sent));
    if (row.bytes_received != 0)
      annotate(names_.bytes_received, static_cast<std::int64_t>(row.bytes_received));
    if (row.communicator != 0)
      annotate(names_.communicator, static_cast<std::int64_t>(row.communicator));
    if (row.external_id != 0)
      annotate(names_.external_id, static_cast<std::int64_t>(row.external_id));
    slice(thread_uuid(pid_, row.thread_id), categories_.mpi, name_iid(row.function), row.begin_ns,
          row.end_ns);
  }

  void mark(const TimelineMark& mark) {
    intern_names();
    thread_track(mark.row.thread_id, "");
    annotate_marker(mark.annotations, mark.row.id);
    sequence_.write_event({.type = PacketSequence::EventType::kInstant,
                           .timestamp = mark.row.timestamp_ns,
                           .track = thread_uuid(pid_, mark.row.thread_id),
                           .category_iid = categories_.marker,
                           .name_iid = name_iid(mark.row.message),
                           .annotations = annotations_});
    annotations_.clear();
    ++stats_.instants;
  }

  void range(const TimelineRange& drawn) {
    intern_names();
    const Range& range = drawn.range;
    thread_track(range.thread_id, "");
    if (range.region) {
      // A user region leads to the API calls made inside it.
      flows_.insert(flows_.end(), drawn.issued_inside.begin(), drawn.issued_inside.end());
      annotate_marker(drawn.annotations, range.id);
    }
    slice(thread_uuid(pid_, range.thread_id), categories_.range, name_iid(range.name),
          range.begin_ns, range.end_ns);
  }

  void api_call(const TimelineApiCall& call) {
    intern_names();
    const ApiCallRow& row = call.row;
    thread_track(row.thread_id, "");
    annotate(names_.correlation_id, static_cast<std::int64_t>(row.correlation_id));
    flows_.push_back(call.issued_flow);
    if (call.ends_inside_flow) {
      annotate(names_.external_id, static_cast<std::int64_t>(row.external_id));
      terminating_.push_back(call.inside_flow);
      ++stats_.flows;
    }
    slice(thread_uuid(pid_, row.thread_id), categories_.api, op_iid(row.domain, row.op),
          row.begin_ns, row.end_ns);
  }

  // A device counter's sample on its counter track, under the rank that sampled it.
  void counter(const TimelineCounter& sample) {
    const std::uint64_t track = counter_uuid(pid_, sample.track);
    if (sample.first_on_track) track_of_rank(track, *sample.track_name, true);
    sequence_.write_event({.type = PacketSequence::EventType::kCounter,
                           .timestamp = sample.row.timestamp_ns,
                           .track = track,
                           .counter_value = sample.row.value});
    ++stats_.counters;
  }

  void gpu_work(const TimelineGpuWork& work) {
    intern_names();
    const ActivityRow& row = work.row;
    const std::uint64_t track = queue_uuid(pid_, row.queue_id);
    if (work.first_on_queue) track_of_rank(track, *work.queue_name, false);
    if (work.issued) {
      terminating_.push_back(work.issued_flow);
      ++stats_.flows;
    }
    annotate(names_.correlation_id, static_cast<std::int64_t>(row.correlation_id));
    if (row.registers != 0 || row.grid[0] != 0) {
      // What the kernel asked of the GPU (named when first seen: files without it keep
      // their bytes).
      static constexpr const char* kAxes[3][2] = {
          {"grid_x", "block_x"}, {"grid_y", "block_y"}, {"grid_z", "block_z"}};
      for (int axis = 0; axis < 3; ++axis) {
        annotate(sequence_.annotation_name(kAxes[axis][0]), row.grid[axis]);
        annotate(sequence_.annotation_name(kAxes[axis][1]), row.block[axis]);
      }
      annotate(sequence_.annotation_name("shared_bytes"), row.shared_bytes);
      annotate(sequence_.annotation_name("registers"), row.registers);
    }
    // The memory a copy or memset touched, by name.
    for (const auto& [field, kind] :
         {std::pair{"src_kind", row.src_kind}, {"dst_kind", row.dst_kind}})
      if (kind != MemoryKind::kUnknown)
        annotations_.push_back({sequence_.annotation_name(field), 0, Annotation::Kind::kString,
                                memory_kind_name(kind)});
    slice(track, categories_.gpu, activity_iid(row), row.begin_ns, row.end_ns);
  }

 private:
  // Categories and annotation names, interned in this order after the track descriptors and
  // before the first event.
  void intern_names() {
    if (interned_) return;
    interned_ = true;
    categories_ = {sequence_.category("mpi"), sequence_.category("api"), sequence_.category("gpu"),
                   sequence_.category("range"), sequence_.category("marker")};
    names_ = {
        sequence_.annotation_name("peer"),          sequence_.annotation_name("tag"),
        sequence_.annotation_name("bytes_sent"),    sequence_.annotation_name("bytes_received"),
        sequence_.annotation_name("communicator"),  sequence_.annotation_name("external_id"),
        sequence_.annotation_name("correlation_id")};
  }

  // A named track under the rank's process: a GPU queue's, or a counter's.
  void track_of_rank(std::uint64_t uuid, const std::string& name, bool counter) {
    pb::TrackDescriptor descriptor;
    descriptor.set_uuid(uuid);
    descriptor.set_parent_uuid(process_uuid(pid_));
    descriptor.set_name(name);
    if (counter) descriptor.mutable_counter();
    sequence_.write_message(kTrackDescriptorField, descriptor);
  }

  // Rows come in runs from one thread: the last one seen needs no set look-up.
  void thread_track(std::uint32_t tid, const std::string& name) {
    if (last_thread_ == tid) return;
    last_thread_ = tid;
    if (!threads_.insert(tid).second) return;
    pb::TrackDescriptor track;
    track.set_uuid(thread_uuid(pid_, tid));
    track.set_parent_uuid(process_uuid(pid_));
    track.mutable_thread()->set_pid(pid_);
    track.mutable_thread()->set_tid(static_cast<std::int32_t>(tid));
    track.mutable_thread()->set_thread_name(name.empty() ? fmt::format("thread {}", tid) : name);
    sequence_.write_message(kTrackDescriptorField, track);
  }

  // Interned ids of the rank's strings, and of op names, looked up once each.
  std::uint64_t name_iid(StringId id) {
    if (id >= string_iids_.size()) return sequence_.event_name(reader_.string(id));  // throws
    std::uint64_t& iid = string_iids_[id];
    if (iid == 0) iid = sequence_.event_name(reader_.string(id));
    return iid;
  }
  std::uint64_t op_iid(std::uint8_t domain, std::uint32_t op) {
    const std::uint64_t key = (std::uint64_t{domain} << 32) | op;
    const auto [entry, added] = op_iids_.try_emplace(key, 0);
    if (added) entry->second = sequence_.event_name(op_name_(domain, op));
    return entry->second;
  }
  // A GPU slice's name: its kernel, a copy's name by direction, else its op.
  std::uint64_t activity_iid(const ActivityRow& row) {
    if (row.kernel_name != 0) return name_iid(row.kernel_name);
    if (!OpNames::is_named_copy(row)) return op_iid(row.domain, row.op);
    const auto [entry, added] = copy_iids_.try_emplace(row.kind, 0);
    if (added) entry->second = sequence_.event_name(op_name_.of_activity(row));
    return entry->second;
  }

  // Built in place: a temporary copied in stalls on store forwarding.
  void annotate(std::uint64_t name, std::int64_t value) {
    Annotation& annotation = annotations_.emplace_back();
    annotation.name_iid = name;
    annotation.value = value;
  }
  // User annotations (by the id of the marker they belong to) go on their region or mark.
  void annotate_marker(const UserAnnotations& annotations, std::uint64_t id) {
    annotations.for_marker(id, [&](const AnnotationValue& value) {
      // uint_value holds the recorded bits whatever the kind (a double's too).
      annotations_.push_back({sequence_.annotation_name(value.name),
                              static_cast<std::int64_t>(value.uint_value), value.kind, value.text});
    });
  }

  void slice(std::uint64_t track, std::uint64_t category, std::uint64_t name, std::uint64_t begin,
             std::uint64_t end) {
    sequence_.write_event({.type = PacketSequence::EventType::kSliceBegin,
                           .timestamp = begin,
                           .track = track,
                           .category_iid = category,
                           .name_iid = name,
                           .annotations = annotations_,
                           .flows = flows_,
                           .terminating_flows = terminating_});
    sequence_.write_event({.type = PacketSequence::EventType::kSliceEnd,
                           .timestamp = std::max(end, begin),
                           .track = track});
    annotations_.clear();
    flows_.clear();
    terminating_.clear();
    ++stats_.slices;
  }

  struct Categories {
    std::uint64_t mpi = 0, api = 0, gpu = 0, range = 0, marker = 0;
  };
  struct AnnotationNames {
    std::uint64_t peer = 0, tag = 0, bytes_sent = 0, bytes_received = 0, communicator = 0,
                  external_id = 0, correlation_id = 0;
  };

  // Buffers kept by the thread from rank to rank, reached through these references (a
  // thread_local member would be looked up on every use).
  template <typename T>
  static std::vector<T>& buffer(int which) {
    thread_local std::vector<T> buffers[2];
    return buffers[which];
  }
  std::vector<Annotation>& annotations_ = buffer<Annotation>(0);
  std::vector<std::uint64_t>& flows_ = buffer<std::uint64_t>(0);
  std::vector<std::uint64_t>& terminating_ = buffer<std::uint64_t>(1);
  std::int32_t pid_;
  const RankFileReader& reader_;
  PacketSequence sequence_;
  PerfettoStats stats_;
  std::unordered_set<std::uint32_t> threads_;
  std::optional<std::uint32_t> last_thread_;
  std::vector<std::uint64_t> string_iids_;
  const OpNames op_name_;
  std::unordered_map<std::uint64_t, std::uint64_t> op_iids_;
  std::unordered_map<std::uint64_t, std::uint64_t> copy_iids_;
  bool interned_ = false;
  Categories categories_;
  AnnotationNames names_;
};

PerfettoStats encode_rank(const AlignedRank* rank, PacketFile& file) {
  RankEncoder encoder(rank->rank(), rank->reader(), file);
  walk_rank_timeline(*rank, encoder);
  return encoder.stats();
}

// What encoding ranks aside holds in memory is about their rows, some 64 bytes of packets a
// row. Room for the writer and each of three helpers to hold a rank of 1 M rows: with half
// of it, such ranks went aside two at a time and one helper idled.
constexpr std::uint64_t kAsideRows = std::uint64_t{4} << 20;
// A head start's ranks are held until the export appends them, beside those the export holds
// aside: its own budget, and only ranks of up to an eighth of it.
constexpr std::uint64_t kHeadStartRows = std::uint64_t{2} << 20;

// Rows of a rank a helper may encode (every table reads without HDF5), or 0.
std::uint64_t aside_weight(const AlignedRank& rank) {
  const RankFileReader& reader = rank.reader();
  if (!reader.reads_without_hdf5()) return 0;
  std::uint64_t rows = 0;
  for (const Table* table : all_tables()) rows += reader.row_count(*table);
  return std::max<std::uint64_t>(rows, 1);
}

}  // namespace

// A rank encoded into memory, and what it holds.
struct EncodedRank {
  PacketFile packets;  // in memory
  PerfettoStats stats;
};

struct PerfettoHeadStart::State {
  std::vector<const AlignedRank*> ranks;
  std::mutex mutex;
  std::size_t next = 0;  // the first rank not taken up
  std::uint64_t held = 0;
  bool stopping = false;
  std::vector<std::unique_ptr<EncodedRank>> encoded;  // by rank index; null: not (or no longer)
  std::vector<bool> started;
  std::vector<std::thread> threads;

  void encode_ranks() {
    std::unique_lock lock(mutex);
    while (!stopping && next < ranks.size()) {
      const std::size_t r = next++;
      const std::uint64_t weight = aside_weight(*ranks[r]);
      if (weight == 0) continue;  // needs HDF5: the writer's, in its turn
      // Memory: the ranks after wait for the export. Large ranks too: a head start of a
      // rank or two saves little, and holding them cost more than it saved.
      if (held + weight > kHeadStartRows || weight > kHeadStartRows / 8) break;
      held += weight;
      started[r] = true;
      lock.unlock();
      auto rank = std::make_unique<EncodedRank>();
      try {
        rank->stats = encode_rank(ranks[r], rank->packets);
      } catch (...) {
        rank.reset();  // encoded again in its turn, which reports the error
      }
      ranks[r]->done();
      lock.lock();
      encoded[r] = std::move(rank);
    }
  }
};

PerfettoHeadStart::PerfettoHeadStart(std::vector<const AlignedRank*> ranks, std::size_t threads)
    : state_(std::make_unique<State>()) {
  State& state = *state_;
  state.encoded.resize(ranks.size());
  state.started.resize(ranks.size(), false);
  state.ranks = std::move(ranks);
  for (std::size_t t = 0; t < threads; ++t)
    state.threads.emplace_back([&state] { state.encode_ranks(); });
}

PerfettoHeadStart::~PerfettoHeadStart() { stop(); }

void PerfettoHeadStart::stop() noexcept {
  {
    const std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  for (std::thread& thread : state_->threads) thread.join();
  state_->threads.clear();
}

std::vector<std::size_t> PerfettoHeadStart::drop(const std::function<bool(std::size_t)>& stale) {
  const std::lock_guard lock(state_->mutex);
  std::vector<std::size_t> read_again;
  for (std::size_t r = 0; r < state_->encoded.size(); ++r) {
    if (state_->encoded[r] && stale(r)) state_->encoded[r].reset();
    if (state_->started[r] && !state_->encoded[r]) read_again.push_back(r);
  }
  return read_again;
}

bool PerfettoHeadStart::kept(std::size_t index) const {
  const std::lock_guard lock(state_->mutex);
  return state_->encoded[index] != nullptr;
}

std::size_t PerfettoHeadStart::kept_count() const {
  const std::lock_guard lock(state_->mutex);
  return static_cast<std::size_t>(std::count_if(state_->encoded.begin(), state_->encoded.end(),
                                                [](const auto& rank) { return rank != nullptr; }));
}

PerfettoStats export_perfetto(const std::vector<const AlignedRank*>& ranks, const std::string& path,
                              const ProgressReport& progress, std::size_t helpers,
                              BlockFile::DirectIo direct_io, PerfettoHeadStart* head_start) {
  if (head_start != nullptr) {
    head_start->stop();
    if (head_start->state_->ranks != ranks)
      throw std::logic_error("a head start on other ranks than the export's");
  }
  // A rank the head start kept is appended in its turn, like one encoded aside.
  auto kept = [head_start](std::size_t r) { return head_start != nullptr && head_start->kept(r); };
  PacketFile file(path, direct_io);
  PerfettoStats stats;
  ProgressSteps steps(progress, ranks.size());
  // Ranks whose every table reads without HDF5 (small ones, whose chunks were located when
  // their files were checked) may be encoded on helpers; the others here, in their turn.
  EncodeAhead::Plan plan;
  plan.budget = kAsideRows;
  plan.helpers = helpers;
  plan.window = 2 * plan.helpers + 2;
  for (std::size_t r = 0; r < ranks.size(); ++r)
    plan.weights.push_back(kept(r) ? 0 : aside_weight(*ranks[r]));
  const std::size_t read_depth = std::min<std::size_t>(1 + plan.helpers, 4);
  std::vector<std::unique_ptr<EncodedRank>> aside(ranks.size());
  // Written ranks' buffers, for the next ranks encoded aside: their memory is not faulted in
  // again for each rank.
  std::mutex spare_mutex;
  std::vector<std::unique_ptr<EncodedRank>> spare;
  EncodeAhead ahead(
      std::move(plan),
      [&](std::size_t r) {
        std::unique_ptr<EncodedRank> encoded;
        {
          const std::lock_guard lock(spare_mutex);
          if (!spare.empty()) {
            encoded = std::move(spare.back());
            spare.pop_back();
          }
        }
        if (!encoded) encoded = std::make_unique<EncodedRank>();
        encoded->packets.clear();
        encoded->stats = encode_rank(ranks[r], encoded->packets);
        aside[r] = std::move(encoded);
      },
      [&](std::size_t r) {
        // The next ranks' first chunks, read while this one is encoded: one more for each
        // helper, which takes the ranks after the next one.
        for (std::size_t next = r + 1; next <= r + read_depth && next < ranks.size(); ++next)
          if (!kept(next)) ranks[next]->read_ahead();
      });
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    PerfettoStats rank_stats;
    // Taken for a kept rank too (never aside: its weight is 0), so that the helpers go on to
    // the ranks after it while it is appended.
    const bool encoded_aside = ahead.take(r);
    if (kept(r)) {
      std::unique_ptr<EncodedRank>& encoded = head_start->state_->encoded[r];
      file.append(encoded->packets);
      rank_stats = encoded->stats;
      encoded.reset();
    } else if (encoded_aside) {
      file.append(aside[r]->packets);
      rank_stats = aside[r]->stats;
      const std::lock_guard lock(spare_mutex);
      spare.push_back(std::move(aside[r]));
    } else {
      rank_stats = encode_rank(ranks[r], file);
    }
    ranks[r]->done();
    ahead.written(r);
    stats.slices += rank_stats.slices;
    stats.instants += rank_stats.instants;
    stats.flows += rank_stats.flows;
    stats.counters += rank_stats.counters;
    steps.step();
  }
  file.close();
  stats.packets = file.packets();
  return stats;
}

}  // namespace rocprof::merge
