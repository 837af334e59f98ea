// A list of world ranks ("0,4-7"): which ranks a run traced (rocprof-mpi --mpi-ranks,
// ROCPROF_MPI_RANKS). The recorder reads it to decide whether to trace, writes it into each
// rank file (attribute traced_ranks), and the merge reads it back to tell ranks left out on
// purpose from missing files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rocprof::format {

struct RankList {
  std::vector<std::pair<std::int32_t, std::int32_t>> ranges;  // inclusive; empty: every rank
  bool contains(std::int32_t rank) const noexcept;
};

// Parses "0,4-7" (ranks and inclusive ranges, comma-separated, at least one). False with
// `error` saying what is wrong.
bool parse_rank_list(const std::string& text, RankList& out, std::string& error);

}  // namespace rocprof::format
