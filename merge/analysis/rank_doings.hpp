// One rank's doings (wait_input.hpp) by lane and begin, for the questions the analysis asks
// of a rank: what it was doing while others waited for it, the regions around a call, and
// where a stretch of its time went.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "merge/analysis/wait_input.hpp"

namespace rocprof::merge {

class RankDoings {
 public:
  explicit RankDoings(const RankWaitInput& input);

  // What the rank was doing in [from, to): its host in an MPI call for at least half of it
  // (itself waiting: a chain), else GPU work in flight for half of it, else an API call, else
  // the innermost region covering half of it, else whatever overlapped it most; null if
  // nothing did (host work no tracer saw).
  const Doing* cause_doing(std::uint64_t from, std::uint64_t to) const;
  // The cause's name: it depends only on the doing's name and whether it is a region
  // (named_alike).
  std::string cause_name(const Doing* doing) const;
  // A number per name a doing of this rank may have: equal for doings cause_name names alike.
  static std::size_t named_alike(const Doing* doing) noexcept;

  // The regions enclosing time t on `thread`, outermost first: "solve > exchange".
  std::string call_path(std::uint32_t thread, std::uint64_t t) const;

  // Where [from, to) went, instant by instant: to an MPI call if one ran, else to GPU work in
  // flight, else to an API call, else to the innermost region, else to nothing. `add` gets
  // each doing's name ("region " before a region's) or "" and the time it took.
  void attribute(std::uint64_t from, std::uint64_t to,
                 const std::function<void(const std::string&, double)>& add) const;

 private:
  struct Lane {
    std::uint32_t lane;
    std::size_t begin;  // its doings: doings_[begin, end)
    std::size_t end;
    std::uint64_t longest_ns;
  };
  std::pair<std::span<const Doing>::iterator, std::span<const Doing>::iterator> lane_doings(
      const Lane& lane) const {
    return {doings_.begin() + static_cast<std::ptrdiff_t>(lane.begin),
            doings_.begin() + static_cast<std::ptrdiff_t>(lane.end)};
  }
  // The first of the lane's doings that may end after `from` (those before it end sooner).
  std::span<const Doing>::iterator first_ending_after(const Lane& lane, std::uint64_t from) const;
  // Calls `visit` with every doing overlapping [from, to).
  template <typename Visit>
  void overlapping(std::uint64_t from, std::uint64_t to, Visit visit) const;
  std::uint32_t level_of(const Doing& region) const;
  std::string named(const Doing& doing) const;

  const RankWaitInput& input_;
  std::span<const Doing> doings_;  // by lane and begin (RankWaitInput keeps them so)
  std::vector<Lane> lanes_;
  absl::flat_hash_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> region_lanes_;
};

}  // namespace rocprof::merge
