// OTF2 (the Score-P / Vampir format, through Debian's libotf2): an archive whose anchor file is
// the requested NAME.otf2 (definitions in NAME.def, events under NAME/). A location group per
// rank (under a system-tree node per host), a location per host thread and per GPU queue, and
// regions for MPI calls, API calls, device work and ROC-TX ranges, entered and left in time
// order on each location. Timer: 1 ns ticks of the reference rank's clock; the clock
// properties carry the wall-clock anchor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/parallel/merge_share.hpp"

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

// Throws std::runtime_error naming the archive on errors, and refuses (before touching
// anything) where otf2_archive_conflict() finds a problem. With `share` (OTF2's parallel
// mode), each process writes its ranks' locations' event files with its own region numbering
// and a mapping table to the global one, and the leader the global definitions; without, one
// process writes every rank. Stats count this process's events (all of them when serial).
Otf2Stats export_otf2(const std::vector<const AlignedRank*>& ranks, const std::string& anchor_path,
                      const ProgressReport& progress = {}, const MergeShare* share = nullptr);

}  // namespace rocprof::merge
