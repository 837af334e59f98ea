#include "merge/export/chrome_json.hpp"

#include <cerrno>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "merge/events/flow_ids.hpp"
#include "merge/events/gpu_names.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/op_names.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/export/json_text.hpp"
#include "merge/files/exclusive_file.hpp"
#include "merge/timeline/rank_timeline.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

// Device queues get thread ids far above Linux thread ids so they sort after the host's.
constexpr std::uint64_t kQueueTrackBase = 1'000'000'000ULL;

// `,"field":"pinned"` for an argument list, or nothing when the kind is unknown.
std::string memory_kind_arg(std::string_view field, MemoryKind kind) {
  if (kind == MemoryKind::kUnknown) return {};
  return fmt::format(R"(,"{}":"{}")", field, memory_kind_name(kind));
}

class JsonWriter {
 public:
  // A parallel merge writes the trace in parts: the first opens the array, the last closes it
  // and the others continue it.
  JsonWriter(const std::string& path, const JsonPart& part)
      : path_(path), file_(open_for_writing(path), &std::fclose), part_(part) {
    if (!file_)
      throw std::runtime_error(
          fmt::format("cannot write {}: {}", path, std::generic_category().message(errno)));
    if (part.first) print("{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  }
  template <typename... Args>
  void event(fmt::format_string<Args...> format, Args&&... args) {
    if (count_ > 0 || !part_.first) std::fputs(",\n", file_.get());
    print(format, std::forward<Args>(args)...);
    ++count_;
  }
  void close() {
    if (part_.last) print("\n]}}\n");
    if (std::ferror(file_.get()) != 0 || std::fclose(file_.release()) != 0)
      throw std::runtime_error(fmt::format("writing {} failed", path_));
  }
  std::uint64_t count() const { return count_; }

 private:
  // fmt reports a failed write as "cannot write to file": name the file instead.
  template <typename... Args>
  void print(fmt::format_string<Args...> format, Args&&... args) {
    try {
      fmt::print(file_.get(), format, std::forward<Args>(args)...);
    } catch (const std::system_error& error) {
      throw std::runtime_error(fmt::format("writing {} failed: {}", path_, error.code().message()));
    }
  }

  std::string path_;
  std::unique_ptr<FILE, int (*)(FILE*)> file_;
  JsonPart part_;
  std::uint64_t count_ = 0;
};

// One rank's timeline as trace events.
class RankEvents {
 public:
  RankEvents(JsonWriter& json, std::uint64_t origin_ns, const RankFileReader& reader)
      : json_(json), origin_ns_(origin_ns), reader_(reader) {}

  void process(const TimelineProcess& process) {
    pid_ = process.rank;
    json_.event(R"J({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"rank {} ({})"}}}})J",
                pid_, pid_, json_escaped(process.hostname));
    json_.event(R"J({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})J",
                pid_, pid_);
  }

  void thread(std::uint32_t tid, const std::string& name) {
    json_.event(R"J({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})J",
                pid_, tid, json_escaped(name));
  }

  // Message flows: ids as strings, since JSON readers hold numbers as doubles (53 bits).
  void mpi_call(const TimelineMpiCall& call) {
    if (!call.drawn) return;
    const MpiCallRow& row = call.row;
    json_.event(
        R"J({{"name":"{}","cat":"mpi","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"peer":{},"tag":{},"bytes_sent":{},"bytes_received":{},"communicator":{},"request":{},"external_id":{}}}}})J",
        json_escaped(reader_.string(row.function)), pid_, row.thread_id, us(row.begin_ns),
        dur(row.begin_ns, row.end_ns), row.peer, row.tag, row.bytes_sent, row.bytes_received,
        row.communicator, row.request, row.external_id);
    // Inside the slice, so viewers bind the arrow's ends to it.
    const std::uint64_t middle = row.begin_ns + (row.end_ns - row.begin_ns) / 2;
    for (const MessageFlow& flow : call.messages)
      json_.event(
          R"J({{"name":"message","cat":"flow","ph":"{}",{}"id":"0x{:x}","pid":{},"tid":{},"ts":{:.3f}}})J",
          flow.starts ? "s" : "f", flow.starts ? "" : R"J("bp":"e",)J", flow.flow, pid_,
          row.thread_id, us(middle));
    issued_inside(call.issued_inside, row.thread_id, middle);
  }

  // User annotations become the args of their region or mark.
  void mark(const TimelineMark& mark) {
    json_.event(
        R"J({{"name":"{}","cat":"marker","ph":"i","s":"t","pid":{},"tid":{},"ts":{:.3f}{}}})J",
        json_escaped(reader_.string(mark.row.message)), pid_, mark.row.thread_id,
        us(mark.row.timestamp_ns), args_of(mark.annotations, mark.row.id));
  }

  void range(const TimelineRange& drawn) {
    const Range& range = drawn.range;
    json_.event(
        R"J({{"name":"{}","cat":"range","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f}{}}})J",
        json_escaped(reader_.string(range.name)), pid_, range.thread_id, us(range.begin_ns),
        dur(range.begin_ns, range.end_ns),
        range.region ? args_of(drawn.annotations, range.id) : std::string());
    if (!range.region) return;
    // A user region leads to the API calls made inside it.
    issued_inside(drawn.issued_inside, range.thread_id,
                  range.begin_ns + (range.end_ns - range.begin_ns) / 2);
  }

  void api_call(const TimelineApiCall& call) {
    const ApiCallRow& row = call.row;
    json_.event(
        R"J({{"name":"{}","cat":"api","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"correlation_id":{},"external_id":{},"bytes":{},"stream":{}}}}})J",
        json_escaped(call.names(row.domain, row.op)), pid_, row.thread_id, us(row.begin_ns),
        dur(row.begin_ns, row.end_ns), row.correlation_id, row.external_id, row.bytes, row.stream);
    if (call.ends_inside_flow)
      json_.event(
          R"J({{"name":"issued inside","cat":"flow","ph":"f","bp":"e","id":"0x{:x}","pid":{},"tid":{},"ts":{:.3f}}})J",
          call.inside_flow, pid_, row.thread_id,
          us(row.begin_ns + (row.end_ns - row.begin_ns) / 2));
  }

  // A counter's samples as counter events of the rank's process, one series per track.
  void counter(const TimelineCounter& sample) {
    json_.event(
        R"J({{"name":"{}","cat":"counter","ph":"C","pid":{},"ts":{:.3f},"args":{{"value":{}}}}})J",
        json_escaped(*sample.track_name), pid_, us(sample.row.timestamp_ns),
        json_number(sample.row.value));
  }

  void gpu_work(const TimelineGpuWork& work) {
    const ActivityRow& row = work.row;
    const std::uint64_t track = kQueueTrackBase + row.queue_id % kQueueTrackBase;
    if (work.first_on_queue)
      json_.event(R"J({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})J",
                  pid_, track, *work.queue_name);
    const std::string name = work.names.of_activity(row);
    if (row.registers != 0 || row.grid[0] != 0)  // a kernel with what it asked of the GPU
      json_.event(
          R"J({{"name":"{}","cat":"gpu","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"correlation_id":{},"grid":[{},{},{}],"block":[{},{},{}],"shared_bytes":{},"registers":{}}}}})J",
          json_escaped(name), pid_, track, us(row.begin_ns), dur(row.begin_ns, row.end_ns),
          row.correlation_id, row.grid[0], row.grid[1], row.grid[2], row.block[0], row.block[1],
          row.block[2], row.shared_bytes, row.registers);
    else if (row.src_kind != MemoryKind::kUnknown || row.dst_kind != MemoryKind::kUnknown)
      json_.event(  // a copy or memset with the memory it touched (only what is known)
          R"J({{"name":"{}","cat":"gpu","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"correlation_id":{},"bytes":{}{}{}}}}})J",
          json_escaped(name), pid_, track, us(row.begin_ns), dur(row.begin_ns, row.end_ns),
          row.correlation_id, row.bytes, memory_kind_arg("src_kind", row.src_kind),
          memory_kind_arg("dst_kind", row.dst_kind));
    else
      json_.event(
          R"J({{"name":"{}","cat":"gpu","ph":"X","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"correlation_id":{},"bytes":{}}}}})J",
          json_escaped(name), pid_, track, us(row.begin_ns), dur(row.begin_ns, row.end_ns),
          row.correlation_id, row.bytes);
    if (!work.issued) return;
    json_.event(
        R"J({{"name":"issued","cat":"flow","ph":"s","id":{},"pid":{},"tid":{},"ts":{:.3f}}})J",
        work.issued_flow, pid_, work.issued_thread, us(work.issued_ns));
    json_.event(
        R"J({{"name":"issued","cat":"flow","ph":"f","bp":"e","id":{},"pid":{},"tid":{},"ts":{:.3f}}})J",
        work.issued_flow, pid_, track, us(row.begin_ns));
  }

 private:
  double us(std::uint64_t t) const { return microseconds_since(t, origin_ns_); }
  static double dur(std::uint64_t begin, std::uint64_t end) { return duration_us(begin, end); }

  void issued_inside(std::span<const std::uint64_t> flows, std::uint32_t thread,
                     std::uint64_t middle) {
    for (const std::uint64_t flow : flows)
      json_.event(
          R"J({{"name":"issued inside","cat":"flow","ph":"s","id":"0x{:x}","pid":{},"tid":{},"ts":{:.3f}}})J",
          flow, pid_, thread, us(middle));
  }

  static std::string args_of(const UserAnnotations& annotations, std::uint64_t id) {
    std::string args;
    annotations.for_marker(id, [&](const AnnotationValue& value) {
      args += args.empty() ? R"J(,"args":{)J" : ",";
      args += fmt::format(R"J("{}":)J", json_escaped(value.name));
      switch (value.kind) {
        case AnnotationValue::Kind::kString:
          args += fmt::format(R"J("{}")J", json_escaped(value.text));
          break;
        case AnnotationValue::Kind::kDouble:
          args += json_number(value.double_value);
          break;
        case AnnotationValue::Kind::kInt:
          args += fmt::format("{}", value.int_value);
          break;
        case AnnotationValue::Kind::kUint:
          args += fmt::format("{}", value.uint_value);
          break;
      }
    });
    return args.empty() ? args : args + "}";
  }

  JsonWriter& json_;
  std::uint64_t origin_ns_;
  const RankFileReader& reader_;
  std::int32_t pid_ = 0;
};

}  // namespace

std::uint64_t export_chrome_json(const std::vector<const AlignedRank*>& ranks,
                                 std::uint64_t origin_ns, const std::string& path,
                                 const ProgressReport& progress, const JsonPart& part) {
  JsonWriter json(path, part);
  ProgressSteps steps(progress, ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (r + 1 < ranks.size()) ranks[r + 1]->read_ahead();  // while this one is written
    RankEvents events(json, origin_ns, ranks[r]->reader());
    walk_rank_timeline(*ranks[r], events);
    ranks[r]->done();
    steps.step();
  }
  json.close();
  return json.count();
}

}  // namespace rocprof::merge
