// Arguments of CUDA runtime calls that users need on the timeline (bytes and direction of
// copies, grid and block of launches, the stream waited for), read from the parameter
// structures CUPTI's callback API hands over. Pure: unit-tested with structures built by hand.
#pragma once

#include <cstdint>

#include "lib/format/records.hpp"

namespace rocprof::runtime::cuda {

// Fills the argument fields of `row` (stream, bytes, grid, block, copy_direction) for the
// runtime call `cbid` whose parameters are `params`; leaves them alone for other calls.
void decode_runtime_args(std::uint32_t cbid, const void* params, format::ApiCallRow& row) noexcept;

}  // namespace rocprof::runtime::cuda
