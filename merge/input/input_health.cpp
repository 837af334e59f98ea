#include "merge/input/input_health.hpp"

#include <fmt/format.h>

namespace rocprof::merge {

namespace {

// "rank 3" or "ranks 1,4,7" (the first 16, then "...").
std::string rank_list(const std::vector<std::int32_t>& ranks) {
  std::string list = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size() && i < 16; ++i)
    list += (i == 0 ? "" : ",") + std::to_string(ranks[i]);
  if (ranks.size() > 16) list += ",...";
  return list;
}

}  // namespace

InputHealth InputHealth::of(const RankSet& set) {
  InputHealth health;
  health.ranks = set.ranks().size();
  for (const RankSet::Rank& rank : set.ranks()) {
    const format::RankFileStatus& status = rank.reader->status();
    if (!status.complete) health.incomplete.push_back(rank.rank);
    if (status.records_dropped > 0) {
      health.dropping.push_back(rank.rank);
      health.dropped += status.records_dropped;
    }
  }
  return health;
}

std::vector<std::string> InputHealth::warnings() const {
  std::vector<std::string> lines;
  if (!incomplete.empty())
    lines.push_back(fmt::format(
        "{} of {} rank files incomplete ({}: the rank ended before its recorder finished the "
        "file, so events after its last flush are missing)",
        incomplete.size(), ranks, rank_list(incomplete)));
  if (!dropping.empty())
    lines.push_back(fmt::format(
        "{} records dropped by the recorder ({}: its buffers were full), missing from the "
        "timeline",
        dropped, rank_list(dropping)));
  return lines;
}

void InputHealth::print(std::FILE* out) const {
  fmt::print(out, "Input: {} ranks, {} incomplete rank files, {} records dropped\n", ranks,
             incomplete.size(), dropped);
}

}  // namespace rocprof::merge
