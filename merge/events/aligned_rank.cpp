#include "merge/events/aligned_rank.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

namespace rocprof::merge {

using namespace rocprof::format;

AlignedRank::AlignedRank(std::int32_t rank, const RankFileReader& reader)
    : rank_(rank), reader_(reader), clock_(reader.clock_samples()) {}

struct AlignedRank::FirstBlocks {
  // Each table's first block, and whether it was read (false: the visit reads it itself).
  std::vector<MpiCallRow> mpi_calls;
  std::vector<MarkerRow> markers;
  std::vector<ApiCallRow> api_calls;
  std::vector<ActivityRow> activities;
  bool have_mpi_calls = false;
  bool have_markers = false;
  bool have_api_calls = false;
  bool have_activities = false;
  BackgroundWorker worker;  // last: waited for before the blocks go
};

AlignedRank::~AlignedRank() = default;
AlignedRank::AlignedRank(AlignedRank&& other) noexcept = default;

void AlignedRank::done() const noexcept {
  if (first_) first_->worker.wait_quietly();  // it reads the file: before the file closes
  first_.reset();
  reader_.release();
}

void AlignedRank::read_ahead() const {
  if (first_) return;  // already under way
  first_ = std::make_unique<FirstBlocks>();
  FirstBlocks& blocks = *first_;
  // Decided here, on the merge's thread: map_chunks opens the file for pread (the reader's
  // only change), so the helper's reads change nothing the merge's thread may read meanwhile.
  auto wanted = [this](auto* row) {
    using Row = std::remove_pointer_t<decltype(row)>;
    return reader_.row_count<Row>() > 0 && reader_.reads_without_hdf5(table_of<Row>()) &&
           reader_.map_chunks<Row>();
  };
  blocks.have_mpi_calls = wanted(static_cast<MpiCallRow*>(nullptr));
  blocks.have_markers = wanted(static_cast<MarkerRow*>(nullptr));
  blocks.have_api_calls = wanted(static_cast<ApiCallRow*>(nullptr));
  blocks.have_activities = wanted(static_cast<ActivityRow*>(nullptr));
  blocks.worker.start([this, &blocks] {
    auto read_first = [this](auto& rows, bool have, const auto& prepare) {
      using Row = typename std::remove_reference_t<decltype(rows)>::value_type;
      if (!have) return;
      const std::uint64_t total = reader_.row_count<Row>();
      reader_.read(0, std::min<std::uint64_t>(total, reader_.chunk_rows<Row>()), rows);
      prepare(rows.data(), rows.size());
    };
    read_first(blocks.mpi_calls, blocks.have_mpi_calls, aligner<MpiCallRow>());
    read_first(blocks.markers, blocks.have_markers, marker_aligner());
    read_first(blocks.api_calls, blocks.have_api_calls, aligner<ApiCallRow>());
    read_first(blocks.activities, blocks.have_activities, aligner<ActivityRow>());
  });
}

template <typename Row>
std::vector<Row>* AlignedRank::first_block() const {
  if (!first_) return nullptr;
  first_->worker.wait();  // rethrows a damaged chunk's error, here, at the visit
  if constexpr (std::is_same_v<Row, MpiCallRow>) {
    return std::exchange(first_->have_mpi_calls, false) ? &first_->mpi_calls : nullptr;
  } else if constexpr (std::is_same_v<Row, MarkerRow>) {
    return std::exchange(first_->have_markers, false) ? &first_->markers : nullptr;
  } else if constexpr (std::is_same_v<Row, ApiCallRow>) {
    return std::exchange(first_->have_api_calls, false) ? &first_->api_calls : nullptr;
  } else {
    return std::exchange(first_->have_activities, false) ? &first_->activities : nullptr;
  }
}

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

typename PrefetchCursor<MarkerRow>::Prepare AlignedRank::marker_aligner() const {
  return [this](MarkerRow* rows, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) rows[i].timestamp_ns = align(rows[i].timestamp_ns);
  };
}

void AlignedRank::for_each_mpi_call(const std::function<void(const MpiCallRow&)>& visit) const {
  PrefetchCursor<MpiCallRow> cursor(reader_, aligner<MpiCallRow>());
  if (auto* first = first_block<MpiCallRow>()) cursor.use_first_block(std::move(*first));
  std::vector<MpiCallRow> rows;
  while (cursor.next(rows))
    for (const MpiCallRow& row : rows) {
      if (watcher_.mpi_call) watcher_.mpi_call(row);
      visit(row);
    }
}

void AlignedRank::for_each_api_call(const std::function<void(const ApiCallRow&)>& visit) const {
  PrefetchCursor<ApiCallRow> cursor(reader_, aligner<ApiCallRow>());
  if (auto* first = first_block<ApiCallRow>()) cursor.use_first_block(std::move(*first));
  std::vector<ApiCallRow> rows;
  while (cursor.next(rows))
    for (const ApiCallRow& row : rows) visit(row);
}

void AlignedRank::for_each_activity(const std::function<void(const ActivityRow&)>& visit) const {
  PrefetchCursor<ActivityRow> cursor(reader_, aligner<ActivityRow>());
  if (auto* first = first_block<ActivityRow>()) cursor.use_first_block(std::move(*first));
  std::vector<ActivityRow> rows;
  while (cursor.next(rows))
    for (const ActivityRow& row : rows) {
      if (watcher_.activity) watcher_.activity(row);
      visit(row);
    }
}

void AlignedRank::for_each_marker(const std::function<void(const MarkerRow&)>& mark,
                                  const std::function<void(const Range&)>& range) const {
  // Open ranges by (thread, id): a push and its pop share the id, as do a start and its stop.
  std::map<std::pair<std::uint32_t, std::uint64_t>, Range> open;
  PrefetchCursor<MarkerRow> cursor(reader_, marker_aligner());
  if (auto* first = first_block<MarkerRow>()) cursor.use_first_block(std::move(*first));
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
          if (watcher_.range) watcher_.range(done);
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
