#include "merge/analysis/job_edges.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace rocprof::merge {

JobEdges::JobEdges(std::shared_ptr<ScratchFile> file, std::size_t memory)
    : edges_(file, memory * 2 / 3), arrivals_(std::move(file), memory / 3) {}

void JobEdges::append(std::span<const WaitEdge> edges) {
  std::vector<Arrival> arrivals;
  for (std::size_t begin = 0; begin < edges.size();) {
    const std::int32_t rank = edges[begin].waiting;
    if (!by_rank_.empty() && rank <= by_rank_.back().rank)
      throw std::logic_error("wait edges appended out of their ranks' order");
    std::size_t end = begin;
    arrivals.clear();
    for (; end < edges.size() && edges[end].waiting == rank; ++end) {
      arrivals.push_back({edges[end].to, edges[end].awaited, rank});
      // A rank's waits mostly await the same few ranks in turn: the set sees each run once.
      if (end == begin || edges[end].awaited != edges[end - 1].awaited)
        awaited_.insert(edges[end].awaited);
    }
    // Mostly in order already: a rank's waits end in the order they begin.
    const auto by_end = [](const Arrival& a, const Arrival& b) { return a.to < b.to; };
    if (!std::is_sorted(arrivals.begin(), arrivals.end(), by_end))
      std::stable_sort(arrivals.begin(), arrivals.end(), by_end);
    RankArrivals of_rank{rank, arrivals_.size(), arrivals.size(), {}};
    for (std::size_t i = 0; i < arrivals.size(); i += kMarkStep)
      of_rank.marks.push_back(arrivals[i].to);
    by_rank_.push_back(std::move(of_rank));
    arrivals_.append(arrivals);
    begin = end;
  }
  edges_.append(edges);
}

std::vector<std::int32_t> JobEdges::waiting_ranks() const {
  std::vector<std::int32_t> ranks;
  ranks.reserve(by_rank_.size());
  for (const RankArrivals& of_rank : by_rank_) ranks.push_back(of_rank.rank);
  return ranks;
}

std::vector<WaitEdge> JobEdges::all() const {
  std::vector<WaitEdge> every;
  every.reserve(static_cast<std::size_t>(size()));
  for_each_piece([&](std::span<const WaitEdge> piece) {
    every.insert(every.end(), piece.begin(), piece.end());
  });
  return every;
}

std::optional<JobEdges::Arrival> JobEdges::latest_before(std::int32_t rank, std::uint64_t t) const {
  const auto found =
      std::lower_bound(by_rank_.begin(), by_rank_.end(), rank,
                       [](const RankArrivals& of, std::int32_t r) { return of.rank < r; });
  if (found == by_rank_.end() || found->rank != rank) return std::nullopt;
  // The last block whose first arrival ended before t holds the answer.
  const auto mark = std::lower_bound(found->marks.begin(), found->marks.end(), t);
  if (mark == found->marks.begin()) return std::nullopt;
  const auto block = static_cast<std::uint64_t>(mark - found->marks.begin() - 1);
  const std::uint64_t first = found->first + block * kMarkStep;
  if (first != cached_first_) {
    cached_.resize(static_cast<std::size_t>(
        std::min<std::uint64_t>(kMarkStep, found->count - block * kMarkStep)));
    arrivals_.read(first, cached_);
    cached_first_ = first;
  }
  const auto after = std::lower_bound(
      cached_.begin(), cached_.end(), t,
      [](const Arrival& arrival, std::uint64_t time) { return arrival.to < time; });
  return *std::prev(after);
}

}  // namespace rocprof::merge
