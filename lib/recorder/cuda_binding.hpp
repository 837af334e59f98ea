// The recorder's side of the CUDA backend (lib/runtime/cuda, inside libroctracer64): its
// records go into the recorder's pool as private records, read back by the record sink.
#pragma once

#include <cstdint>
#include <string>

namespace rocprof::recorder {

// Starts CUDA tracing into the recording pool. False with `error` set if it cannot.
bool start_cuda_recording(std::string& error);
// Hands over every CUDA record still inside CUPTI (before the file is closed), or with
// `completed_only` only CUPTI's buffers of finished work (the periodic flushes).
void flush_cuda_recording(bool completed_only) noexcept;
// Records CUPTI dropped.
std::uint64_t cuda_records_dropped() noexcept;

}  // namespace rocprof::recorder
