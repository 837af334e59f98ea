// The recorder's side of the CUDA backend (lib/runtime/cuda): its records go into the
// recorder's pool as private records, read back by the record sink.
#pragma once

#include <cstdint>
#include <string>

namespace rocprof::recorder {

// Starts CUDA tracing into the recording pool. False with `error` set if it cannot.
bool start_cuda_recording(std::string& error);
// Hands over every CUDA record still inside CUPTI (before the file is closed).
void flush_cuda_recording() noexcept;
// Records CUPTI dropped.
std::uint64_t cuda_records_dropped() noexcept;
// Name of an op of a CUDA domain ("cudaMemcpyAsync", "KERNEL"), "" if not one.
std::string cuda_op_name(std::uint32_t domain, std::uint32_t op);
// Whether `domain` is one of the CUDA domains.
bool is_cuda_domain(std::uint32_t domain) noexcept;

}  // namespace rocprof::recorder
