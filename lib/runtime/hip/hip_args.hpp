// Decodes the arguments users need from a HIP API call's callback data (hip_api_data_t of
// the installed HIP headers): bytes and direction of copies, sets and allocations, grid and
// block of launches, the stream, and which kernel was launched.
#pragma once

#include <cstdint>
#include <span>

#include "lib/format/records.hpp"
#include "lib/runtime/hip/hip_kernel_ref.hpp"

namespace rocprof::runtime::hip {

// What travels from the API callback to the sink, ahead of the call's own record.
struct ApiArgsRow {
  std::uint64_t correlation_id;
  std::uint64_t stream;
  std::uint64_t bytes;
  std::uint32_t grid[3];   // launch grid in blocks
  std::uint32_t block[3];  // threads per block
  format::CopyDirection copy_direction;
};

// Fills `args` (correlation_id excepted) and `kernel` for the ops below; false for any other.
bool decode_hip_args(std::uint32_t op, const hip_api_data_s& data, ApiArgsRow& args,
                     KernelRef& kernel) noexcept;

// The HIP API ops decode_hip_args understands (the recorder subscribes to these only).
std::span<const std::uint32_t> hip_ops_with_args() noexcept;

}  // namespace rocprof::runtime::hip
