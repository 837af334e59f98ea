// Turns the records a pool delivers (roctracer activity records and the recorder's private
// kinds) into rank-file rows: ids for strings, op names and thread names on first sight.
// Runs on the pool thread, with the writer locked by the caller.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <roctracer/roctracer.h>

#include "lib/format/rank_file_writer.hpp"
#include "lib/recorder/tick_clock.hpp"
#include "lib/runtime/hip/hip_args.hpp"

namespace rocprof::recorder {

class RecordSink {
 public:
  // `ticks`: MPI calls (kMpiTickCallDomain) and ROC-TX records come stamped with TSC ticks,
  // which the sink converts; it reads a (tick, ns) pair now and at every delivery, and keeps them
  // in the tick_calibration table.
  RecordSink(format::RankFileWriter& writer, bool ticks);

  // Converts [begin, end) and appends the rows. False if the writer failed.
  bool consume(const char* begin, const char* end);
  // The run's last (tick, ns) pair into the file (TSC mode only). False if the writer failed.
  bool finish_clock_pairs();
  std::uint64_t records_consumed() const noexcept { return consumed_; }

 private:
  void note_thread(std::uint32_t thread_id, std::uint64_t timestamp_ns);
  void note_op(std::uint32_t domain, std::uint32_t op);
  // A row of API calls or device activity of any runtime, with the names it needs.
  void keep_api_call(const format::ApiCallRow& row);
  void keep_activity(const format::ActivityRow& row);
  format::StringId intern(const char* text);  // NULL or empty: 0
  format::StringId intern(std::string_view text);
  format::StringId intern_static(const char* text);
  format::StringId intern_kernel(const char* mangled);
  bool append_all();
  void observe_clock_pair(bool keep);

  // What each kind of record becomes: one handler per kind (the record at `slot`), chosen
  // by the record's domain.
  void keep(std::uint32_t domain, const char* slot);
  // A row of the external_correlations table (a runtime call's correlation id, the external
  // id it ran under).
  void keep_external_link(std::uint64_t correlation_id, std::uint64_t external_id);
  void keep_external_correlation(const char* slot);
  void keep_runtime_api_call(const char* slot);  // HIP and HSA
  void keep_runtime_activity(const char* slot);  // HIP and HSA
  void keep_roctx_marker(const char* slot);
  void keep_mpi_call(const char* slot);
  void keep_communicator(const char* slot);
  void keep_counter_sample(const char* slot);
  void keep_counter_session(const char* slot);
  void keep_clock_sample(const char* slot);
  void keep_code_object(const char* slot);
  void keep_kernel_symbol(const char* slot);
  void keep_user_annotation(const char* slot);
  void keep_user_marker(const char* slot);
  void keep_cuda_api_call(const char* slot);
  void keep_cuda_activity(const char* slot);
  void keep_api_args(const char* slot);

  // The external correlation recorded last in this delivery, for the API call after it.
  struct ExternalLink {
    std::uint64_t correlation_id = 0;
    std::uint64_t external_id = 0;
  };
  ExternalLink last_external_;

  struct PendingArgs {
    runtime::hip::ApiArgsRow args;
    format::StringId kernel_name;
  };
  // Decoded arguments waiting for their call's record (which follows in the same thread's
  // buffer); bounded: entries whose call was dropped are cleared when it grows.
  std::unordered_map<std::uint64_t, PendingArgs> pending_args_;

  format::RankFileWriter& writer_;
  std::uint64_t consumed_ = 0;
  std::unordered_set<std::uint32_t> threads_seen_;
  std::uint32_t last_thread_ = 0;  // seen: most records come from the thread before
  // Texts recently interned, by address. Most records name one of a few texts that the
  // recording thread keeps at a fixed address, so a hit skips hashing the text; the content
  // is compared too, since a text copied into a chunk may reuse the address of another.
  struct RecentText {
    const char* address = nullptr;
    std::string text;
    format::StringId id = 0;
  };
  static constexpr std::size_t kRecentTexts = 64;
  std::array<RecentText, kRecentTexts> recent_texts_;
  std::unordered_map<const char*, format::StringId> static_ids_;
  // Mangled kernel name -> id of its readable form (CUDA records carry the mangled one).
  std::unordered_map<std::string, format::StringId> kernel_ids_;
  std::unordered_set<std::uint64_t> ops_seen_;
  std::vector<format::ApiCallRow> api_calls_;
  std::vector<format::ActivityRow> activities_;
  std::vector<format::ExternalCorrelationRow> externals_;
  std::vector<format::MarkerRow> markers_;
  std::vector<format::MpiCallRow> mpi_calls_;
  std::vector<format::CommunicatorRow> communicators_;
  std::vector<format::CounterSampleRow> counters_;
  std::vector<format::CounterSessionRow> sessions_;
  std::vector<format::CodeObjectRow> code_objects_;
  std::vector<format::KernelSymbolRow> kernel_symbols_;
  std::vector<format::ClockSampleRow> clocks_;
  std::vector<format::OpNameRow> op_names_;
  std::vector<format::ThreadRow> threads_;
  std::vector<format::AnnotationRow> annotations_;
  bool ticks_;
  TickConverter tick_converter_;
  std::vector<format::TickCalibrationRow> tick_pairs_;
};

}  // namespace rocprof::recorder
