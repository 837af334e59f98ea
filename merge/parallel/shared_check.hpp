// A parallel merge's check of the rank files, shared out: each process checks the files of
// its block (in numbered order, which for the recorder's names is rank order: the files it
// will read) and tells the others what it found, a digest of each file or its problem,
// instead of every process opening every file. The set is the one a serial merge builds, or
// the same InputError, on every process.
#pragma once

#include <string>
#include <vector>

#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_group.hpp"

namespace rocprof::merge {

// Collective. Throws InputError (the same on every process). `checked` and `refused` as for
// RankSet::open, for the files this process checks (those of other processes come as digests).
RankSet check_shared(const MergeGroup& group, const std::vector<std::string>& inputs,
                     const RankSetOptions& options, const RankSet::Checked& checked = {},
                     const RankSet::Refused& refused = {});

}  // namespace rocprof::merge
