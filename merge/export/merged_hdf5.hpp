// The merged HDF5 file, for analysis (h5py, pandas): every rank's rows in one table per record
// kind with a `rank` column, timestamps on the reference rank's clock, string ids into one
// shared `strings` table, plus a `ranges` table of paired ROC-TX ranges and user regions.
// Same column layout as the rank files (docs/FORMAT.md), compressed with zstd; chunks are
// encoded by the format module and written whole, as the recorder writes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/parallel/merge_share.hpp"

namespace rocprof::merge {

// Returns the number of rows written (on the writer; 0 elsewhere). Throws std::runtime_error
// naming the file on errors. With `share`, every process encodes its block's chunks and the
// leader writes them all (the others send theirs); without, one process writes every rank.
// `encoders`: chunks compressed at once on helper threads (at least one); `stagers`: helper
// threads that make the next ranks' rows of a table ready while the merge's thread copies
// one (0: none). The output is the same.
std::uint64_t export_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                 const std::string& job_id, const std::string& path,
                                 const ProgressReport& progress = {},
                                 const MergeShare* share = nullptr, std::size_t encoders = 1,
                                 std::size_t stagers = 0);

// The same rows as a set of files, for a parallel merge whose processes each write their
// own (`rocprof-merge --h5-parts`): each process writes its block as
// linked_part_path(`path`, INDEX), and the first process writes `path` itself, whose tables'
// columns are HDF5 virtual datasets over the parts' (part after part, in process order), with
// the attributes and the string table. `output_name`: the output's file name once moved into
// place, which names the parts relative to its directory. Collective over the share; returns
// the rows (on the first process; 0 elsewhere).
std::uint64_t export_linked_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                        const std::string& job_id, const std::string& path,
                                        const std::string& output_name,
                                        const ProgressReport& progress, const MergeShare& share,
                                        std::size_t encoders = 1, std::size_t stagers = 0);

}  // namespace rocprof::merge
