// CUPTI activity records as rank-file rows: the pure part of the CUDA backend (no CUPTI
// library or GPU needed), unit-tested with records built by hand.
#pragma once

#include <cupti_activity.h>

#include <cstdint>

#include "lib/format/records.hpp"

namespace rocprof::runtime::cuda {

// One activity record's row (its kernel_name left 0) and the raw, mangled kernel name when
// it has one (CUPTI owns the text).
struct ConvertedActivity {
  format::ActivityRow row;
  const char* kernel_name = nullptr;
};

// False for kinds that are not GPU work the timeline shows (external correlations are read
// by the tracer itself).
bool convert_activity(const CUpti_Activity& record, ConvertedActivity& out) noexcept;

// The queue a GPU operation ran on: device and stream, unique in the process.
std::uint64_t queue_of(std::uint32_t device, std::uint32_t stream) noexcept;

// Name of an op of ROCPROF_MPI_DOMAIN_CUDA_OPS ("KERNEL", "MEMCPY", ...), nullptr if none.
const char* cuda_op_name(std::uint32_t op) noexcept;

}  // namespace rocprof::runtime::cuda
