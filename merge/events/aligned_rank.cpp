#include "merge/events/aligned_rank.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <utility>
#include <vector>

namespace rocprof::merge {

using namespace rocprof::format;

AlignedRank::AlignedRank(std::int32_t rank, const RankFileReader& reader)
    : rank_(rank), reader_(reader), clock_(reader.clock_samples()) {}

// Moves begin and end of a block of rows to the reference clock; run on the cursor's helper
// thread (the clock model and the correction are only read).
template <typename Row>
typename PrefetchCursor<Row>::Prepare AlignedRank::aligner() const {
  return [this](Row* rows, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      rows[i].begin_ns = align(rows[i].begin_ns);
      rows[i].end_ns = align(rows[i].end_ns);
    }
  };
}

void AlignedRank::for_each_mpi_call(const std::function<void(const MpiCallRow&)>& visit) const {
  PrefetchCursor<MpiCallRow> cursor(reader_, aligner<MpiCallRow>());
  std::vector<MpiCallRow> rows;
  while (cursor.next(rows))
    for (const MpiCallRow& row : rows) visit(row);
}

void AlignedRank::for_each_api_call(const std::function<void(const ApiCallRow&)>& visit) const {
  PrefetchCursor<ApiCallRow> cursor(reader_, aligner<ApiCallRow>());
  std::vector<ApiCallRow> rows;
  while (cursor.next(rows))
    for (const ApiCallRow& row : rows) visit(row);
}

void AlignedRank::for_each_activity(const std::function<void(const ActivityRow&)>& visit) const {
  PrefetchCursor<ActivityRow> cursor(reader_, aligner<ActivityRow>());
  std::vector<ActivityRow> rows;
  while (cursor.next(rows))
    for (const ActivityRow& row : rows) visit(row);
}

void AlignedRank::for_each_marker(const std::function<void(const MarkerRow&)>& mark,
                                  const std::function<void(const Range&)>& range) const {
  // Open ranges by (thread, id): a push and its pop share the id, as do a start and its stop.
  std::map<std::pair<std::uint32_t, std::uint64_t>, Range> open;
  PrefetchCursor<MarkerRow> cursor(reader_, [this](MarkerRow* rows, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) rows[i].timestamp_ns = align(rows[i].timestamp_ns);
  });
  std::vector<MarkerRow> rows;
  while (cursor.next(rows))
    for (MarkerRow& row : rows) {
      switch (row.op) {
        case MarkerOp::kMark:
          mark(row);
          break;
        case MarkerOp::kPush:
        case MarkerOp::kStart:
        case MarkerOp::kRegionPush: {
          // Start/stop ranges may end on another thread: key them by id alone.
          const std::uint32_t thread = row.op == MarkerOp::kStart ? 0 : row.thread_id;
          open[{thread, row.id}] = Range{row.thread_id,
                                         row.level,
                                         row.message,
                                         row.timestamp_ns,
                                         0,
                                         row.op != MarkerOp::kStart,
                                         row.op == MarkerOp::kRegionPush,
                                         row.id};
          break;
        }
        case MarkerOp::kPop:
        case MarkerOp::kStop:
        case MarkerOp::kRegionPop: {
          const std::uint32_t thread = row.op == MarkerOp::kStop ? 0 : row.thread_id;
          const auto found = open.find({thread, row.id});
          if (found == open.end()) break;  // its start was not recorded
          Range done = found->second;
          done.end_ns = std::max(row.timestamp_ns, done.begin_ns);
          open.erase(found);
          range(done);
          break;
        }
      }
    }
}

std::uint64_t AlignedRank::first_time_ns() const {
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  auto take = [&](std::uint64_t local) { first = std::min(first, align(local)); };
  std::vector<MpiCallRow> calls;
  if (reader_.row_count<MpiCallRow>() > 0) {
    reader_.read(0, 1, calls);
    take(calls[0].begin_ns);
  }
  std::vector<MarkerRow> markers;
  if (reader_.row_count<MarkerRow>() > 0) {
    reader_.read(0, 1, markers);
    take(markers[0].timestamp_ns);
  }
  std::vector<ApiCallRow> api;
  if (reader_.row_count<ApiCallRow>() > 0) {
    reader_.read(0, 1, api);
    take(api[0].begin_ns);
  }
  take(reader_.metadata().start_clock_ns);
  reader_.release();
  return first;
}

}  // namespace rocprof::merge
