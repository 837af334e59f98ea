// A parallel merge's check of the rank files, shared out: each process checks the files of
// its share (in numbered order, which for the recorder's names is rank order: the files it
// will read) and tells the others what it found, a digest of each file or its problem,
// instead of every process opening every file. The set is the one a serial merge builds, or
// the same InputError, on every process.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_group.hpp"

namespace rocprof::merge {

// What one process found in its share of the files. Found without MPI, so that it can be
// done while MPI starts (merge/parallel/early_check.hpp).
struct CheckedShare {
  std::size_t index = 0;  // the share: the block `index` of `processes`
  std::size_t processes = 1;
  std::vector<std::string> paths;  // every input file (RankSet::list), empty if listing failed
  std::string list_problem;        // why listing failed
  std::vector<RankSet::CheckedFile> files;  // one per path; those of this share are filled in
  std::vector<std::byte> found;             // this share's findings, for the other processes
};

// Checks share `index` of `processes` of the files of `inputs`. `checked` and `refused` as
// for RankSet::open, for the files checked here. Returns early, with the files checked so
// far, once `stop` is set (the share is then dropped). Each file's problem is kept, not
// thrown. `helpers`: check helpers for the share's files.
CheckedShare check_share(const std::vector<std::string>& inputs, std::size_t index,
                         std::size_t processes, const RankSet::Checked& checked = {},
                         const RankSet::Refused& refused = {},
                         const std::atomic<bool>* stop = nullptr,
                         const CheckHelperSetting& helpers = {});

// Collective: every process's share put together. Throws InputError (the same on every
// process); `refused` as for RankSet::open.
RankSet join_shares(const MergeGroup& group, CheckedShare share, const RankSetOptions& options,
                    const RankSet::Refused& refused = {});

// Both in turn, for this process's share.
RankSet check_shared(const MergeGroup& group, const std::vector<std::string>& inputs,
                     const RankSetOptions& options, const RankSet::Checked& checked = {},
                     const RankSet::Refused& refused = {});

}  // namespace rocprof::merge
