// OTF2 (the Score-P / Vampir format, through Debian's libotf2): an archive whose anchor file is
// the requested NAME.otf2 (definitions in NAME.def, events under NAME/). A location group per
// rank (under a system-tree node per host), a location per host thread and per GPU queue, and
// regions for MPI calls, API calls, device work and ROC-TX ranges, entered and left in time
// order on each location. Timer: 1 ns ticks of the reference rank's clock; the clock
// properties carry the wall-clock anchor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"

struct OTF2_Archive_struct;  // libotf2's archive (OTF2_Archive)

namespace rocprof::merge {

struct Otf2Stats {
  std::uint64_t events = 0;       // enter + leave records
  std::uint64_t mpi_records = 0;  // MPI sends, receives, completions and collectives
  std::uint64_t communicators = 0;
  std::uint64_t locations = 0;
  std::uint64_t regions = 0;
};

// An archive NAME.otf2 also owns NAME.def and the directory NAME/, which a new archive
// replaces. Returns why that cannot be done safely (NAME/ holds anything but OTF2's .evt and
// .def files, e.g. the rank files being merged), or an empty string.
std::string otf2_archive_conflict(const std::string& anchor_path);

// A parallel merge's share of the archive: each process writes the event files of its block
// of ranks' locations (with its own region numbering and a mapping table to the global one);
// the first writes the global definitions from what everyone reports. The functions are the
// merge group's (MPI); this library stays MPI-free.
struct Otf2Share {
  std::size_t first_rank = 0;  // this process's ranks: [first_rank, last_rank) of `ranks`
  std::size_t last_rank = 0;
  bool leader = true;
  std::function<void(OTF2_Archive_struct*)> set_collectives;  // OTF2's MPI collectives
  std::function<std::vector<std::vector<std::byte>>(const std::vector<std::byte>&)> all_gather;
  std::function<void()> barrier;
};

// Throws std::runtime_error naming the archive on errors, and refuses (before touching
// anything) where otf2_archive_conflict() finds a problem. Without `share`, one process writes
// every rank. Stats count this process's events (all of them in a serial merge).
Otf2Stats export_otf2(const std::vector<const AlignedRank*>& ranks, const std::string& anchor_path,
                      const ProgressReport& progress = {}, const Otf2Share* share = nullptr);

}  // namespace rocprof::merge
