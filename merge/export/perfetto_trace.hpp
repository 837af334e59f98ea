// Perfetto's native protobuf trace (.pftrace, what ui.perfetto.dev and trace_processor open
// fastest): a process track per rank ("rank R (host)"), a thread track per host thread and a
// track per GPU queue; MPI calls, API calls, device work and ROC-TX ranges as slices; marks as
// instants; flows from each API call to the device work it issued. Written packet by packet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"

namespace rocprof::merge {

struct PerfettoStats {
  std::uint64_t slices = 0;
  std::uint64_t instants = 0;
  std::uint64_t flows = 0;
  std::uint64_t packets = 0;
};

// Throws std::runtime_error on I/O errors. `first_part`: this output begins the trace
// (a parallel merge writes consecutive parts that are concatenated; only the first starts
// the packet sequence).
PerfettoStats export_perfetto(const std::vector<const AlignedRank*>& ranks, const std::string& path,
                              bool first_part = true, const ProgressReport& progress = {});

}  // namespace rocprof::merge
