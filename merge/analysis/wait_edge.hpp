// One wait as the critical path and the timeline outputs see it: rank `waiting` could not go
// on in [from, to) until rank `awaited` got there.
#pragma once

#include <cstdint>

#include "merge/analysis/wait_patterns.hpp"

namespace rocprof::merge {

struct WaitEdge {
  std::int32_t waiting;
  std::int32_t awaited;
  std::uint64_t from;
  std::uint64_t to;
  WaitPattern pattern;
  std::uint32_t cause;  // index into the report's causes
};

}  // namespace rocprof::merge
