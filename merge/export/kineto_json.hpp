// Per-rank Kineto-style trace JSON, the files PyTorch's profiler writes and Holistic Trace
// Analysis (HTA) reads: one file per rank with `distributedInfo` (rank, world size),
// `deviceProperties`, and trace events in Kineto's categories: `kernel`, `gpu_memcpy`,
// `gpu_memset` on each device's streams; `cuda_runtime`/`cuda_driver` calls with `ac2g` flows
// to the work they launched; `user_annotation` ranges; MPI calls as `cpu_op` events with the
// communication arguments of PyTorch's collectives. docs/HTA.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"

namespace rocprof::merge {

// Writes `directory`/rank<R>.json for each rank of `ranks`; `world_size` ranks in the job;
// times in microseconds since `origin_ns` (reference clock). Returns the events written.
// Throws std::runtime_error naming the file on errors.
std::uint64_t export_kineto_json(const std::vector<const AlignedRank*>& ranks,
                                 std::int32_t world_size, std::uint64_t origin_ns,
                                 const std::string& directory, const ProgressReport& progress = {});

// The file of rank `rank` in the directory.
std::string kineto_rank_file(std::int32_t rank);

}  // namespace rocprof::merge
