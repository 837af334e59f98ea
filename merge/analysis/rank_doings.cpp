#include "merge/analysis/rank_doings.hpp"

#include <algorithm>
#include <array>

#include "merge/analysis/activity_names.hpp"

namespace rocprof::merge {

RankDoings::RankDoings(const RankWaitInput& input) : input_(input), doings_(input.doings) {
  for (std::size_t i = 0; i < doings_.size(); ++i) {
    const Doing& doing = doings_[i];
    if (lanes_.empty() || lanes_.back().lane != doing.lane())
      lanes_.push_back({doing.lane(), i, i, 0});
    Lane& lane = lanes_.back();
    lane.end = i + 1;
    lane.longest_ns = std::max(lane.longest_ns, doing.end_ns - doing.begin_ns);
  }
  for (const RankWaitInput::RegionLane& region : input.region_lanes)
    region_lanes_[region.lane] = {region.thread_id, region.level};
}

// Defined before its use: a template, so that each call's visitor is inlined (a
// std::function held the visitor's references on the heap, once per wait). `visit` gets
// each doing and its lane.
template <typename Visit>
void RankDoings::overlapping(std::uint64_t from, std::uint64_t to, Visit visit) const {
  for (const Lane& lane : lanes_) {
    const auto lane_end = lane_doings(lane).second;
    for (auto it = first_ending_after(lane, from); it != lane_end && it->begin_ns < to; ++it)
      if (it->end_ns > from) visit(*it, lane);
  }
}

const Doing* RankDoings::cause_doing(std::uint64_t from, std::uint64_t to) const {
  struct Best {
    std::uint64_t overlap = 0;
    const Doing* doing = nullptr;
    std::uint32_t level = 0;
  };
  std::array<Best, 4> best{};  // by DoingKind
  const std::uint64_t wait = to - from;
  Best innermost;  // the deepest region covering half the wait
  // A lane's regions share their level: looked up once per lane.
  const Lane* level_lane = nullptr;
  std::uint32_t lane_level = 0;
  overlapping(from, to, [&](const Doing& doing, const Lane& lane) {
    const std::uint64_t overlap = std::min(doing.end_ns, to) - std::max(doing.begin_ns, from);
    Best& kind = best[static_cast<std::size_t>(doing.kind())];
    if (overlap > kind.overlap) kind = {overlap, &doing, 0};
    if (doing.kind() == DoingKind::kRegion && overlap * 2 >= wait) {
      if (level_lane != &lane) {
        level_lane = &lane;
        lane_level = level_of(doing);
      }
      const std::uint32_t level = lane_level;
      if (innermost.doing == nullptr || level > innermost.level)
        innermost = {overlap, &doing, level};
    }
  });
  for (const DoingKind kind : {DoingKind::kMpiCall, DoingKind::kGpuWork, DoingKind::kApiCall}) {
    const Best& found = best[static_cast<std::size_t>(kind)];
    if (found.doing != nullptr && found.overlap * 2 >= wait) return found.doing;
  }
  if (innermost.doing != nullptr) return innermost.doing;
  const Best* most = nullptr;
  for (const Best& found : best)
    if (found.doing != nullptr && (most == nullptr || found.overlap > most->overlap)) most = &found;
  return most != nullptr ? most->doing : nullptr;
}

std::string RankDoings::cause_name(const Doing* doing) const {
  return doing != nullptr ? named(*doing) : std::string(kUntracedHostWork);
}

std::size_t RankDoings::named_alike(const Doing* doing) noexcept {
  if (doing == nullptr) return 0;
  return 1 + std::size_t{doing->name} * 2 + (doing->kind() == DoingKind::kRegion ? 1 : 0);
}

std::string RankDoings::call_path(std::uint32_t thread, std::uint64_t t) const {
  std::vector<std::pair<std::uint32_t, const Doing*>> enclosing;
  for (const Lane& lane : lanes_) {
    const auto region = region_lanes_.find(lane.lane);
    if (region == region_lanes_.end() || region->second.first != thread) continue;
    const auto [lane_begin, lane_end] = lane_doings(lane);
    auto it = std::upper_bound(lane_begin, lane_end, t, [](std::uint64_t time, const Doing& doing) {
      return time < doing.begin_ns;
    });
    if (it == lane_begin) continue;
    const Doing& doing = *std::prev(it);
    if (doing.end_ns >= t) enclosing.emplace_back(region->second.second, &doing);
  }
  std::sort(enclosing.begin(), enclosing.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string path;
  for (const auto& [level, doing] : enclosing) {
    if (!path.empty()) path += " > ";
    path += input_.names[doing->name];
  }
  return path;
}

std::span<const Doing>::iterator RankDoings::first_ending_after(const Lane& lane,
                                                                std::uint64_t from) const {
  // No doing of the lane is longer than its longest: none that began before from - longest
  // ends after from.
  const auto [lane_begin, lane_end] = lane_doings(lane);
  const std::uint64_t earliest = from - std::min(from, lane.longest_ns);
  return std::lower_bound(lane_begin, lane_end, earliest,
                          [](const Doing& doing, std::uint64_t t) { return doing.begin_ns < t; });
}

std::uint32_t RankDoings::level_of(const Doing& region) const {
  const auto found = region_lanes_.find(region.lane());
  return found == region_lanes_.end() ? 0 : found->second.second;
}

std::string RankDoings::named(const Doing& doing) const {
  const std::string& name = input_.names[doing.name];
  return doing.kind() == DoingKind::kRegion ? "region " + name : activity_label(name);
}

void RankDoings::attribute(std::uint64_t from, std::uint64_t to,
                           const std::function<void(const std::string&, double)>& add) const {
  if (to <= from) return;
  // A sweep over the doings' starts and ends within [from, to); at each instant the doing
  // that takes it: the kinds in order of precedence, the latest started within a kind (the
  // deepest for regions). A doing of no length takes no time and is left out.
  struct Edge {
    std::uint64_t time;
    std::uint64_t key;  // within its kind, the highest active one takes the time
    const Doing* doing;
  };
  // Each lane's starts, and its ends, in time order (a lane's doings come by begin, and
  // their ends mostly in order too), merged below: no sort of every edge.
  struct Run {
    std::vector<Edge> edges;
    bool starts;
    std::size_t next = 0;
  };
  std::vector<Run> runs;
  for (const Lane& lane : lanes_) {
    const auto lane_end = lane_doings(lane).second;
    auto it = first_ending_after(lane, from);
    Run starts{{}, true};
    Run ends{{}, false};
    const auto region = region_lanes_.find(lane.lane);
    const std::uint64_t level = region == region_lanes_.end() ? 0 : region->second.second;
    for (; it != lane_end && it->begin_ns < to; ++it) {
      const Doing& doing = *it;
      if (doing.end_ns <= from || doing.end_ns <= doing.begin_ns) continue;
      const std::uint64_t key = doing.kind() == DoingKind::kRegion ? level : doing.begin_ns;
      starts.edges.push_back({std::max(doing.begin_ns, from), key, &doing});
      ends.edges.push_back({std::min(doing.end_ns, to), key, &doing});
    }
    if (starts.edges.empty()) continue;
    const auto by_time = [](const Edge& a, const Edge& b) { return a.time < b.time; };
    if (!std::is_sorted(ends.edges.begin(), ends.edges.end(), by_time))
      std::sort(ends.edges.begin(), ends.edges.end(), by_time);
    runs.push_back(std::move(starts));
    runs.push_back(std::move(ends));
  }
  // Active doings per kind, by (key, address), so the last is the one that wins; few at once.
  constexpr std::array kPrecedence{DoingKind::kMpiCall, DoingKind::kGpuWork, DoingKind::kApiCall,
                                   DoingKind::kRegion};
  using Active = std::pair<std::uint64_t, const Doing*>;
  std::array<std::vector<Active>, 4> active;
  // Time added up per name and kind (what named() tells apart), named once at the end.
  std::vector<std::uint64_t> taken(input_.names.size() * 4, 0);
  std::vector<const Doing*> example(taken.size(), nullptr);
  std::uint64_t untaken = 0;
  std::uint64_t at = from;
  auto take = [&](std::uint64_t until) {
    if (until <= at) return;
    for (const DoingKind kind : kPrecedence) {
      const auto& now = active[static_cast<std::size_t>(kind)];
      if (!now.empty()) {
        const Doing* doing = now.back().second;
        const std::size_t slot = std::size_t{doing->name} * 4 + static_cast<std::size_t>(kind);
        taken.at(slot) += until - at;
        example[slot] = doing;
        at = until;
        return;
      }
    }
    untaken += until - at;
    at = until;
  };
  // The runs merged: the earliest edge first, at one instant ends before starts.
  const auto later = [&](std::size_t a, std::size_t b) {
    const Edge& x = runs[a].edges[runs[a].next];
    const Edge& y = runs[b].edges[runs[b].next];
    return x.time != y.time ? x.time > y.time : (runs[a].starts && !runs[b].starts);
  };
  std::vector<std::size_t> heap(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) heap[i] = i;
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Run& run = runs[heap.back()];
    const Edge& edge = run.edges[run.next];
    take(edge.time);
    auto& now = active[static_cast<std::size_t>(edge.doing->kind())];
    const Active entry{edge.key, edge.doing};
    const auto place = std::lower_bound(now.begin(), now.end(), entry);
    if (run.starts)
      now.insert(place, entry);
    else if (place != now.end() && *place == entry)
      now.erase(place);
    if (++run.next < run.edges.size())
      std::push_heap(heap.begin(), heap.end(), later);
    else
      heap.pop_back();
  }
  take(to);
  for (std::size_t slot = 0; slot < taken.size(); ++slot)
    if (taken[slot] > 0) add(named(*example[slot]), static_cast<double>(taken[slot]));
  if (untaken > 0) add(std::string(), static_cast<double>(untaken));
}

}  // namespace rocprof::merge
