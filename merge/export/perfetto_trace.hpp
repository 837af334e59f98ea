// Perfetto's native protobuf trace (.pftrace, what ui.perfetto.dev and trace_processor open
// fastest): a process track per rank ("rank R (host)"), a thread track per host thread and a
// track per GPU queue; MPI calls, API calls, device work and ROC-TX ranges as slices; marks as
// instants; flows for messages, for API calls made inside MPI calls and from each API call to
// the device work it issued. Written packet by packet, names interned per rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
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
  std::uint64_t counters = 0;  // counter samples
  std::uint64_t packets = 0;
};

// Ranks encoded into memory before the export starts, from the first, while the merge
// matches the messages (the matching runs on one thread; the rest of the CPUs would wait).
// Encoded without the correction the matching decides: the merge drops those it corrects
// and writes them again. Within the same memory budget as the export's helpers.
class PerfettoHeadStart {
 public:
  // Starts encoding `ranks` (the export's, in the same order) on `threads` threads.
  PerfettoHeadStart(std::vector<const AlignedRank*> ranks, std::size_t threads);
  ~PerfettoHeadStart();
  PerfettoHeadStart(const PerfettoHeadStart&) = delete;
  PerfettoHeadStart& operator=(const PerfettoHeadStart&) = delete;

  // Takes up no more ranks and waits for those in hand: they are kept.
  void stop() noexcept;
  // After stop(): drops the ranks (by index) that `stale` names, those whose encoding the
  // matching changed. Returns the ranks read (their rows went to whatever watches them) whose
  // encoding is not kept: the export reads them again.
  std::vector<std::size_t> drop(const std::function<bool(std::size_t)>& stale);
  // Whether rank `index`'s encoding is kept for the export.
  bool kept(std::size_t index) const;
  std::size_t kept_count() const;

 private:
  friend PerfettoStats export_perfetto(const std::vector<const AlignedRank*>& ranks,
                                       const std::string& path, const ProgressReport& progress,
                                       std::size_t helpers, BlockFile::DirectIo direct_io,
                                       PerfettoHeadStart* head_start);
  struct State;
  std::unique_ptr<State> state_;
};

// Throws std::runtime_error on I/O errors. Each rank is a packet sequence of its own (with its
// own interned names), so the outputs of consecutive blocks of ranks, concatenated, are the
// output of all of them: a parallel merge writes parts and joins them.
// `helpers`: threads that encode ranks ahead of the one writing the file (0: every rank on
// the calling thread; EncodeAhead::helpers_for sizes them). The output is the same.
// `direct_io`: as for BlockFile (a part that is copied right after wants the page cache).
// `head_start`: ranks encoded already (stopped here if still running), appended in turn.
PerfettoStats export_perfetto(
    const std::vector<const AlignedRank*>& ranks, const std::string& path,
    const ProgressReport& progress = {}, std::size_t helpers = 0,
    BlockFile::DirectIo direct_io = BlockFile::direct_io_from_environment(),
    PerfettoHeadStart* head_start = nullptr);

}  // namespace rocprof::merge
