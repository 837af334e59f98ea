// The merged HDF5 file, for analysis (h5py, pandas): every rank's rows in one table per record
// kind with a `rank` column, timestamps on the reference rank's clock, string ids into one
// shared `strings` table, plus a `ranges` table of paired ROC-TX ranges and user regions.
// Same column layout as the rank files (docs/FORMAT.md), compressed with zstd; chunks are
// encoded by the format module and written whole, as the recorder writes them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"

namespace rocprof::merge {

// A parallel merge's share of the file: this process turns its block of ranks into encoded
// chunks; the first process writes the file, its own chunks and everyone else's (sent as
// messages). The functions are the merge group's (MPI); this library stays MPI-free.
struct MergedHdf5Share {
  std::size_t first_rank = 0;  // this process's ranks: [first_rank, last_rank) of `ranks`
  std::size_t last_rank = 0;
  std::size_t index = 0;  // this process's place in process order
  bool writer = true;     // the process that writes the file
  int senders = 0;        // the processes that send chunks to the writer
  std::function<void(const std::vector<std::byte>&)> send;          // to the writer
  std::function<bool(std::vector<std::byte>&, bool)> receive;       // the writer's: (msg, wait)
  std::function<std::vector<std::uint64_t>(std::uint64_t)> gather;  // every process's value
};

// Returns the number of rows written (on the writer; 0 elsewhere). Throws std::runtime_error
// naming the file on errors. Without `share`, one process writes every rank.
std::uint64_t export_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                 const std::string& job_id, const std::string& path,
                                 const ProgressReport& progress = {},
                                 const MergedHdf5Share* share = nullptr);

}  // namespace rocprof::merge
