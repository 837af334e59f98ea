#include "merge/analysis/wait_states.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "merge/files/csv_file.hpp"

namespace rocprof::merge {
namespace {

double ms(double ns) { return ns / 1e6; }

}  // namespace

std::array<WaitTotals, kWaitPatterns> WaitStateReport::by_pattern() const {
  std::array<WaitTotals, kWaitPatterns> totals{};
  for (const auto& [key, total] : waits) {
    WaitTotals& into = totals[static_cast<std::size_t>(std::get<0>(key))];
    into.count += total.count;
    into.total_ns += total.total_ns;
  }
  return totals;
}

std::map<std::int32_t, std::array<double, kWaitPatterns>> WaitStateReport::by_rank() const {
  std::map<std::int32_t, std::array<double, kWaitPatterns>> totals;
  for (const auto& [key, total] : waits) {
    auto [entry, added] = totals.try_emplace(std::get<1>(key));
    if (added) entry->second.fill(0);
    entry->second[static_cast<std::size_t>(std::get<0>(key))] += total.total_ns;
  }
  return totals;
}

namespace {

// The waits added up by what `project` keeps of their key, largest total first.
template <typename Project>
auto added_up_by(const std::map<WaitStateReport::Key, WaitTotals>& waits, Project project) {
  using Key = decltype(project(waits.begin()->first));
  std::map<Key, WaitTotals> totals;
  for (const auto& [key, total] : waits) {
    WaitTotals& into = totals[project(key)];
    into.count += total.count;
    into.total_ns += total.total_ns;
  }
  std::vector<std::pair<Key, WaitTotals>> sorted(totals.begin(), totals.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });
  return sorted;
}

}  // namespace

std::vector<std::pair<std::tuple<WaitPattern, std::int32_t, std::string>, WaitTotals>>
WaitStateReport::by_cause() const {
  return added_up_by(waits, [](const Key& key) {
    return std::tuple{std::get<0>(key), std::get<4>(key), std::get<5>(key)};
  });
}

std::vector<std::pair<std::tuple<WaitPattern, std::string, std::string>, WaitTotals>>
WaitStateReport::by_call_path() const {
  return added_up_by(waits, [](const Key& key) {
    return std::tuple{std::get<0>(key), std::get<3>(key), std::get<2>(key)};
  });
}

void WaitStateReport::print(std::FILE* out, double mpi_ns, std::size_t top) const {
  if (empty()) return;
  fmt::print(out,
             "Wait states: MPI time spent waiting for another rank (ms; share = of all MPI "
             "time)\n  {:<16} {:>10} {:>11} {:>7}\n",
             "pattern", "instances", "total", "share");
  const auto patterns = by_pattern();
  for (int p = 0; p < kWaitPatterns; ++p) {
    const WaitTotals& total = patterns[static_cast<std::size_t>(p)];
    if (total.count == 0) continue;
    fmt::print(out, "  {:<16} {:>10} {:>11.3f} {:>6.1f}%\n",
               wait_pattern_name(static_cast<WaitPattern>(p)), total.count, ms(total.total_ns),
               mpi_ns > 0 ? 100.0 * total.total_ns / mpi_ns : 0.0);
  }
  fmt::print(out, "Wait states per waiting rank (ms)\n  {:>4}", "rank");
  for (int p = 0; p < kWaitPatterns; ++p)
    fmt::print(out, " {:>15}", wait_pattern_name(static_cast<WaitPattern>(p)));
  fmt::print(out, "\n");
  for (const auto& [rank, totals] : by_rank()) {
    fmt::print(out, "  {:>4}", rank);
    for (const double total : totals) fmt::print(out, " {:>15.3f}", ms(total));
    fmt::print(out, "\n");
  }
  fmt::print(out,
             "Wait states by cause: what the awaited rank was doing (ms)\n  {:<16} {:>7} "
             "{:<40} {:>10} {:>11}\n",
             "pattern", "awaited", "cause", "instances", "total");
  const auto causes = by_cause();
  for (std::size_t i = 0; i < causes.size() && i < top; ++i) {
    const auto& [key, total] = causes[i];
    fmt::print(out, "  {:<16} {:>7} {:<40} {:>10} {:>11.3f}\n", wait_pattern_name(std::get<0>(key)),
               std::get<1>(key), std::get<2>(key), total.count, ms(total.total_ns));
  }
  fmt::print(out,
             "Wait states by call path: the waiting call and its regions (ms)\n  {:<16} {:<16} "
             "{:<40} {:>10} {:>11}\n",
             "pattern", "function", "call path", "instances", "total");
  const auto paths = by_call_path();
  for (std::size_t i = 0; i < paths.size() && i < top; ++i) {
    const auto& [key, total] = paths[i];
    fmt::print(out, "  {:<16} {:<16} {:<40} {:>10} {:>11.3f}\n",
               wait_pattern_name(std::get<0>(key)), std::get<1>(key),
               std::get<2>(key).empty() ? "(no region)" : std::get<2>(key), total.count,
               ms(total.total_ns));
  }
  if (mismatched_collectives > 0)
    fmt::print(out,
               "  {} collective instances not analysed: their ranks' records name different "
               "functions\n",
               mismatched_collectives);
}

bool WaitStateReport::write_csv(const std::string& prefix, std::string& error) const {
  CsvFile file(prefix + "_waits.csv",
               "pattern,rank,call_path,function,awaited_rank,cause,count,total_ns");
  for (const auto& [key, total] : waits)
    file.row("{},{},{},{},{},{},{},{:.0f}", wait_pattern_name(std::get<0>(key)), std::get<1>(key),
             csv_text(std::get<2>(key)), std::get<3>(key), std::get<4>(key),
             csv_text(std::get<5>(key)), total.count, total.total_ns);
  return file.close(error);
}

}  // namespace rocprof::merge
