#include "merge/timeline/message_flows.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace rocprof::merge {

absl::flat_hash_map<std::uint64_t, std::uint32_t> MessageFlowCursor::posting_order(
    const AlignedRank& rank) {
  struct Place {
    std::uint64_t key;     // place_key: stream slot, side, file-order ordinal
    std::uint64_t posted;  // aligned, as the spill orders them
  };
  std::vector<Place> places;
  EndpointScanner scanner(rank.reader(), rank.rank());
  AlignedRank::Aligner aligner(rank);
  std::array<MessageEndpoint, 2> endpoints{};
  format::TableCursor<format::MpiCallRow> cursor(rank.reader());
  std::vector<format::MpiCallRow> rows;
  while (cursor.next(rows))
    for (const format::MpiCallRow& row : rows) {
      const std::size_t count = scanner.scan(row, endpoints);
      for (std::size_t i = 0; i < count; ++i)
        if (endpoints[i].stream_slot != kNoStreamSlot)
          places.push_back(
              {place_key(endpoints[i]), aligner.align_uncorrected(endpoints[i].posted_ns)});
    }
  // By stream and side, then posting time, ties in file order: the spill's numbering.
  std::vector<std::size_t> order(places.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(places[a].key >> 32, places[a].posted) <
           std::tuple(places[b].key >> 32, places[b].posted);
  });
  absl::flat_hash_map<std::uint64_t, std::uint32_t> renumbered;
  renumbered.reserve(places.size());
  std::uint32_t next = 0;
  for (std::size_t n = 0; n < order.size(); ++n) {
    if (n > 0 && places[order[n]].key >> 32 != places[order[n - 1]].key >> 32) next = 0;
    renumbered.emplace(places[order[n]].key, next++);
  }
  return renumbered;
}

}  // namespace rocprof::merge
