// Perfetto's native protobuf trace (.pftrace, what ui.perfetto.dev and trace_processor open
// fastest): a process track per rank ("rank R (host)"), a thread track per host thread and a
// track per GPU queue; MPI calls, API calls, device work and ROC-TX ranges as slices; marks as
// instants; flows for messages, for API calls made inside MPI calls and from each API call to
// the device work it issued. Written packet by packet, names interned per rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/files/block_file.hpp"

namespace rocprof::merge {

struct PerfettoStats {
  std::uint64_t slices = 0;
  std::uint64_t instants = 0;
  std::uint64_t flows = 0;
  std::uint64_t packets = 0;
};

// Throws std::runtime_error on I/O errors. Each rank is a packet sequence of its own (with its
// own interned names), so the outputs of consecutive blocks of ranks, concatenated, are the
// output of all of them: a parallel merge writes parts and joins them.
// `helpers`: threads that encode ranks ahead of the one writing the file (0: every rank on
// the calling thread; EncodeAhead::helpers_for sizes them). The output is the same.
// `direct_io`: as for BlockFile (a part that is copied right after wants the page cache).
PerfettoStats export_perfetto(
    const std::vector<const AlignedRank*>& ranks, const std::string& path,
    const ProgressReport& progress = {}, std::size_t helpers = 0,
    BlockFile::DirectIo direct_io = BlockFile::direct_io_from_environment());

}  // namespace rocprof::merge
