#include "merge/export/rocpd_export.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "lib/format/text.hpp"
#include "lib/include/rocprof-mpi/cuda_domains.h"
#include "merge/events/gpu_names.hpp"
#include "merge/export/json_text.hpp"
#include "merge/export/rocpd_schema.hpp"
#include "merge/export/sink.hpp"
#include "merge/export/sqlite_db.hpp"
#include "merge/timeline/rank_timeline.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

// roctracer's domains, as the rank files carry them (the merge reads files, not its headers).
constexpr std::uint8_t kHsaApiDomain = 0;
constexpr std::uint8_t kHipApiDomain = 3;

// Stable across processes and runs (std::hash and absl's are not): FNV-1a.
std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

// Ids of a rank's rows: its number above bit 40 (events, regions, ...: one sequence for all
// of them) or above bit 32 (threads by Linux thread id, agents, queues, tracks, ...).
constexpr unsigned kRowBits = 40;
constexpr unsigned kSmallBits = 32;
constexpr std::int64_t kMostRanks = std::int64_t{1} << (63 - kRowBits - 1);

// rocpd's categories, the names its tools group by (the part before the first '_').
const char* api_category(std::uint8_t domain) {
  switch (domain) {
    case kHsaApiDomain:
      return "HSA_CORE_API";
    case kHipApiDomain:
      return "HIP_RUNTIME_API";
    case ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API:
      return "CUDA_RUNTIME_API";
    case ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API:
      return "CUDA_DRIVER_API";
    default:
      return "OTHER_API";
  }
}

bool on_device(MemoryKind kind) {
  return kind == MemoryKind::kDevice || kind == MemoryKind::kArray ||
         kind == MemoryKind::kDeviceStatic;
}

// Which ends of a copy are host memory, from its name where the trace did not record the
// memory kinds: HIP's commands ("CopyHostToDevice") and CUDA's kinds ("memcpy HtoD").
std::pair<bool, bool> host_ends_by_name(std::string_view name) {
  const bool from_host =
      name.find("HostTo") != std::string_view::npos || name.find(" Hto") != std::string_view::npos;
  const bool to_host = name.find("ToHost") != std::string_view::npos || name.ends_with("toH");
  return {from_host, to_host};
}

std::string message_json(std::string_view message) {
  return fmt::format(R"({{"message":"{}"}})", json_escaped(message));
}

class RocpdFile {
 public:
  RocpdFile(const std::string& path, const std::string& suffix, const std::string& guid)
      : db_(path), suffix_(suffix) {
    // The file is staged and renamed into place only once written: no journal is needed.
    db_.execute(
        "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
        "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -65536; "
        "PRAGMA foreign_keys = OFF;");
    db_.execute(rocpd_tables_sql(suffix, guid));
  }

  SqliteDatabase& db() { return db_; }
  void close() {
    add_string_.reset();
    db_.close();
  }
  std::string table(std::string_view name) const { return fmt::format("\"{}{}\"", name, suffix_); }

  // The string's id: its hash, the same in every part of a parallel merge.
  std::int64_t string_id(std::string_view text) {
    const auto known = strings_.find(std::string(text));
    if (known != strings_.end()) return known->second;
    // The text as stored (invalid UTF-8 repaired, as bind does), and its id.
    const std::string stored = is_valid_utf8(text) ? std::string(text) : valid_utf8(text);
    const auto id = static_cast<std::int64_t>(stable_hash(stored) >> 1);
    if (!add_string_)
      add_string_.emplace(db_.prepare(fmt::format(
          "INSERT OR IGNORE INTO {} (id, string) VALUES (?, ?)", table("rocpd_string"))));
    add_string_->bind(1, id).bind(2, stored).run();
    if (db_.changes() == 0) {
      // Either it is there (under this id) or another string took the id.
      SqliteStatement check =
          db_.prepare(fmt::format("SELECT string FROM {} WHERE id = ?", table("rocpd_string")));
      check.bind(1, id);
      if (!check.step() || check.column_text(0) != stored)
        throw std::runtime_error(fmt::format(
            "cannot write {}: two strings share the id {} (\"{}\")", db_.path(), id, stored));
    }
    strings_.emplace(std::string(text), id);
    return id;
  }

 private:
  SqliteDatabase db_;
  std::string suffix_;
  std::unordered_map<std::string, std::int64_t> strings_;
  std::optional<SqliteStatement> add_string_;
};

// One rank's rows, as the timeline walk hands them on.
class RankRows {
 public:
  RankRows(RocpdFile& file, const AlignedRank& rank, std::int32_t world_size)
      : file_(file),
        rank_(rank),
        key_(rank.rank() + 1),
        next_row_((key_ << kRowBits) + 1),
        small_base_(key_ << kSmallBits),
        world_size_(world_size) {
    if (rank.rank() < 0 || key_ >= kMostRanks)
      throw std::runtime_error(
          fmt::format("cannot write {}: rank {} is out of range", file.db().path(), rank.rank()));
    SqliteDatabase& db = file.db();
    add_event_ = db.prepare(
        fmt::format("INSERT INTO {} (id, category_id, stack_id, parent_stack_id, correlation_id, "
                    "extdata) VALUES (?, ?, ?, ?, ?, ?)",
                    file.table("rocpd_event")));
    add_region_ = db.prepare(
        fmt::format("INSERT INTO {} (id, nid, pid, tid, start, \"end\", name_id, event_id) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    file.table("rocpd_region")));
    add_arg_ = db.prepare(fmt::format(
        "INSERT INTO {} (id, event_id, position, type, name, value) VALUES (?, ?, ?, ?, ?, ?)",
        file.table("rocpd_arg")));
    add_sample_ = db.prepare(
        fmt::format("INSERT INTO {} (id, track_id, timestamp, event_id) VALUES (?, ?, ?, ?)",
                    file.table("rocpd_sample")));
    add_dispatch_ = db.prepare(fmt::format(
        "INSERT INTO {} (id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, "
        "stream_id, start, \"end\", private_segment_size, group_segment_size, workgroup_size_x, "
        "workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, "
        "region_name_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?)",
        file.table("rocpd_kernel_dispatch")));
    add_copy_ = db.prepare(fmt::format(
        "INSERT INTO {} (id, nid, pid, tid, start, \"end\", name_id, dst_agent_id, src_agent_id, "
        "size, queue_id, stream_id, region_name_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?)",
        file.table("rocpd_memory_copy")));
    add_device_work_ = db.prepare(
        "INSERT INTO rocprofmpi_device_work (id, nid, pid, tid, agent_id, queue_id, start, "
        "\"end\", name_id, size, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    add_message_end_ = db.prepare(
        "INSERT INTO rocprofmpi_message_end (id, message_id, \"end\", event_id) VALUES (?, ?, ?, "
        "?)");
    add_pmc_event_ =
        db.prepare(fmt::format("INSERT INTO {} (id, event_id, pmc_id, value) VALUES (?, ?, ?, ?)",
                               file.table("rocpd_pmc_event")));
  }

  std::uint64_t events() const { return events_; }

  void process(const TimelineProcess& process) {
    const RankMetadata& metadata = process.reader.metadata();
    node_ = static_cast<std::int64_t>(stable_hash(process.hostname) & 0xffffffffU);
    if (node_ == 0) node_ = 1;
    file_.db()
        .prepare(fmt::format("INSERT OR IGNORE INTO {} (id, hash, machine_id, hostname, "
                             "system_name) VALUES (?, ?, ?, ?, 'Linux')",
                             file_.table("rocpd_info_node")))
        .bind(1, node_)
        .bind(2, static_cast<std::int64_t>(stable_hash(process.hostname) >> 1))
        .bind(3, process.hostname)
        .bind(4, process.hostname)
        .run();
    std::string command;
    for (const std::string& word : metadata.command_line)
      command += (command.empty() ? "" : " ") + word;
    pid_ = metadata.pid;
    file_.db()
        .prepare(fmt::format("INSERT INTO {} (id, nid, ppid, pid, command, extdata) VALUES "
                             "(?, ?, ?, ?, ?, ?)",
                             file_.table("rocpd_info_process")))
        .bind(1, key_)
        .bind(2, node_)
        .bind(3, metadata.parent_pid != 0 ? std::optional<std::uint32_t>(metadata.parent_pid)
                                          : std::nullopt)
        .bind(4, metadata.pid)
        .bind(5, command)
        .bind(6, fmt::format(R"({{"rank":{},"world_size":{},"job_id":"{}","hostname":"{}"}})",
                             process.rank, world_size_, json_escaped(metadata.job_id),
                             json_escaped(process.hostname)))
        .run();
    agent(-1);  // the host
  }

  void thread(std::uint32_t thread_id, const std::string& name) { thread_row(thread_id, name); }

  void mpi_call(const TimelineMpiCall& call) {
    if (!call.drawn) return;
    const MpiCallRow& row = call.row;
    const std::int64_t event = add_event("MPI_API", row.external_id, row.external_id);
    add_region(row.thread_id, row.begin_ns, row.end_ns,
               file_.string_id(rank_.reader().string(row.function)), event);
    int position = 0;
    if (row.peer >= 0) add_arg(event, position++, "int", "peer", fmt::format("{}", row.peer));
    if (row.tag >= 0) add_arg(event, position++, "int", "tag", fmt::format("{}", row.tag));
    if (row.bytes_sent > 0)
      add_arg(event, position++, "size_t", "bytes_sent", fmt::format("{}", row.bytes_sent));
    if (row.bytes_received > 0)
      add_arg(event, position++, "size_t", "bytes_received", fmt::format("{}", row.bytes_received));
    if (row.communicator != 0)
      add_arg(event, position++, "uint64_t", "communicator", fmt::format("{}", row.communicator));
    if (row.request != 0)
      add_arg(event, position++, "uint64_t", "request", fmt::format("{}", row.request));
    for (const MessageFlow& flow : call.messages)
      add_message_end_->bind(1, next_row_++)
          .bind(2, flow.flow)
          .bind(3, flow.starts ? "SEND" : "RECEIVE")
          .bind(4, event)
          .run();
  }

  void mark(const TimelineMark& mark) {
    const std::string message = rank_.reader().string(mark.row.message);
    const std::int64_t event = add_event("MARKER_CORE_API", 0, 0, message_json(message));
    add_annotations(event, mark.annotations, mark.row.id);
    const std::int64_t track = marker_track(mark.row.thread_id);
    add_sample_->bind(1, next_row_++)
        .bind(2, track)
        .bind(3, mark.row.timestamp_ns)
        .bind(4, event)
        .run();
    ++events_;
    seen(mark.row.timestamp_ns, mark.row.timestamp_ns);
  }

  void range(const TimelineRange& drawn) {
    const Range& range = drawn.range;
    const std::string name = rank_.reader().string(range.name);
    const std::int64_t event =
        add_event(range.region ? "USER_REGION" : "MARKER_CORE_RANGE_API", 0, 0, message_json(name));
    if (range.region) add_annotations(event, drawn.annotations, range.id);
    add_region(range.thread_id, range.begin_ns, range.end_ns, file_.string_id(name), event);
  }

  void api_call(const TimelineApiCall& call) {
    const ApiCallRow& row = call.row;
    const std::int64_t event =
        add_event(api_category(row.domain), row.correlation_id, row.external_id);
    add_region(row.thread_id, row.begin_ns, row.end_ns,
               file_.string_id(call.names(row.domain, row.op)), event);
    int position = 0;
    if (row.stream != 0)
      add_arg(event, position++, "uint64_t", "stream", fmt::format("{}", row.stream));
    if (row.bytes != 0) add_arg(event, position++, "size_t", "bytes", fmt::format("{}", row.bytes));
    if (row.kernel_name != 0)
      add_arg(event, position++, "const char*", "kernel", rank_.reader().string(row.kernel_name));
  }

  void gpu_work(const TimelineGpuWork& work) {
    const ActivityRow& row = work.row;
    const std::int64_t device_agent = agent(row.device_id);
    const std::int64_t queue = queue_row(row);
    const std::int64_t thread = thread_row(work.issued ? work.issued_thread : pid_, {});
    seen(row.begin_ns, row.end_ns);
    ++events_;
    if (row.op == 0) {  // a kernel dispatch
      const std::int64_t event = add_event("KERNEL_DISPATCH", row.correlation_id, 0);
      add_dispatch_->bind(1, next_row_++)
          .bind(2, node_)
          .bind(3, key_)
          .bind(4, thread)
          .bind(5, device_agent)
          .bind(6, kernel_symbol(work.names.kernel_name(row)))
          .bind(7, row.correlation_id)
          .bind(8, queue)
          .bind(9, queue)
          .bind(10, row.begin_ns)
          .bind(11, row.end_ns)
          .bind_null(12)
          .bind(13, row.shared_bytes)
          .bind(14, row.block[0])
          .bind(15, row.block[1])
          .bind(16, row.block[2])
          .bind(17, row.grid[0])
          .bind(18, row.grid[1])
          .bind(19, row.grid[2])
          .bind(20, file_.string_id(""))
          .bind(21, event)
          .run();
      return;
    }
    const std::string name_text = work.names.of_activity(row);
    const std::int64_t name = file_.string_id(name_text);
    if (row.op == 1) {  // a copy: the host's memory is the CPU agent's
      const std::int64_t event = add_event("MEMORY_COPY", row.correlation_id, 0);
      const std::int64_t host = agent(-1);
      bool from_host = !on_device(row.src_kind);
      bool to_host = !on_device(row.dst_kind);
      if (row.src_kind == MemoryKind::kUnknown && row.dst_kind == MemoryKind::kUnknown)
        std::tie(from_host, to_host) = host_ends_by_name(name_text);
      add_copy_->bind(1, next_row_++)
          .bind(2, node_)
          .bind(3, key_)
          .bind(4, thread)
          .bind(5, row.begin_ns)
          .bind(6, row.end_ns)
          .bind(7, name)
          .bind(8, to_host ? host : device_agent)
          .bind(9, from_host ? host : device_agent)
          .bind(10, row.bytes)
          .bind(11, queue)
          .bind(12, queue)
          .bind(13, file_.string_id(""))
          .bind(14, event)
          .run();
      return;
    }
    const std::int64_t event = add_event("DEVICE_WORK", row.correlation_id, 0);
    add_device_work_->bind(1, next_row_++)
        .bind(2, node_)
        .bind(3, key_)
        .bind(4, thread)
        .bind(5, device_agent)
        .bind(6, queue)
        .bind(7, row.begin_ns)
        .bind(8, row.end_ns)
        .bind(9, name)
        .bind(10, row.bytes)
        .bind(11, event)
        .run();
  }

  void counter(const TimelineCounter& sample) {
    auto [known, added] = counters_.try_emplace(sample.track);
    if (added) {
      const std::int64_t device_agent = agent(sample.device_id);
      const std::string counter = rank_.reader().string(sample.row.counter);
      known->second.first = small_base_ + ++small_count_;
      file_.db()
          .prepare(fmt::format(
              "INSERT INTO {} (id, nid, pid, agent_id, target_arch, name, symbol, description, "
              "value_type, is_constant, is_derived) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'ABS', 0, 0)",
              file_.table("rocpd_info_pmc")))
          .bind(1, known->second.first)
          .bind(2, node_)
          .bind(3, key_)
          .bind(4, device_agent)
          .bind(5, sample.device_id < 0 ? "CPU" : "GPU")
          .bind(6, counter)
          .bind(7, counter)
          .bind(8, *sample.device)
          .run();
      known->second.second = add_track(thread_row(pid_, {}), *sample.track_name);
    }
    const std::int64_t event = add_event("COUNTER_SAMPLE", 0, 0);
    add_pmc_event_->bind(1, next_row_++)
        .bind(2, event)
        .bind(3, known->second.first)
        .bind(4, sample.row.value)
        .run();
    add_sample_->bind(1, next_row_++)
        .bind(2, known->second.second)
        .bind(3, sample.row.timestamp_ns)
        .bind(4, event)
        .run();
    ++events_;
    seen(sample.row.timestamp_ns, sample.row.timestamp_ns);
  }

  // The process's span, once every row is in.
  void finish() {
    if (first_ns_ > last_ns_) return;
    file_.db()
        .prepare(
            fmt::format("UPDATE {} SET init = ?, start = ?, \"end\" = ?, fini = ? WHERE id = ?",
                        file_.table("rocpd_info_process")))
        .bind(1, first_ns_)
        .bind(2, first_ns_)
        .bind(3, last_ns_)
        .bind(4, last_ns_)
        .bind(5, key_)
        .run();
  }

 private:
  void seen(std::uint64_t begin, std::uint64_t end) {
    first_ns_ = std::min(first_ns_, begin);
    last_ns_ = std::max(last_ns_, end);
  }

  std::int64_t add_event(const char* category, std::uint64_t stack_id, std::uint64_t correlation_id,
                         std::string_view extdata = "{}") {
    const std::int64_t id = next_row_++;
    add_event_->bind(1, id)
        .bind(2, file_.string_id(category))
        .bind(3, stack_id)
        .bind(4, stack_id)
        .bind(5, correlation_id)
        .bind(6, extdata)
        .run();
    return id;
  }

  void add_region(std::uint32_t thread_id, std::uint64_t begin, std::uint64_t end,
                  std::int64_t name, std::int64_t event) {
    add_region_->bind(1, next_row_++)
        .bind(2, node_)
        .bind(3, key_)
        .bind(4, thread_row(thread_id, {}))
        .bind(5, begin)
        .bind(6, end)
        .bind(7, name)
        .bind(8, event)
        .run();
    ++events_;
    seen(begin, end);
  }

  void add_arg(std::int64_t event, int position, std::string_view type, std::string_view name,
               std::string_view value) {
    add_arg_->bind(1, next_row_++)
        .bind(2, event)
        .bind(3, position)
        .bind(4, type)
        .bind(5, name)
        .bind(6, value)
        .run();
  }

  void add_annotations(std::int64_t event, const UserAnnotations& annotations, std::uint64_t id) {
    int position = 0;
    annotations.for_marker(id, [&](const AnnotationValue& value) {
      switch (value.kind) {
        case AnnotationValue::Kind::kString:
          add_arg(event, position++, "string", value.name, value.text);
          break;
        case AnnotationValue::Kind::kDouble:
          add_arg(event, position++, "double", value.name, fmt::format("{}", value.double_value));
          break;
        case AnnotationValue::Kind::kInt:
          add_arg(event, position++, "int64_t", value.name, fmt::format("{}", value.int_value));
          break;
        case AnnotationValue::Kind::kUint:
          add_arg(event, position++, "uint64_t", value.name, fmt::format("{}", value.uint_value));
          break;
      }
    });
  }

  // The thread's row (added at its first mention), by Linux thread id.
  std::int64_t thread_row(std::uint32_t thread_id, const std::string& name) {
    const std::int64_t id = small_base_ | thread_id;
    if (!threads_.try_emplace(thread_id).second) return id;
    file_.db()
        .prepare(fmt::format("INSERT INTO {} (id, nid, ppid, pid, tid, name) VALUES (?, ?, ?, ?, "
                             "?, ?)",
                             file_.table("rocpd_info_thread")))
        .bind(1, id)
        .bind(2, node_)
        .bind(3, pid_)
        .bind(4, key_)
        .bind(5, thread_id)
        .bind(6, name.empty() ? std::optional<std::string_view>() : std::string_view(name))
        .run();
    return id;
  }

  // The rank's agent of a device (-1: the host), added at its first mention.
  std::int64_t agent(std::int32_t device) {
    const std::int64_t id = small_base_ | static_cast<std::uint32_t>(device + 1);
    if (!agents_.try_emplace(device).second) return id;
    const bool gpu = device >= 0;
    const std::string name = gpu ? fmt::format("GPU {}", device) : "CPU";
    file_.db()
        .prepare(fmt::format("INSERT INTO {} (id, nid, pid, type, absolute_index, logical_index, "
                             "type_index, name, product_name, user_name) VALUES (?, ?, ?, ?, ?, "
                             "?, ?, ?, ?, ?)",
                             file_.table("rocpd_info_agent")))
        .bind(1, id)
        .bind(2, node_)
        .bind(3, key_)
        .bind(4, gpu ? "GPU" : "CPU")
        .bind(5, device + 1)
        .bind(6, device + 1)
        .bind(7, gpu ? device : 0)
        .bind(8, name)
        .bind(9, name)
        .bind(10, name)
        .run();
    return id;
  }

  // The queue of device work, as a queue and a stream of the same id and name.
  std::int64_t queue_row(const ActivityRow& row) {
    auto [known, added] = queues_.try_emplace(row.queue_id);
    if (!added) return known->second;
    known->second = small_base_ + ++small_count_;
    const std::string name = gpu_track_name(row.domain, row.device_id, row.queue_id);
    for (const char* table : {"rocpd_info_queue", "rocpd_info_stream"})
      file_.db()
          .prepare(
              fmt::format("INSERT INTO {} (id, nid, pid, name, extdata) VALUES (?, ?, ?, ?, ?)",
                          file_.table(table)))
          .bind(1, known->second)
          .bind(2, node_)
          .bind(3, key_)
          .bind(4, name)
          .bind(5, fmt::format(R"({{"handle":{}}})", row.queue_id))
          .run();
    return known->second;
  }

  // A kernel's symbol, by name, in a code object standing for all of the rank's.
  std::int64_t kernel_symbol(const std::string& name) {
    auto [known, added] = kernels_.try_emplace(name);
    if (!added) return known->second;
    if (code_object_ == 0) {
      code_object_ = small_base_ + ++small_count_;
      file_.db()
          .prepare(fmt::format("INSERT INTO {} (id, nid, pid, uri) VALUES (?, ?, ?, ?)",
                               file_.table("rocpd_info_code_object")))
          .bind(1, code_object_)
          .bind(2, node_)
          .bind(3, key_)
          .bind(4, "the rank's code objects")
          .run();
    }
    known->second = small_base_ + ++small_count_;
    const std::string shown = name.empty() ? "(unnamed kernel)" : name;
    file_.db()
        .prepare(fmt::format("INSERT INTO {} (id, nid, pid, code_object_id, kernel_name, "
                             "display_name) VALUES (?, ?, ?, ?, ?, ?)",
                             file_.table("rocpd_info_kernel_symbol")))
        .bind(1, known->second)
        .bind(2, node_)
        .bind(3, key_)
        .bind(4, code_object_)
        .bind(5, shown)
        .bind(6, shown)
        .run();
    return known->second;
  }

  // A thread's track of ROC-TX marks.
  std::int64_t marker_track(std::uint32_t thread_id) {
    auto [known, added] = marker_tracks_.try_emplace(thread_id);
    if (added) known->second = add_track(thread_row(thread_id, {}), "MARKER_CORE_API");
    return known->second;
  }

  std::int64_t add_track(std::int64_t thread, std::string_view name) {
    const std::int64_t id = small_base_ + ++small_count_;
    file_.db()
        .prepare(fmt::format("INSERT INTO {} (id, nid, pid, tid, name_id) VALUES (?, ?, ?, ?, ?)",
                             file_.table("rocpd_track")))
        .bind(1, id)
        .bind(2, node_)
        .bind(3, key_)
        .bind(4, thread)
        .bind(5, file_.string_id(name))
        .run();
    return id;
  }

  RocpdFile& file_;
  const AlignedRank& rank_;
  std::int64_t key_;
  std::int64_t next_row_;
  std::int64_t small_base_;
  std::int64_t small_count_ = 0x100000000LL >> 1;  // above every agent's id
  std::int32_t world_size_;
  std::int64_t node_ = 0;
  std::uint32_t pid_ = 0;
  std::int64_t code_object_ = 0;
  std::uint64_t events_ = 0;
  std::uint64_t first_ns_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last_ns_ = 0;
  std::unordered_map<std::uint32_t, bool> threads_;
  std::unordered_map<std::int32_t, bool> agents_;
  std::unordered_map<std::uint64_t, std::int64_t> queues_;
  std::unordered_map<std::string, std::int64_t> kernels_;
  std::unordered_map<std::uint32_t, std::int64_t> marker_tracks_;
  std::unordered_map<std::uint64_t, std::pair<std::int64_t, std::int64_t>> counters_;
  std::optional<SqliteStatement> add_event_, add_region_, add_arg_, add_sample_, add_dispatch_,
      add_copy_, add_device_work_, add_message_end_, add_pmc_event_;
};

std::uint64_t write_block(RocpdFile& file, const std::vector<const AlignedRank*>& block,
                          std::int32_t world_size, const ProgressReport& progress) {
  std::uint64_t events = 0;
  ProgressSteps steps(progress, block.size());
  for (std::size_t r = 0; r < block.size(); ++r) {
    if (r + 1 < block.size()) block[r + 1]->read_ahead();
    file.db().execute("BEGIN");
    RankRows rows(file, *block[r], world_size);
    walk_rank_timeline(*block[r], rows);
    rows.finish();
    file.db().execute("COMMIT");
    block[r]->done();
    events += rows.events();
    steps.step();
  }
  return events;
}

// Adds a part (another process's block) to the output: its rows keep their ids; strings and
// nodes the output has already are the same rows.
void add_part(RocpdFile& file, const std::string& part) {
  SqliteDatabase& db = file.db();
  SqliteStatement attach = db.prepare("ATTACH DATABASE ? AS part");
  attach.bind(1, part).run();
  db.execute("BEGIN");
  for (const std::string& name : rocpd_table_names()) {
    if (name == "rocpd_metadata") continue;
    const std::string table = file.table(name);
    const bool shared = name == "rocpd_string" || name == "rocpd_info_node";
    db.execute(fmt::format("INSERT {} INTO main.{} SELECT * FROM part.{}",
                           shared ? "OR IGNORE" : "", table, table));
  }
  for (const std::string& name : rocprofmpi_table_names())
    db.execute(fmt::format(R"(INSERT INTO main."{}" SELECT * FROM part."{}")", name, name));
  const std::int64_t clashes = db.integer(fmt::format(
      "SELECT COUNT(*) FROM part.{} theirs JOIN main.{} ours ON ours.id = theirs.id WHERE "
      "ours.string != theirs.string",
      file.table("rocpd_string"), file.table("rocpd_string")));
  if (clashes != 0)
    throw std::runtime_error(fmt::format(
        "cannot write {}: {} strings of {} share an id with others", db.path(), clashes, part));
  db.execute("COMMIT");
  db.execute("DETACH DATABASE part");
}

// Where process `index` of a parallel merge writes its block: beside the output.
std::string part_path(const std::string& path, int index) {
  return fmt::format("{}.part{}", path, index);
}

std::uint64_t start_realtime(const std::vector<const AlignedRank*>& ranks) {
  return ranks.empty() ? 0 : ranks.front()->reader().metadata().start_realtime_ns;
}

}  // namespace

std::string rocpd_guid(const std::string& job_id, std::uint64_t start_realtime_ns) {
  const std::uint64_t millis = start_realtime_ns / 1'000'000 & 0xffffffffffffULL;
  const std::uint64_t bits = stable_hash(fmt::format("{}/{}", job_id, start_realtime_ns));
  const std::uint64_t more = stable_hash(fmt::format("{}", bits));
  return fmt::format("{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}", millis >> 16, millis & 0xffff,
                     bits & 0xfff, 0x8000 | ((bits >> 12) & 0x3fff), more & 0xffffffffffffULL);
}

std::uint64_t export_rocpd(const std::vector<const AlignedRank*>& ranks, std::size_t first,
                           std::size_t last, const std::string& job_id, const std::string& path,
                           const ProgressReport& progress, const MergeShare* share) {
  const std::string guid = rocpd_guid(job_id, start_realtime(ranks));
  std::string suffix = "_" + guid;
  std::replace(suffix.begin(), suffix.end(), '-', '_');
  const auto world_size = static_cast<std::int32_t>(ranks.size());
  const std::vector<const AlignedRank*> block(ranks.begin() + static_cast<std::ptrdiff_t>(first),
                                              ranks.begin() + static_cast<std::ptrdiff_t>(last));
  const bool parallel = share != nullptr && share->processes > 1;
  const bool leader = share == nullptr || share->leader();
  const std::string own = leader ? path : part_path(path, static_cast<int>(share->index));

  std::uint64_t events = 0;
  std::exception_ptr failure;
  std::optional<RocpdFile> file;
  try {
    file.emplace(own, suffix, guid);
    events = write_block(*file, block, world_size, progress);
    if (!leader) file->close();
  } catch (const std::exception&) {
    failure = std::current_exception();
  }
  if (parallel) {
    // Every process says whether its part is whole before the first reads them.
    bool others_failed = false;
    for (const std::uint64_t failed : share->gather(failure != nullptr ? 1 : 0))
      others_failed = others_failed || failed != 0;
    if (leader) {
      try {
        for (int index = 1; index < share->processes && failure == nullptr && !others_failed;
             ++index)
          add_part(*file, part_path(path, index));
      } catch (const std::exception&) {
        failure = std::current_exception();
      }
      for (int index = 1; index < share->processes; ++index)
        std::remove(part_path(path, index).c_str());
    }
    if (failure == nullptr && others_failed) throw OtherProcessFailed();
  }
  if (failure != nullptr) std::rethrow_exception(failure);
  if (leader) {
    file->db().execute(rocpd_views_sql(suffix));
    file->close();
  }
  return events;
}

}  // namespace rocprof::merge
