#include "merge/pipeline/phase_timings.hpp"

#include <cstddef>
#include <cstring>

#include <fmt/format.h>

namespace rocprof::merge {

std::vector<std::string> timing_lines(const MergeGroup& group, PhaseTimes phases) {
  if (group.launched() > 1) phases.insert(phases.begin(), {"starting MPI", group.start_seconds()});
  // Every process's seconds, as raw doubles (the processes run the same binary).
  std::vector<std::byte> mine(phases.size() * sizeof(double));
  for (std::size_t i = 0; i < phases.size(); ++i)
    std::memcpy(mine.data() + i * sizeof(double), &phases[i].second, sizeof(double));
  const std::vector<std::vector<std::byte>> all = group.all_gather(mine);
  if (!group.leader()) return {};
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    std::string line = fmt::format("{:.3f} s {}", phases[i].second, phases[i].first);
    if (all.size() > 1) {
      line += " (each process:";
      for (const std::vector<std::byte>& process : all) {
        double seconds = 0;
        // Every process goes through the same phases; one that did not is shown as "-".
        if (process.size() >= (i + 1) * sizeof(double)) {
          std::memcpy(&seconds, process.data() + i * sizeof(double), sizeof(double));
          line += fmt::format(" {:.3f}", seconds);
        } else {
          line += " -";
        }
      }
      line += ")";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace rocprof::merge
