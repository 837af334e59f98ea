// The window of interest of the analysis (rocprof-merge --window): the steady state of a run
// rather than its MPI_Init, MPI_Finalize and GPU context creation. Either a time range from
// the job's first record ("2.5s-10s", units s, ms, us or ns) or a range of instances of a
// region or ROC-TX range ("iteration#10-#49": from the earliest begin of its instance 10 on
// any rank to the latest end of its instance 49, counting from 0 on each rank's thread that
// ran it most). Wait states are cut to the window; the critical path is walked back from its
// end to its start.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merge/analysis/analysis_exchange.hpp"
#include "merge/analysis/wait_input.hpp"

namespace rocprof::merge {

struct WindowSpec {
  std::string text;    // as given
  std::string region;  // empty: a time range
  std::uint64_t first_instance = 0;
  std::uint64_t last_instance = 0;
  std::uint64_t from_ns = 0;  // a time range, from the job's first record
  std::uint64_t to_ns = 0;
};

// nullopt with `error` set when `text` is neither form.
std::optional<WindowSpec> parse_window(std::string_view text, std::string& error);

struct TimeWindow {
  std::uint64_t begin_ns = 0;  // on the merged clock
  std::uint64_t end_ns = ~std::uint64_t{0};
  std::int32_t end_rank = -1;  // a region window: the rank whose last instance ended last
  std::string text;            // "" for the whole run
  bool whole() const noexcept { return text.empty(); }
};

// Collective over the analysis's processes: the window on the merged clock, from each
// process's ranks (their regions) and `job_begin_ns` (the job's first record, read on the
// first process). A region no rank ran often enough, or one whose records were joined
// (doing_list.hpp), gives the whole run and `problem` set, on the first process.
TimeWindow resolve_window(const WindowSpec& spec, const std::vector<RankWaitInput>& mine,
                          std::uint64_t job_begin_ns, const AnalysisExchange& exchange,
                          std::string& problem);

}  // namespace rocprof::merge
