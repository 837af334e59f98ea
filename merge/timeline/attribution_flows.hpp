#pragma once
// Attribution: which API calls were made inside which MPI call (GPU-aware MPI staging copies,
// say) or user region. An API call carries the external id that was innermost when it began;
// an MPI call carries the one it pushed, a user region's is kRegionExternalBit | its id.
// Exporters draw one flow per API call, MPI call or region -> API call; the calls and regions
// must be visited before the API calls.

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/format/prefetch_cursor.hpp"
#include "lib/format/records.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/events/flow_ids.hpp"

namespace rocprof::merge {

class AttributionFlows {
 public:
  // Reads the rank's API calls once (their two id columns only: no times, no alignment);
  // then visit its MPI calls, then its API calls.
  explicit AttributionFlows(const AlignedRank& rank) : rank_(rank.rank()) {
    static const format::ColumnSet kIds = format::columns_named(
        format::table_of<format::ApiCallRow>(), {"external_id", "correlation_id"});
    format::PrefetchCursor<format::ApiCallRow> cursor(rank.reader(), {}, format::kPrefetchDepth,
                                                      kIds);
    std::vector<format::ApiCallRow> rows;
    while (cursor.next(rows))
      for (const format::ApiCallRow& row : rows)
        if (row.external_id != 0)
          api_calls_by_external_[row.external_id].push_back(row.correlation_id);
  }

  // A drawn MPI call: appends the flows it starts (none if no API call was made inside it).
  void starts(const format::MpiCallRow& row, std::vector<std::uint64_t>& flows) {
    starts(row.external_id, flows);
  }
  // A drawn call or user region that pushed `external_id`: the same.
  void starts(std::uint64_t external_id, std::vector<std::uint64_t>& flows) {
    if (external_id == 0 || api_calls_by_external_.empty()) return;
    const auto inside = api_calls_by_external_.find(external_id);
    if (inside == api_calls_by_external_.end()) return;
    drawn_externals_.insert(external_id);
    for (const std::uint64_t correlation : inside->second) flows.push_back(flow(correlation));
  }

  // An API call: the flow it ends, if a drawn MPI call started one for it.
  bool ends(const format::ApiCallRow& row, std::uint64_t& flow_id) const {
    if (row.external_id == 0 || !drawn_externals_.contains(row.external_id)) return false;
    flow_id = flow(row.correlation_id);
    return true;
  }

 private:
  std::uint64_t flow(std::uint64_t correlation) const { return inside_flow_id(rank_, correlation); }

  std::int32_t rank_;
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> api_calls_by_external_;
  std::unordered_set<std::uint64_t> drawn_externals_;
};

}  // namespace rocprof::merge
