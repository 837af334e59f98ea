// The job's wait edges on the first merge process, in their one order (by waiting rank, then
// time, awaited rank, pattern and cause): what the critical path walks and the timeline
// outputs draw. A job of many ranks and collectives has hundreds of millions of them, so they
// are held up to a budget and past it kept in the process's scratch file (SpilledArray), and
// read back a piece at a time; each rank's ends of waits, ordered by time, serve the
// critical path's steps the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "merge/analysis/wait_edge.hpp"
#include "merge/files/spilled_array.hpp"

namespace rocprof::merge {

class JobEdges {
 public:
  // Edges read back at a time by for_each_piece.
  static constexpr std::size_t kPieceEdges = std::size_t{1} << 16;

  JobEdges() = default;  // every edge held
  // Past `memory` bytes in all (two thirds for edges, a third for their ends), they go to
  // `file`.
  JobEdges(std::shared_ptr<ScratchFile> file, std::size_t memory);

  // Appends `edges`, in their order, of waiting ranks none of the edges appended before had
  // (std::logic_error otherwise). Throws std::runtime_error on a write error.
  void append(std::span<const WaitEdge> edges);
  std::uint64_t size() const noexcept { return edges_.size(); }
  bool empty() const noexcept { return size() == 0; }
  bool spilled() const noexcept { return edges_.spilled(); }

  // visit(std::span<const WaitEdge>) on every edge in order, kPieceEdges at most a call.
  template <typename Visit>
  void for_each_piece(Visit visit) const {
    edges_.for_each_piece(kPieceEdges, visit);
  }
  std::vector<WaitEdge> all() const;  // every edge, in order (tests, small jobs)

  // Ranks that waited (in order), and ranks waited for.
  std::vector<std::int32_t> waiting_ranks() const;
  const std::set<std::int32_t>& awaited_ranks() const noexcept { return awaited_; }

  // A wait's end as the critical path steps over it: where it ended and whom it waited for.
  struct Arrival {
    std::uint64_t to;
    std::int32_t awaited;
    std::int32_t waiting;
  };
  // The wait of `rank` that ended last before `t` (of several that ended at once, the last in
  // the edges' order), if any.
  std::optional<Arrival> latest_before(std::int32_t rank, std::uint64_t t) const;

 private:
  // Every kMarkStep-th end of a rank's waits, to find the few read to answer latest_before.
  static constexpr std::size_t kMarkStep = 256;
  struct RankArrivals {
    std::int32_t rank;
    std::uint64_t first;  // index of its first arrival
    std::uint64_t count;
    std::vector<std::uint64_t> marks;  // `to` of arrivals first, first + kMarkStep, ...
  };

  SpilledArray<WaitEdge> edges_;
  SpilledArray<Arrival> arrivals_;     // by waiting rank, then time
  std::vector<RankArrivals> by_rank_;  // by rank
  std::set<std::int32_t> awaited_;
  // The block of arrivals last read by latest_before (a walk stays on a rank for a while).
  mutable std::uint64_t cached_first_ = ~std::uint64_t{0};
  mutable std::vector<Arrival> cached_;
};

}  // namespace rocprof::merge
