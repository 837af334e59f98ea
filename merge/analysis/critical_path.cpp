#include "merge/analysis/critical_path.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "merge/analysis/activity_names.hpp"
#include "merge/analysis/rank_doings.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/files/csv_file.hpp"

namespace rocprof::merge {

std::vector<CriticalPath::Stretch> walk_critical_path(const JobEdges& edges, const RankSpans& spans,
                                                      const TimeWindow& window) {
  std::vector<CriticalPath::Stretch> stretches;
  if (spans.empty()) return stretches;
  // From the rank that ended last (the lowest of several), or the window's end.
  std::int32_t rank = spans.begin()->first;
  for (const auto& [candidate, span] : spans)
    if (span.second > spans.at(rank).second) rank = candidate;
  std::uint64_t t = std::min(spans.at(rank).second, window.end_ns);
  if (spans.contains(window.end_rank)) {
    rank = window.end_rank;
    t = window.end_ns;
  }
  // Each step goes strictly back in time: at most one step per wait, plus the last.
  for (std::uint64_t steps = 0; steps <= edges.size(); ++steps) {
    const auto span = spans.find(rank);
    const std::uint64_t first =
        std::min(std::max(span == spans.end() ? t : span->second.first, window.begin_ns), t);
    const std::optional<JobEdges::Arrival> latest = edges.latest_before(rank, t);
    if (!latest || latest->to <= first) {
      if (first < t) stretches.push_back({rank, first, t});
      break;
    }
    stretches.push_back({rank, latest->to, t});
    rank = latest->awaited;
    t = latest->to;
  }
  return stretches;
}

CriticalPath find_critical_path(const std::vector<RankWaitInput>& mine,
                                const WaitStateReport& waits, const RankSpans& spans,
                                const AnalysisExchange& exchange, const TimeWindow& window) {
  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  std::vector<std::byte> walked;
  if (exchange.index() == 0) {
    ByteWriter out;
    out.put_vector(walk_critical_path(waits.edges, spans, window));
    walked = out.take();
  }
  const auto walked_at = Clock::now();
  const std::vector<std::byte> broadcast = broadcast_from_first(exchange, walked);
  ByteReader stretches_in(broadcast);
  const auto stretches = stretches_in.get_vector<CriticalPath::Stretch>();
  // This process's ranks' stretches, shared out among their doings.
  std::map<std::int32_t, const RankWaitInput*> inputs;
  for (const RankWaitInput& input : mine) inputs[input.rank] = &input;
  std::map<std::int32_t, RankDoings> doings;
  std::map<std::string, double> by_activity;
  for (const CriticalPath::Stretch& stretch : stretches) {
    const auto input = inputs.find(stretch.rank);
    if (input == inputs.end()) continue;
    const RankDoings& of_rank = doings.try_emplace(stretch.rank, *input->second).first->second;
    of_rank.attribute(stretch.from, stretch.to,
                      [&](const std::string& name, double ns) { by_activity[name] += ns; });
  }
  ByteWriter out;
  out.put<std::uint64_t>(inputs.size());
  for (const auto& [rank, input] : inputs) out.put(rank);
  out.put<std::uint64_t>(by_activity.size());
  for (const auto& [name, ns] : by_activity) {
    out.put_string(name);
    out.put(ns);
  }
  const std::vector<std::vector<std::byte>> parts = gather_to_first(exchange, out.take());
  CriticalPath path;
  if (exchange.index() != 0) return path;
  std::set<std::int32_t> held;  // ranks some process has the input of
  for (const std::vector<std::byte>& part : parts) {
    ByteReader in(part);
    const auto ranks = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < ranks; ++i) held.insert(in.get<std::int32_t>());
    const auto names = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < names; ++i) {
      std::string name = in.get_string();
      path.by_activity[std::move(name)] += in.get<double>();
    }
  }
  path.stretches = stretches;
  path.walking_s = std::chrono::duration<double>(walked_at - began).count();
  path.attributing_s = std::chrono::duration<double>(Clock::now() - walked_at).count();
  path.window = window.text;
  if (!window.whole()) {
    path.window_begin_ns = window.begin_ns;
    path.window_end_ns = window.end_ns;
  }
  for (const CriticalPath::Stretch& stretch : path.stretches) {
    const auto length = static_cast<double>(stretch.to - stretch.from);
    path.length_ns += length;
    path.by_rank[stretch.rank] += length;
    if (!held.contains(stretch.rank)) path.by_activity[""] += length;
  }
  return path;
}

CriticalPath find_critical_path(const std::vector<RankWaitInput>& ranks,
                                const WaitStateReport& waits, const RankSpans& spans) {
  return find_critical_path(ranks, waits, spans, SingleProcessExchange());
}

std::vector<std::pair<std::string, double>> CriticalPath::activities() const {
  std::vector<std::pair<std::string, double>> sorted(by_activity.begin(), by_activity.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return sorted;
}

void CriticalPath::print(std::FILE* out, std::size_t top) const {
  if (empty()) return;
  fmt::print(out,
             "Critical path{}: {:.3f} ms in {} stretches over {} ranks (ms; share = of the "
             "path)\n  {:<48} {:>11} {:>7}\n",
             window.empty() ? "" : fmt::format(" in the window {}", window), length_ns / 1e6,
             stretches.size(), by_rank.size(), "activity", "time", "share");
  const auto sorted = activities();
  for (std::size_t i = 0; i < sorted.size() && i < top; ++i)
    fmt::print(out, "  {:<48} {:>11.3f} {:>6.1f}%\n", activity_label(sorted[i].first),
               sorted[i].second / 1e6, length_ns > 0 ? 100 * sorted[i].second / length_ns : 0.0);
}

bool CriticalPath::write_csv(const std::string& prefix, std::string& error) const {
  CsvFile file(prefix + "_critical_path.csv", "activity,total_ns,share");
  for (const auto& [name, ns] : activities())
    file.row("{},{:.0f},{:.6f}", csv_text(activity_label(name)), ns,
             length_ns > 0 ? ns / length_ns : 0.0);
  return file.close(error);
}

}  // namespace rocprof::merge
