// Names of GPU queues and copies on the merged timeline, the same in every output: a CUDA
// queue is a device's stream, a HIP/HSA queue a device's queue.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include "lib/format/records.hpp"
#include "lib/include/rocprof-mpi/cuda_domains.h"
#include "lib/include/rocprof-mpi/hip_commands.h"

namespace rocprof::merge {

// ACTIVITY_DOMAIN_HIP_OPS of roctracer (the merge reads files, not the tracer's headers).
inline constexpr std::uint8_t kHipOpsDomain = 2;

// A CUDA host wait (a host thread waiting in a synchronising call, recorded as an activity of
// no device): the host's time, not GPU work.
inline bool is_host_wait(const format::ActivityRow& row) { return row.device_id < 0; }

// The track of a GPU queue ("GPU 0 stream 13", "GPU 1 queue 4"); CUDA host waits, which
// belong to no device, get a track of their own.
inline std::string gpu_track_name(std::uint8_t domain, std::int32_t device, std::uint64_t queue) {
  if (domain != ROCPROF_MPI_DOMAIN_CUDA_OPS) return fmt::format("GPU {} queue {}", device, queue);
  if (device < 0) return "CUDA host waits";
  return fmt::format("GPU {} stream {}", device, queue & 0xffffffffU);
}

// A copy's name by its kind: CUDA's CUpti_ActivityMemcpyKind, HIP's command kind
// ("CopyHostToDevice"), else the runtime's number.
inline std::string copy_name(std::uint8_t domain, std::uint32_t kind) {
  static constexpr const char* kCudaKinds[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                               "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  if (domain == ROCPROF_MPI_DOMAIN_CUDA_OPS && kind < std::size(kCudaKinds))
    return fmt::format("memcpy {}", kCudaKinds[kind]);
  if (domain == kHipOpsDomain)
    if (const char* command = rocprof_mpi_hip_command_name(kind)) return command;
  return fmt::format("copy (kind {})", kind);
}

// What a copy reads or writes, as the outputs show it ("pinned", "device"); "" when unknown.
inline const char* memory_kind_name(format::MemoryKind kind) {
  static constexpr const char* kNames[] = {"",      "pageable", "pinned",        "device",
                                           "array", "managed",  "device static", "managed static"};
  const auto index = static_cast<std::size_t>(kind);
  return index < std::size(kNames) ? kNames[index] : "";
}

}  // namespace rocprof::merge
