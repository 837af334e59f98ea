#include "merge/export/kineto_json.hpp"

#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "lib/include/rocprof-mpi/cuda_domains.h"
#include "merge/events/gpu_names.hpp"
#include "merge/export/json_text.hpp"
#include "merge/files/exclusive_file.hpp"
#include "merge/timeline/rank_timeline.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

constexpr std::uint8_t kHsaApiDomain = 0;  // roctracer's ACTIVITY_DOMAIN_HSA_API

// The Kineto category of a runtime's API calls: HIP's runtime is CUDA's as PyTorch's ROCm
// builds name it; HSA's is the driver level.
const char* api_category(std::uint8_t domain) {
  return domain == ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API || domain == kHsaApiDomain ? "cuda_driver"
                                                                                 : "cuda_runtime";
}

std::string capitalised(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

// "Memcpy HtoD (Pinned -> Device)", as Kineto names copies: HTA counts work named Memcpy...
// and Memset... as memory work.
std::string copy_event_name(const ActivityRow& row, const std::string& name) {
  std::string kind = name.starts_with("memcpy ") ? name.substr(7) : name;
  std::string text = "Memcpy " + kind;
  if (row.src_kind != MemoryKind::kUnknown && row.dst_kind != MemoryKind::kUnknown)
    text += fmt::format(" ({} -> {})", capitalised(memory_kind_name(row.src_kind)),
                        capitalised(memory_kind_name(row.dst_kind)));
  return text;
}

class RankFile {
 public:
  explicit RankFile(const std::string& path) : path_(path) {
    file_ = open_for_writing(path);
    if (file_ == nullptr)
      throw std::runtime_error(
          fmt::format("cannot write {}: {}", path, std::generic_category().message(errno)));
  }
  ~RankFile() {
    if (file_ != nullptr) std::fclose(file_);
  }
  RankFile(const RankFile&) = delete;
  RankFile& operator=(const RankFile&) = delete;

  template <typename... Args>
  void raw(fmt::format_string<Args...> format, Args&&... args) {
    fmt::print(file_, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void event(fmt::format_string<Args...> format, Args&&... args) {
    std::fputs(events_ == 0 ? "\n  " : ",\n  ", file_);
    fmt::print(file_, format, std::forward<Args>(args)...);
    ++events_;
  }
  std::uint64_t events() const { return events_; }
  void close() {
    const bool failed = std::ferror(file_) != 0;
    if (std::fclose(std::exchange(file_, nullptr)) != 0 || failed)
      throw std::runtime_error(fmt::format("writing {} failed", path_));
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::uint64_t events_ = 0;
};

// One rank's events, as the timeline walk hands them on.
class KinetoRank {
 public:
  KinetoRank(RankFile& file, std::uint64_t origin_ns) : file_(file), origin_ns_(origin_ns) {}

  void process(const TimelineProcess& process) {
    reader_ = &process.reader;
    pid_ = process.reader.metadata().pid != 0
               ? process.reader.metadata().pid
               : 1'000'000U + static_cast<std::uint32_t>(process.rank);
    file_.event(
        R"J({{"name": "process_name", "ph": "M", "pid": {}, "args": {{"name": "rank {} ({})"}}}})J",
        pid_, process.rank, json_escaped(process.hostname));
    // The devices' names, where a sampling session named one ("GPU 0 (NVIDIA H200)").
    for (const CounterSessionRow& session : process.reader.read_all<CounterSessionRow>()) {
      const std::string name = process.reader.string(session.name);
      const auto open = name.find(" (");
      if (session.device_id >= 0 && open != std::string::npos && name.ends_with(")"))
        devices_[session.device_id] = name.substr(open + 2, name.size() - open - 3);
    }
  }

  void thread(std::uint32_t thread_id, const std::string& name) {
    file_.event(
        R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})",
        pid_, thread_id, json_escaped(name));
  }

  // MPI calls with the arguments PyTorch gives its collectives (record_param_comms).
  void mpi_call(const TimelineMpiCall& call) {
    if (!call.drawn) return;
    const MpiCallRow& row = call.row;
    const std::string name = json_escaped(reader_->string(row.function));
    file_.event(
        R"({{"ph": "X", "cat": "cpu_op", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"Collective name": "{}", "Out msg size": {}, "In msg size": {}, "Peer": {}, "Tag": {}, "Process Group Name": "{}", "External id": {}}}}})",
        name, pid_, row.thread_id, us(row.begin_ns), dur(row.begin_ns, row.end_ns), name,
        row.bytes_sent, row.bytes_received, row.peer, row.tag, row.communicator, row.external_id);
  }

  void mark(const TimelineMark& mark) {
    file_.event(
        R"({{"ph": "i", "s": "t", "cat": "user_annotation", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}}})",
        json_escaped(reader_->string(mark.row.message)), pid_, mark.row.thread_id,
        us(mark.row.timestamp_ns));
  }

  void range(const TimelineRange& drawn) {
    const Range& range = drawn.range;
    file_.event(
        R"({{"ph": "X", "cat": "user_annotation", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}}})",
        json_escaped(reader_->string(range.name)), pid_, range.thread_id, us(range.begin_ns),
        dur(range.begin_ns, range.end_ns));
  }

  void api_call(const TimelineApiCall& call) {
    const ApiCallRow& row = call.row;
    file_.event(
        R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"cbid": {}, "correlation": {}, "External id": {}}}}})",
        api_category(row.domain), json_escaped(call.names(row.domain, row.op)), pid_, row.thread_id,
        us(row.begin_ns), dur(row.begin_ns, row.end_ns), row.op, row.correlation_id,
        row.external_id);
  }

  void gpu_work(const TimelineGpuWork& work) {
    const ActivityRow& row = work.row;
    if (is_host_wait(row)) {  // the host's, on its thread
      file_.event(
          R"({{"ph": "X", "cat": "cuda_sync", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"device": -1, "stream": -1, "correlation": {}}}}})",
          json_escaped(work.names.of_activity(row)), pid_, work.issued ? work.issued_thread : pid_,
          us(row.begin_ns), dur(row.begin_ns, row.end_ns), row.correlation_id);
      return;
    }
    devices_.try_emplace(row.device_id, fmt::format("GPU {}", row.device_id));
    // CUDA queues are device << 32 | stream: the stream alone, as Kineto has it.
    const std::uint64_t stream =
        row.domain == ROCPROF_MPI_DOMAIN_CUDA_OPS ? row.queue_id & 0xffffffffU : row.queue_id;
    if (work.first_on_queue)
      file_.event(
          R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})",
          row.device_id, stream, json_escaped(*work.queue_name));
    const std::string name = work.names.of_activity(row);
    const bool memset =
        row.domain == ROCPROF_MPI_DOMAIN_CUDA_OPS && row.op == ROCPROF_MPI_CUDA_OP_MEMSET;
    if (row.op == 0)
      file_.event(
          R"({{"ph": "X", "cat": "kernel", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"device": {}, "stream": {}, "correlation": {}, "grid": [{}, {}, {}], "block": [{}, {}, {}], "shared memory": {}, "registers per thread": {}}}}})",
          json_escaped(name), row.device_id, stream, us(row.begin_ns),
          dur(row.begin_ns, row.end_ns), row.device_id, stream, row.correlation_id, row.grid[0],
          row.grid[1], row.grid[2], row.block[0], row.block[1], row.block[2], row.shared_bytes,
          row.registers);
    else if (row.op == 1 || memset)
      file_.event(
          R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"device": {}, "stream": {}, "correlation": {}, "bytes": {}}}}})",
          memset ? "gpu_memset" : "gpu_memcpy",
          json_escaped(memset ? "Memset (" + capitalised(memory_kind_name(row.dst_kind)) + ")"
                              : copy_event_name(row, name)),
          row.device_id, stream, us(row.begin_ns), dur(row.begin_ns, row.end_ns), row.device_id,
          stream, row.correlation_id, row.bytes);
    else  // barriers, graph launches: GPU work that is neither
      file_.event(
          R"({{"ph": "X", "cat": "kernel", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"device": {}, "stream": {}, "correlation": {}}}}})",
          json_escaped(name), row.device_id, stream, us(row.begin_ns),
          dur(row.begin_ns, row.end_ns), row.device_id, stream, row.correlation_id);
    if (!work.issued) return;
    file_.event(
        R"({{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": {}, "pid": {}, "tid": {}, "ts": {:.3f}}})",
        row.correlation_id, pid_, work.issued_thread, us(work.issued_ns));
    file_.event(
        R"({{"ph": "f", "bp": "e", "cat": "ac2g", "name": "ac2g", "id": {}, "pid": {}, "tid": {}, "ts": {:.3f}}})",
        row.correlation_id, row.device_id, stream, us(row.begin_ns));
  }

  void counter(const TimelineCounter& sample) {
    file_.event(R"({{"ph": "C", "name": "{}", "pid": {}, "ts": {:.3f}, "args": {{"value": {}}}}})",
                json_escaped(*sample.track_name), pid_, us(sample.row.timestamp_ns),
                json_number(sample.row.value));
  }

  // What Kineto writes of each device; a name only where the trace has one.
  std::string device_properties() const {
    std::string text;
    for (const auto& [id, name] : devices_)
      text += fmt::format(R"({}{{"id": {}, "name": "{}"}})", text.empty() ? "" : ", ", id,
                          json_escaped(name));
    return text;
  }

 private:
  double us(std::uint64_t t) const { return microseconds_since(t, origin_ns_); }
  static double dur(std::uint64_t begin, std::uint64_t end) { return duration_us(begin, end); }

  RankFile& file_;
  std::uint64_t origin_ns_;
  const RankFileReader* reader_ = nullptr;
  std::uint32_t pid_ = 0;
  std::map<std::int32_t, std::string> devices_;
};

}  // namespace

std::string kineto_rank_file(std::int32_t rank) { return fmt::format("rank{}.json", rank); }

std::uint64_t export_kineto_json(const std::vector<const AlignedRank*>& ranks,
                                 std::int32_t world_size, std::uint64_t origin_ns,
                                 const std::string& directory, const ProgressReport& progress) {
  std::uint64_t events = 0;
  ProgressSteps steps(progress, ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (r + 1 < ranks.size()) ranks[r + 1]->read_ahead();
    const AlignedRank& rank = *ranks[r];
    RankFile file(directory + "/" + kineto_rank_file(rank.rank()));
    // The rank first, on a line of its own: HTA finds it with a pattern before parsing.
    file.raw(
        "{{\n\"schemaVersion\": 1,\n\"distributedInfo\": {{\"backend\": \"mpi\", \"rank\": {}, "
        "\"world_size\": {}}},\n\"displayTimeUnit\": \"ns\",\n\"baseTimeNanoseconds\": {},\n"
        "\"traceEvents\": [",
        rank.rank(), world_size, origin_ns);
    KinetoRank events_of(file, origin_ns);
    walk_rank_timeline(rank, events_of);
    file.raw("\n],\n\"deviceProperties\": [{}]\n}}\n", events_of.device_properties());
    events += file.events();
    file.close();
    rank.done();
    steps.step();
  }
  return events;
}

}  // namespace rocprof::merge
