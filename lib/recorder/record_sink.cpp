#include "lib/recorder/record_sink.hpp"

#include <string_view>

#include <cstring>
#include <fstream>
#include <string>

#include <roctracer/roctracer_ext.h>

#include "lib/recorder/demangle.hpp"
#include "lib/recorder/private_records.hpp"

namespace rocprof::recorder {
namespace {

using namespace rocprof::format;

// Arguments whose call record never came (dropped with a full buffer) are forgotten here.
constexpr std::size_t kMaxPendingArgs = 4096;

template <typename Row>
Row blank() {
  Row row;
  std::memset(&row, 0, sizeof row);
  return row;
}

template <typename Row>
const PrivateRecord<Row>& as_private(const char* slot) {
  return *reinterpret_cast<const PrivateRecord<Row>*>(slot);
}

std::string thread_name(std::uint32_t thread_id) {
  std::ifstream comm("/proc/self/task/" + std::to_string(thread_id) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace

format::StringId RecordSink::intern_static(const char* text) {
  // Static names repeat on every call: look the pointer up before hashing the text.
  if (const auto found = static_ids_.find(text); found != static_ids_.end()) return found->second;
  const format::StringId id = intern(text);
  static_ids_.emplace(text, id);
  return id;
}

format::StringId RecordSink::intern_kernel(const char* mangled) {
  if (mangled == nullptr || *mangled == '\0') return 0;
  if (const auto found = kernel_ids_.find(mangled); found != kernel_ids_.end())
    return found->second;
  const format::StringId id = intern(std::string_view(demangle(mangled)));
  kernel_ids_.emplace(mangled, id);
  return id;
}

format::StringId RecordSink::intern(const char* text) {
  if (text == nullptr) return 0;
  RecentText& recent = recent_texts_[(reinterpret_cast<std::uintptr_t>(text) >> 3) % kRecentTexts];
  if (recent.address == text && std::strcmp(recent.text.c_str(), text) == 0) return recent.id;
  const format::StringId id = intern(std::string_view(text));
  recent.address = text;
  recent.text = text;
  recent.id = id;
  return id;
}

format::StringId RecordSink::intern(std::string_view text) {
  return text.empty() ? 0 : writer_.intern(text);
}

void RecordSink::note_thread(std::uint32_t thread_id, std::uint64_t timestamp_ns) {
  if (thread_id == last_thread_ && thread_id != 0) return;
  last_thread_ = thread_id;
  if (!threads_seen_.insert(thread_id).second) return;
  auto row = blank<ThreadRow>();
  row.thread_id = thread_id;
  row.first_seen_ns = timestamp_ns;
  row.name = writer_.intern(thread_name(thread_id));
  threads_.push_back(row);
}

void RecordSink::note_op(std::uint32_t domain, std::uint32_t op) {
  if (!ops_seen_.insert((std::uint64_t{domain} << 32) | op).second) return;
  auto row = blank<OpNameRow>();
  row.domain = static_cast<std::uint8_t>(domain);
  row.op = op;
  const char* name = roctracer_op_string(domain, op, 0);
  row.name = intern(name);
  op_names_.push_back(row);
}

void RecordSink::keep_api_call(const format::ApiCallRow& row) {
  api_calls_.push_back(row);
  note_thread(row.thread_id, row.begin_ns);
  note_op(row.domain, row.op);
}

void RecordSink::keep_activity(const format::ActivityRow& row) {
  activities_.push_back(row);
  note_op(row.domain, row.op);
}

RecordSink::RecordSink(format::RankFileWriter& writer, bool ticks)
    : writer_(writer), ticks_(ticks) {
  if (ticks_) observe_clock_pair(true);
}

void RecordSink::observe_clock_pair(bool keep) {
  if (!ticks_) return;
  const TickPair pair = read_tick_pair();
  if (tick_converter_.observe(pair, keep)) tick_pairs_.push_back({pair.tick, pair.ns});
}

bool RecordSink::finish_clock_pairs() {
  if (!ticks_) return true;
  observe_clock_pair(true);
  return append_all();
}

// ---- one handler per kind of record ----

void RecordSink::keep_external_link(std::uint64_t correlation_id, std::uint64_t external_id) {
  auto row = blank<ExternalCorrelationRow>();
  row.correlation_id = correlation_id;
  row.external_id = external_id;
  externals_.push_back(row);
}

void RecordSink::keep_external_correlation(const char* slot) {
  const auto& record = *reinterpret_cast<const activity_record_t*>(slot);
  keep_external_link(record.correlation_id, record.external_id);
  last_external_ = {record.correlation_id, record.external_id};
}

void RecordSink::keep_runtime_api_call(const char* slot) {
  const auto& record = *reinterpret_cast<const activity_record_t*>(slot);
  auto row = blank<ApiCallRow>();
  row.domain = static_cast<std::uint8_t>(record.domain);
  row.op = record.op;
  row.correlation_id = record.correlation_id;
  row.begin_ns = record.begin_ns;
  row.end_ns = record.end_ns;
  row.thread_id = record.thread_id;
  row.external_id =
      last_external_.correlation_id == record.correlation_id ? last_external_.external_id : 0;
  if (!pending_args_.empty()) {
    if (const auto found = pending_args_.find(record.correlation_id);
        found != pending_args_.end()) {
      const ApiArgsRow& args = found->second.args;
      row.stream = args.stream;
      row.bytes = args.bytes;
      std::memcpy(row.grid, args.grid, sizeof row.grid);
      std::memcpy(row.block, args.block, sizeof row.block);
      row.copy_direction = args.copy_direction;
      row.kernel_name = found->second.kernel_name;
      pending_args_.erase(found);
    }
  }
  keep_api_call(row);
}

void RecordSink::keep_runtime_activity(const char* slot) {
  const auto& record = *reinterpret_cast<const activity_record_t*>(slot);
  auto row = blank<ActivityRow>();
  row.domain = static_cast<std::uint8_t>(record.domain);
  row.op = record.op;
  row.kind = record.kind;
  row.correlation_id = record.correlation_id;
  row.begin_ns = record.begin_ns;
  row.end_ns = record.end_ns;
  row.device_id = record.device_id;
  row.queue_id = record.queue_id;
  // The last union holds a kernel name for dispatches, a byte count for copies.
  if (record.op == 0)
    row.kernel_name = intern_kernel(record.kernel_name);
  else if (record.op == 1)
    row.bytes = record.bytes;
  keep_activity(row);
}

void RecordSink::keep_roctx_marker(const char* slot) {
  const auto& record = *reinterpret_cast<const activity_record_t*>(slot);
  auto row = blank<MarkerRow>();
  row.op = static_cast<MarkerOp>(record.op);
  row.level = record.kind;
  row.id = record.correlation_id;
  // The recorder's pool stamps ROC-TX records with TSC ticks in TSC mode.
  row.timestamp_ns = ticks_ ? tick_converter_.to_ns(record.begin_ns) : record.begin_ns;
  row.thread_id = record.thread_id;
  row.message = intern(record.mark_message);
  markers_.push_back(row);
  note_thread(record.thread_id, row.timestamp_ns);
}

void RecordSink::keep_mpi_call(const char* slot) {
  const auto& item = as_private<MpiCallRow>(slot);
  MpiCallRow row = item.row;
  row.thread_id = item.header.thread_id;
  row.function = item.header.domain == kMpiCallDomain ? intern(item.header.text)
                                                      : intern_static(item.header.text);
  if (item.header.domain == kMpiTickCallDomain) {
    row.begin_ns = tick_converter_.to_ns(row.begin_ns);
    row.end_ns = tick_converter_.to_ns(row.end_ns);
  }
  mpi_calls_.push_back(row);
  note_thread(row.thread_id, row.begin_ns);
}

void RecordSink::keep_communicator(const char* slot) {
  const auto& item = as_private<CommunicatorRow>(slot);
  CommunicatorRow row = item.row;
  row.creator = intern(item.header.text);
  communicators_.push_back(row);
}

void RecordSink::keep_counter_sample(const char* slot) {
  const auto& item = as_private<CounterSampleRow>(slot);
  CounterSampleRow row = item.row;
  row.counter = intern(item.header.text);
  counters_.push_back(row);
}

void RecordSink::keep_counter_session(const char* slot) {
  // Its text: the device's name, then (from the sampler) backend and counters, each after a
  // kAnnotationSeparator.
  const auto& item = as_private<CounterSessionRow>(slot);
  CounterSessionRow row = item.row;
  std::string_view text = item.header.text != nullptr ? item.header.text : "";
  std::string_view fields[3];
  for (std::string_view& field : fields) {
    const std::size_t split = text.find(kAnnotationSeparator);
    field = text.substr(0, split);
    text = split == std::string_view::npos ? std::string_view{} : text.substr(split + 1);
  }
  row.name = intern(fields[0]);
  row.backend = fields[1].empty() ? 0 : intern(fields[1]);
  row.counters = fields[2].empty() ? 0 : intern(fields[2]);
  sessions_.push_back(row);
}

void RecordSink::keep_clock_sample(const char* slot) {
  clocks_.push_back(as_private<ClockSampleRow>(slot).row);
}

void RecordSink::keep_code_object(const char* slot) {
  const auto& item = as_private<CodeObjectRow>(slot);
  CodeObjectRow row = item.row;
  row.uri = intern(item.header.text);
  code_objects_.push_back(row);
}

void RecordSink::keep_kernel_symbol(const char* slot) {
  const auto& item = as_private<KernelSymbolRow>(slot);
  KernelSymbolRow row = item.row;
  row.name = intern_kernel(item.header.text);
  kernel_symbols_.push_back(row);
}

void RecordSink::keep_user_annotation(const char* slot) {
  const auto& item = as_private<AnnotationRow>(slot);
  AnnotationRow row = item.row;
  row.thread_id = item.header.thread_id;
  const std::string_view text = item.header.text != nullptr ? item.header.text : "";
  const std::size_t split = text.find(kAnnotationSeparator);
  row.name = intern(text.substr(0, split));
  row.text = split == std::string_view::npos ? 0 : intern(text.substr(split + 1));
  annotations_.push_back(row);
}

void RecordSink::keep_user_marker(const char* slot) {
  // A user region's begin or end, or a progress point (rocprofsys_user_*).
  const auto& item = as_private<MarkerRow>(slot);
  MarkerRow row = item.row;
  row.thread_id = item.header.thread_id;
  row.message = intern(item.header.text);
  markers_.push_back(row);
  note_thread(row.thread_id, row.timestamp_ns);
}

void RecordSink::keep_cuda_api_call(const char* slot) {
  const auto& item = as_private<ApiCallRow>(slot);
  ApiCallRow row = item.row;
  row.thread_id = item.header.thread_id;
  row.kernel_name = intern_kernel(item.header.text);
  keep_api_call(row);
  if (row.external_id != 0) keep_external_link(row.correlation_id, row.external_id);
}

void RecordSink::keep_cuda_activity(const char* slot) {
  const auto& item = as_private<ActivityRow>(slot);
  ActivityRow row = item.row;
  row.kernel_name = intern_kernel(item.header.text);
  keep_activity(row);
}

void RecordSink::keep_api_args(const char* slot) {
  const auto& item = as_private<ApiArgsRow>(slot);
  if (pending_args_.size() > kMaxPendingArgs) pending_args_.clear();
  pending_args_[item.row.correlation_id] = {item.row, intern_kernel(item.header.text)};
}

// ---- which handler a record goes to ----

bool RecordSink::consume(const char* begin, const char* end) {
  // Every tick in this delivery was read before this pair: it converts by interpolation.
  observe_clock_pair(false);
  // The innermost external id recorded just before a record is that record's.
  last_external_ = {};
  for (const char* slot = begin; slot < end;) {
    const std::uint32_t domain = reinterpret_cast<const activity_record_t*>(slot)->domain;
    ++consumed_;
    keep(domain, slot);
    slot += std::size_t{private_slots(domain)} * ROCPROF_MPI_SLOT_BYTES;  // roctracer's: 1
  }
  return append_all();
}

// The table of record kinds, as a switch: the compiler may inline each handler into it.
void RecordSink::keep(std::uint32_t domain, const char* slot) {
  switch (domain) {
    case ACTIVITY_DOMAIN_EXT_API:
      return keep_external_correlation(slot);
    case ACTIVITY_DOMAIN_HIP_API:
    case ACTIVITY_DOMAIN_HSA_API:
      return keep_runtime_api_call(slot);
    case ACTIVITY_DOMAIN_HIP_OPS:
    case ACTIVITY_DOMAIN_HSA_OPS:
      return keep_runtime_activity(slot);
    case ACTIVITY_DOMAIN_ROCTX:
      return keep_roctx_marker(slot);
    case kMpiCallDomain:
    case kMpiStaticNameCallDomain:
    case kMpiTickCallDomain:
      return keep_mpi_call(slot);
    case kCommunicatorDomain:
      return keep_communicator(slot);
    case kCounterSampleDomain:
      return keep_counter_sample(slot);
    case kCounterSessionDomain:
      return keep_counter_session(slot);
    case kClockSampleDomain:
      return keep_clock_sample(slot);
    case kCodeObjectDomain:
      return keep_code_object(slot);
    case kKernelSymbolDomain:
      return keep_kernel_symbol(slot);
    case kUserAnnotationDomain:
      return keep_user_annotation(slot);
    case kUserMarkerDomain:
      return keep_user_marker(slot);
    case kCudaApiDomain:
      return keep_cuda_api_call(slot);
    case kCudaActivityDomain:
      return keep_cuda_activity(slot);
    case kApiArgsDomain:
      return keep_api_args(slot);
    default:
      return;  // a kind this sink does not keep: skipped
  }
}

bool RecordSink::append_all() {
  bool ok =
      writer_.append<ApiCallRow>(api_calls_) && writer_.append<ActivityRow>(activities_) &&
      writer_.append<ExternalCorrelationRow>(externals_) && writer_.append<MarkerRow>(markers_) &&
      writer_.append<MpiCallRow>(mpi_calls_) && writer_.append<CommunicatorRow>(communicators_) &&
      writer_.append<CounterSampleRow>(counters_) && writer_.append<CounterSessionRow>(sessions_) &&
      writer_.append<ClockSampleRow>(clocks_) && writer_.append<OpNameRow>(op_names_) &&
      writer_.append<ThreadRow>(threads_) && writer_.append<AnnotationRow>(annotations_) &&
      writer_.append<TickCalibrationRow>(tick_pairs_) &&
      writer_.append<CodeObjectRow>(code_objects_) &&
      writer_.append<KernelSymbolRow>(kernel_symbols_);
  code_objects_.clear();
  kernel_symbols_.clear();
  api_calls_.clear();
  activities_.clear();
  externals_.clear();
  markers_.clear();
  mpi_calls_.clear();
  communicators_.clear();
  counters_.clear();
  sessions_.clear();
  clocks_.clear();
  op_names_.clear();
  threads_.clear();
  annotations_.clear();
  tick_pairs_.clear();
  return ok;
}

}  // namespace rocprof::recorder
