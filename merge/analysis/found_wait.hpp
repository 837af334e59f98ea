// A wait as merge processes send it to be blamed (wait_states.cpp): found where its calls
// met, sent to the waiting rank's process for its call path, then with the call path's number
// to the awaited rank's process for its cause. A blame part is the number of call paths, each
// path (ByteWriter::put_string), then the PathedWaits (ByteWriter::put_bytes).
#pragma once

#include <cstdint>

#include "merge/analysis/wait_patterns.hpp"

namespace rocprof::merge {

// A wait found where its calls met, on its way to the waiting rank's process (its call path)
// and then to the awaited rank's (its cause). A late-sender candidate is one message of a
// receiving call; the call waits only for the latest of its messages' senders.
struct FoundWait {
  std::uint64_t call_begin;
  std::uint64_t call_end;
  std::uint64_t from;
  std::uint64_t to;  // a candidate: its send's begin
  std::int32_t waiting;
  std::int32_t awaited;
  std::uint32_t thread_id;
  std::uint16_t function;
  WaitPattern pattern;
  std::uint8_t candidate;
};

// A wait on its way to be blamed, with the number of its call path among its part's.
struct PathedWait {
  FoundWait wait;
  std::uint32_t call_path;
};

}  // namespace rocprof::merge
