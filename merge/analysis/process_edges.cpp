#include "merge/analysis/process_edges.hpp"

#include <algorithm>
#include <span>

namespace rocprof::merge {
namespace {

void order_by_waiting(std::vector<WaitEdge>& edges) {
  std::stable_sort(edges.begin(), edges.end(),
                   [](const WaitEdge& a, const WaitEdge& b) { return a.waiting < b.waiting; });
}

}  // namespace

ProcessEdges::ProcessEdges(std::shared_ptr<ScratchFile> file, std::size_t memory)
    : file_(std::move(file)), memory_(std::max<std::size_t>(memory, sizeof(WaitEdge))) {}

void ProcessEdges::add(const WaitEdge& edge) {
  held_.push_back(edge);
  held_ordered_ = false;
  ++counts_[edge.waiting];
  if (file_ && held_.size() * sizeof(WaitEdge) >= memory_) write_run();
}

void ProcessEdges::write_run() {
  order_by_waiting(held_);
  Run run{file_->append(std::as_bytes(std::span(held_))), {}, held_.size()};
  for (std::size_t i = 0; i < held_.size(); ++i)
    if (i == 0 || held_[i].waiting != held_[i - 1].waiting)
      run.starts.emplace_back(held_[i].waiting, i);
  runs_.push_back(std::move(run));
  held_.clear();
}

std::vector<WaitEdge> ProcessEdges::take(std::int32_t first, std::int32_t last) {
  std::vector<WaitEdge> taken;
  for (const Run& run : runs_) {
    const auto by_rank = [](const auto& start, std::int32_t rank) { return start.first < rank; };
    const auto begin = std::lower_bound(run.starts.begin(), run.starts.end(), first, by_rank);
    const auto end = std::lower_bound(begin, run.starts.end(), last, by_rank);
    if (begin == end) continue;
    const std::uint64_t from = begin->second;
    const std::uint64_t to = end == run.starts.end() ? run.count : end->second;
    const std::size_t at = taken.size();
    taken.resize(at + static_cast<std::size_t>(to - from));
    file_->read(run.offset + from * sizeof(WaitEdge),
                std::as_writable_bytes(std::span(taken).subspan(at)));
  }
  if (!held_ordered_) {
    order_by_waiting(held_);
    held_ordered_ = true;
  }
  const auto by_rank = [](const WaitEdge& edge, std::int32_t rank) { return edge.waiting < rank; };
  const auto begin = std::lower_bound(held_.begin(), held_.end(), first, by_rank);
  const auto end = std::lower_bound(begin, held_.end(), last, by_rank);
  taken.insert(taken.end(), begin, end);
  return taken;
}

}  // namespace rocprof::merge
