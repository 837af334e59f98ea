#include "merge/parallel/active_processes.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace rocprof::merge {

std::vector<std::size_t> active_processes(const std::vector<ProcessPlace>& places,
                                          std::uint64_t records, const MergingLimits& limits) {
  if (places.empty()) return {};
  // Each node's processes by their place on it.
  std::map<std::uint32_t, std::vector<std::size_t>> nodes;
  for (std::size_t i = 0; i < places.size(); ++i) nodes[places[i].node].push_back(i);
  // (turn on its node, node, index): the candidates, a node after another.
  std::vector<std::tuple<std::size_t, std::uint32_t, std::size_t>> candidates;
  for (auto& [node, members] : nodes) {
    std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(places[a].on_node, a) < std::tie(places[b].on_node, b);
    });
    std::uint64_t own = 0;
    std::uint32_t pool = 0;
    for (const std::size_t i : members) {
      own += places[i].cpus;
      pool = std::max(pool, places[i].node_cpus);
    }
    const std::size_t count = members.size();
    const std::size_t cap = own <= pool || limits.cpus_per_process == 0
                                ? count
                                : std::clamp<std::size_t>(pool / limits.cpus_per_process, 1, count);
    // Spread: turn j takes the member at ceil(j * count / cap), the first one included.
    for (std::size_t turn = 0; turn < cap; ++turn)
      candidates.emplace_back(turn, node, members[(turn * count + cap - 1) / cap]);
  }
  std::sort(candidates.begin(), candidates.end());
  std::size_t wanted = candidates.size();
  if (limits.records_per_process > 0)
    wanted = std::clamp<std::uint64_t>(records / limits.records_per_process, 1, wanted);
  if (limits.most > 0) wanted = std::min(wanted, limits.most);
  std::vector<std::size_t> active;
  for (std::size_t k = 0; k < wanted; ++k) active.push_back(std::get<2>(candidates[k]));
  // The first process leads the merge: it is always one of them.
  if (std::find(active.begin(), active.end(), 0) == active.end()) active.back() = 0;
  std::sort(active.begin(), active.end());
  return active;
}

}  // namespace rocprof::merge
