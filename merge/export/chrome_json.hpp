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

// Writes every rank's events; timestamps are microseconds since `origin_ns` (reference
// clock). Returns the number of trace events written. Throws std::runtime_error on I/O errors.
std::uint64_t export_chrome_json(const std::vector<const AlignedRank*>& ranks,
                                 std::uint64_t origin_ns, const std::string& path,
                                 const ProgressReport& progress = {});

// Past this many events a JSON trace is slow to load: the front end warns.
inline constexpr std::uint64_t kLargeJsonEvents = 2'000'000;

}  // namespace rocprof::merge
