// What a rank file says about the process that wrote it (root attributes, docs/FORMAT.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocprof::format {

struct RankMetadata {
  std::string tool_version;
  std::string job_id;      // scheduler job id, "" if none
  std::int32_t rank = -1;  // world rank, -1 if unknown
  std::int32_t size = -1;  // world size, -1 if unknown
  std::string hostname;
  std::uint32_t pid = 0;
  std::vector<std::string> command_line;
  std::uint64_t start_realtime_ns = 0;  // CLOCK_REALTIME at start (wall-clock anchor)
  std::uint64_t start_clock_ns = 0;     // the trace clock at the same moment
  std::string clock = "CLOCK_BOOTTIME";
  // How MPI calls and ROC-TX records were stamped (since 2.4): "tsc" (ticks converted to `clock` ns
  // by the pairs of table tick_calibration) or "clock_gettime" (read directly; also older files).
  std::string timestamp_source = "clock_gettime";
  std::string compression;  // as Compression::to_string()
  std::uint32_t flush_interval_ms = 0;
  // The world ranks the run traced ("0,4-7", format/rank_list.hpp), "" if every rank.
  std::string traced_ranks;
  // The traced process that started this one (fork + exec), 0 if none: the rank's own
  // process has 0, a helper program it ran has its pid.
  std::uint32_t parent_pid = 0;
};

// Attributes that change while the file is written; final once `complete` is true.
struct RankFileStatus {
  bool complete = false;  // closed cleanly
  std::uint64_t records_dropped = 0;
  std::uint64_t last_flush_clock_ns = 0;
};

}  // namespace rocprof::format
