// How many of the launched merge processes merge a job. More processes than the job can keep
// busy only cost: each adds start-up, exchanges and a part to join, and processes that share
// a node's CPUs take them from each other's reading and encoding threads. So a small job is
// merged by fewer processes, and processes that share a pool of CPUs get a few each; the
// others only help check the files, then stop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocprof::merge {

// Records each merging process gets at least: below this a process's share is done sooner
// than the exchanges it adds (docs/PERFORMANCE.md, the merge by process count).
inline constexpr std::uint64_t kLeastRecordsPerProcess = std::uint64_t{512} << 10;
// CPUs each merging process gets where a node's processes share their CPUs (mpirun
// --bind-to none, srun without -c): its reading, encoding and summing threads. Outputs
// written in parts gain from more processes; one whose first process writes every chunk the
// others encode (.h5 without --h5-parts) from fewer, with more CPUs each.
inline constexpr std::uint32_t kCpusPerMergingProcess = 2;
inline constexpr std::uint32_t kCpusPerSingleWriterProcess = 4;

// One launched process, as every process sees it.
struct ProcessPlace {
  std::uint32_t node = 0;     // the same for the processes of one node
  std::uint32_t on_node = 0;  // its place among its node's processes, from 0
  std::uint32_t cpus = 1;     // the CPUs of its affinity mask
  // The CPUs of all its node's processes' masks together (the same on one node).
  std::uint32_t node_cpus = 1;
};

// What bounds the merging processes (ROCPROF_MERGE_PROCESSES): auto is these defaults, all
// is no limit, a number N is `most` alone.
struct MergingLimits {
  std::uint64_t records_per_process = kLeastRecordsPerProcess;  // 0: no such limit
  std::uint32_t cpus_per_process = kCpusPerMergingProcess;      // 0: no such limit
  std::size_t most = 0;                                         // 0: no such limit
};

// The processes that merge, in ascending order of their index in `places`: the first one
// always. Per node: all of them where their masks do not overlap (each has CPUs of its own),
// else one per `cpus_per_process` CPUs of the node's, spread over the node's places (so that
// processes bound to different sockets share the work). Of those, taken a node after another,
// at most one per `records_per_process` records of the job, and at most `most`.
std::vector<std::size_t> active_processes(const std::vector<ProcessPlace>& places,
                                          std::uint64_t records, const MergingLimits& limits);

}  // namespace rocprof::merge
