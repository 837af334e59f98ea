#include "merge/analysis/analysis_window.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {
namespace {

// "2.5s" -> nanoseconds; nullopt if not a non-negative number with a unit.
std::optional<std::uint64_t> duration_ns(std::string_view text) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (const auto& [unit, scale] : kUnits) {
    if (!text.ends_with(unit)) continue;
    const std::string_view number = text.substr(0, text.size() - unit.size());
    double value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() || !(value >= 0) ||
        !std::isfinite(value))
      return std::nullopt;
    return static_cast<std::uint64_t>(value * scale);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> instance(std::string_view text) {
  if (text.empty() || text.front() != '#') return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data() + 1, text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<WindowSpec> parse_window(std::string_view text, std::string& error) {
  WindowSpec spec;
  spec.text = std::string(text);
  const auto bad = [&](std::string_view why) {
    error = fmt::format(
        "--window '{}': {} (a time range from the job's start, '2.5s-10s', or a region's "
        "instances, 'iteration#10-#49')",
        text, why);
    return std::nullopt;
  };
  if (const std::size_t hash = text.find('#'); hash != std::string_view::npos) {
    spec.region = std::string(text.substr(0, hash));
    const std::string_view range = text.substr(hash);
    const std::size_t dash = range.find("-#");
    const auto first = instance(range.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : instance(range.substr(dash + 1));
    if (spec.region.empty()) return bad("no region name before '#'");
    if (!first || !last) return bad("instances are '#FIRST-#LAST' or '#ONE', counted from 0");
    if (*last < *first) return bad("the last instance comes before the first");
    spec.first_instance = *first;
    spec.last_instance = *last;
    return spec;
  }
  const std::size_t dash = text.find('-');
  if (dash == std::string_view::npos) return bad("no '-' between its start and its end");
  const auto from = duration_ns(text.substr(0, dash));
  const auto to = duration_ns(text.substr(dash + 1));
  if (!from || !to) return bad("times are numbers with a unit: s, ms, us or ns");
  if (*to <= *from) return bad("it ends before it starts");
  spec.from_ns = *from;
  spec.to_ns = *to;
  return spec;
}

TimeWindow resolve_window(const WindowSpec& spec, const std::vector<RankWaitInput>& mine,
                          std::uint64_t job_begin_ns, const AnalysisExchange& exchange,
                          std::string& problem) {
  // Each process: for each of its ranks that ran the region, on the lane (thread and level)
  // that ran it most, its instances' count and the first and last instance's times.
  struct Found {
    std::int32_t rank;
    std::uint32_t joined;  // 1: the rank's records were joined: instances cannot be counted
    std::uint64_t instances;
    std::uint64_t begin_ns;
    std::uint64_t end_ns;
  };
  ByteWriter out;
  if (!spec.region.empty())
    for (const RankWaitInput& input : mine) {
      const auto name = std::find(input.names.begin(), input.names.end(), spec.region);
      if (name == input.names.end()) continue;
      const auto id = static_cast<std::uint32_t>(name - input.names.begin());
      std::map<std::uint32_t, std::vector<const Doing*>> by_lane;  // doings are in lane order
      for (const Doing& doing : input.doings)
        if (doing.kind() == DoingKind::kRegion && doing.name == id)
          by_lane[doing.lane()].push_back(&doing);
      const std::vector<const Doing*>* most = nullptr;
      for (const auto& [lane, instances] : by_lane)
        if (most == nullptr || instances.size() > most->size()) most = &instances;
      if (most == nullptr) continue;
      Found found{input.rank, input.joined_within_ns > 0 ? 1U : 0U, most->size(), 0, 0};
      if (most->size() > spec.last_instance) {
        found.begin_ns = (*most)[spec.first_instance]->begin_ns;
        found.end_ns = (*most)[spec.last_instance]->end_ns;
      }
      out.put(found);
    }
  const std::vector<std::vector<std::byte>> parts = gather_to_first(exchange, out.take());
  std::vector<std::byte> decided;
  if (exchange.index() == 0) {
    TimeWindow window;
    if (spec.region.empty()) {
      window = {job_begin_ns + spec.from_ns, job_begin_ns + spec.to_ns, -1, spec.text};
    } else {
      std::uint64_t most = 0;
      bool joined = false;
      bool any = false;
      for (const std::vector<std::byte>& part : parts) {
        ByteReader in(part);
        while (!in.done()) {
          const auto found = in.get<Found>();
          most = std::max(most, found.instances);
          joined = joined || found.joined != 0;
          if (found.instances <= spec.last_instance) continue;
          if (!any || found.begin_ns < window.begin_ns) window.begin_ns = found.begin_ns;
          if (!any || found.end_ns > window.end_ns ||
              (found.end_ns == window.end_ns && found.rank < window.end_rank)) {
            window.end_ns = found.end_ns;
            window.end_rank = found.rank;
          }
          any = true;
        }
      }
      if (joined)
        problem = fmt::format(
            "--window '{}': the ranks' records were too many to count the region's instances "
            "(docs/ANALYSIS.md); analysing the whole run (a time window works)",
            spec.text);
      else if (!any)
        problem = fmt::format(
            "--window '{}': no rank ran region '{}' {} times (the most: {}); analysing the "
            "whole run",
            spec.text, spec.region, spec.last_instance + 1, most);
      window = problem.empty()
                   ? TimeWindow{window.begin_ns, window.end_ns, window.end_rank, spec.text}
                   : TimeWindow{};
    }
    ByteWriter decision;
    decision.put(window.begin_ns);
    decision.put(window.end_ns);
    decision.put(window.end_rank);
    decision.put_string(window.text);
    decided = decision.take();
  }
  const std::vector<std::byte> bytes = broadcast_from_first(exchange, decided);
  ByteReader in(bytes);
  TimeWindow window;
  window.begin_ns = in.get<std::uint64_t>();
  window.end_ns = in.get<std::uint64_t>();
  window.end_rank = in.get<std::int32_t>();
  window.text = in.get_string();
  return window;
}

}  // namespace rocprof::merge
