// Flow ids of the three kinds an exporter draws: distinct across kinds, ranks and correlation
// ids in their documented ranges, and the same for every exporter (one scheme).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "merge/events/flow_ids.hpp"
#include "merge/events/stream_table.hpp"

namespace rocprof::merge {
namespace {

TEST(FlowIds, KindsRanksAndCorrelationsNeverShareAnId) {
  std::set<std::uint64_t> seen;
  std::size_t made = 0;
  for (const std::int32_t rank : {0, 1, 2, 4095, (1 << 18) - 1})
    for (const std::uint64_t correlation : {std::uint64_t{0}, std::uint64_t{1},
                                            std::uint64_t{1} << 40, (std::uint64_t{1} << 44) - 1}) {
      const std::uint64_t issued = issued_flow_id(rank, correlation);
      const std::uint64_t inside = inside_flow_id(rank, correlation);
      EXPECT_EQ(issued >> 62, 0U);
      EXPECT_EQ(inside >> 62, 1U);
      seen.insert(issued);
      seen.insert(inside);
      made += 2;
    }
  for (const std::uint32_t stream : {0U, 1U, 70000U})
    for (const std::uint32_t place : {0U, 1U, 0xffffffffU}) {
      EXPECT_EQ(message_flow_id(stream, place) >> 63, 1U);
      EXPECT_EQ(StreamTable::flow_id(stream, place), message_flow_id(stream, place));
      seen.insert(message_flow_id(stream, place));
      ++made;
    }
  EXPECT_EQ(seen.size(), made);
  // The Chrome JSON exporter used rank << 40: rank 1's first correlation id met rank 0's
  // 2^40-th. They differ now.
  EXPECT_NE(issued_flow_id(1, 0), issued_flow_id(0, std::uint64_t{1} << 40));
}

}  // namespace
}  // namespace rocprof::merge
