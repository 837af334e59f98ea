// What the rank files say of their own completeness: ranks whose file was never closed
// (attribute complete = 0: the rank was killed, or crashed, before the recorder finished) and
// records the recorder dropped (attribute records_dropped: its buffers were full). The merge
// warns of each cause in one line and puts the counts in its summary.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "merge/input/rank_set.hpp"

namespace rocprof::merge {

struct InputHealth {
  std::vector<std::int32_t> incomplete;  // ranks whose file says complete = 0
  std::vector<std::int32_t> dropping;    // ranks whose recorder dropped records
  std::uint64_t dropped = 0;             // records dropped, all ranks together
  std::size_t ranks = 0;

  static InputHealth of(const RankSet& set);
  bool healthy() const noexcept { return incomplete.empty() && dropping.empty(); }
  // One line per cause (none if healthy), without the program's prefix.
  std::vector<std::string> warnings() const;
  // The summary's line: how many ranks' files are incomplete and how many records dropped.
  void print(std::FILE* out) const;
};

}  // namespace rocprof::merge
