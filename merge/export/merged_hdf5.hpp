// The merged HDF5 file, for analysis (h5py, pandas): every rank's rows in one table per record
// kind with a `rank` column, timestamps on the reference rank's clock, string ids into one
// shared `strings` table, plus a `ranges` table of paired ROC-TX ranges and user regions.
// Same column layout as the rank files (docs/FORMAT.md), compressed with zstd; chunks are
// encoded by the format module and written whole, as the recorder writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/parallel/merge_share.hpp"

namespace rocprof::merge {

// This process's first ranks' rows of the first table the export copies, made ready as the
// export's helpers make them (read, times aligned, string ids global), while the merge matches
// the messages: the matching runs on one thread of the first process, and every other CPU would
// wait. Made without the correction the matching decides: the merge drops the ranks it changes,
// and the export makes them again in their turn. Only ranks whose table is one chunk read
// without HDF5 (those the export's helpers take), within the export's budget of rows staged.
class MergedHdf5HeadStart {
 public:
  // `ranks`: the export's, all of them; this process's block is [first, last) of them.
  // `parallel`: the export is shared by several processes (it then counts a rank's ranges as
  // its markers are made ready). Starts `threads` threads.
  MergedHdf5HeadStart(std::vector<const AlignedRank*> ranks, std::size_t first, std::size_t last,
                      bool parallel, std::size_t threads);
  ~MergedHdf5HeadStart();
  MergedHdf5HeadStart(const MergedHdf5HeadStart&) = delete;
  MergedHdf5HeadStart& operator=(const MergedHdf5HeadStart&) = delete;

  // Takes up no more ranks and waits for those in hand: they are kept.
  void stop() noexcept;
  // After stop(): drops the ranks (by index in the block) that `stale` names.
  void drop(const std::function<bool(std::size_t)>& stale);
  // By index in the block: whether the rank was read (its rows went to whatever watches the
  // rank), and whether its rows are kept for the export.
  bool started(std::size_t index) const;
  bool kept(std::size_t index) const;
  std::size_t kept_count() const;

 private:
  friend std::uint64_t export_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                          const std::string& job_id, const std::string& path,
                                          const ProgressReport& progress, const MergeShare* share,
                                          std::size_t encoders, std::size_t stagers,
                                          MergedHdf5HeadStart* head_start);
  struct State;
  std::unique_ptr<State> state_;
};

// Returns the number of rows written (on the writer; 0 elsewhere). Throws std::runtime_error
// naming the file on errors. With `share`, every process encodes its block's chunks and the
// leader writes them all (the others send theirs); without, one process writes every rank.
// `encoders`: chunks compressed at once on helper threads (at least one); `stagers`: helper
// threads that make the next ranks' rows of a table ready while the merge's thread copies
// one (0: none). `head_start`: rows made ready already (stopped here if still running), for
// the same ranks and block. The output is the same.
std::uint64_t export_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                 const std::string& job_id, const std::string& path,
                                 const ProgressReport& progress = {},
                                 const MergeShare* share = nullptr, std::size_t encoders = 1,
                                 std::size_t stagers = 0,
                                 MergedHdf5HeadStart* head_start = nullptr);

}  // namespace rocprof::merge
