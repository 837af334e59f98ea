// A rocpd database of the merged job (rocprof-merge -o job.db): the aligned, corrected ranks in
// rocprofiler-sdk's SQLite format, so that AMD's tools (rocpd query/summary/convert, Optiq) and
// plain sqlite3 read them, with message pairs in tables of our own. docs/ROCPD.md.
//
// The database is one profile (one guid) holding every rank as a process. Row ids are made
// from the rank, so that every process of a parallel merge writes its block of ranks into a
// file of its own and the first adds them to the output without renumbering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/parallel/merge_share.hpp"

namespace rocprof::merge {

// Writes ranks [first, last) of `ranks` (every rank of the job) into `path`, a new file. With
// `share` (a parallel merge), every process writes its block as a part beside `path` and the
// first process adds the parts to `path`. Returns the events (regions, samples, dispatches,
// copies, other device work) this process wrote. Throws std::runtime_error naming the file.
std::uint64_t export_rocpd(const std::vector<const AlignedRank*>& ranks, std::size_t first,
                           std::size_t last, const std::string& job_id, const std::string& path,
                           const ProgressReport& progress = {}, const MergeShare* share = nullptr);

// The profile's guid: a version-7 UUID whose time is the job's start (`start_realtime_ns`) and
// whose other bits come from the job id, so that every merge of a job names it alike.
std::string rocpd_guid(const std::string& job_id, std::uint64_t start_realtime_ns);

}  // namespace rocprof::merge
