// Chrome trace-event JSON (opens in Perfetto UI and chrome://tracing): a process per rank, a
// track per host thread and per GPU queue, MPI calls, API calls, device work, ROC-TX ranges
// and marks on the reference clock, and flows from each API call to the device work it
// issued. Meant for small traces: it is written as text and loaded whole by viewers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"

namespace rocprof::merge {

// Which part of the trace a file holds: a parallel merge writes consecutive blocks of ranks
// as parts that, concatenated, are the serial output. A part that is not first continues the
// events of one before it, so it must not be empty of ranks unless it is also the last.
struct JsonPart {
  bool first = true;  // opens the trace
  bool last = true;   // closes it
};

// Writes the ranks' events; timestamps are microseconds since `origin_ns` (reference clock).
// Returns the number of trace events written. Throws std::runtime_error on I/O errors.
std::uint64_t export_chrome_json(const std::vector<const AlignedRank*>& ranks,
                                 std::uint64_t origin_ns, const std::string& path,
                                 const ProgressReport& progress = {}, const JsonPart& part = {});

// Past this many events a JSON trace is slow to load: the front end warns.
inline constexpr std::uint64_t kLargeJsonEvents = 2'000'000;

}  // namespace rocprof::merge
