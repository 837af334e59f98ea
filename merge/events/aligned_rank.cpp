#include "merge/events/aligned_rank.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace rocprof::merge {

using namespace rocprof::format;

AlignedRank::AlignedRank(std::int32_t rank, const RankFileReader& reader)
    : rank_(rank), reader_(reader), clock_(reader.clock_samples()) {}

// Each visited table's first block, and whether it was read ahead (false: the visit reads it).
template <typename Row>
struct FirstBlock {
  FirstBlock() = default;
  ~FirstBlock() { RowBuffers<Row>::give_back(rows); }  // unless a visit took it
  FirstBlock(const FirstBlock&) = delete;
  FirstBlock& operator=(const FirstBlock&) = delete;
  std::vector<Row> rows;
  bool read = false;
};
struct AlignedRank::FirstBlocks {
  std::tuple<FirstBlock<MpiCallRow>, FirstBlock<MarkerRow>, FirstBlock<ApiCallRow>,
             FirstBlock<ActivityRow>>
      tables;
  PooledChunkReader helper;  // last: given back (its task waited for) before the blocks go
};

AlignedRank::~AlignedRank() = default;
AlignedRank::AlignedRank(AlignedRank&& other) noexcept = default;

void AlignedRank::done() const noexcept {
  first_.reset();  // its helper, which reads the file, is waited for before the file closes
  reader_.release();
}

void AlignedRank::read_ahead() const noexcept {
  if (first_) return;  // already under way
  // Decided here, on the calling thread: map_chunks opens the file for pread (the reader's
  // only change), so the helper's reads change nothing the caller may read meanwhile.
  auto plan = [this]<typename Row>(FirstBlock<Row>& block) {
    block.read = reader_.row_count<Row>() > 0 && reader_.reads_without_hdf5(table_of<Row>()) &&
                 reader_.map_chunks<Row>();
  };
  auto read = [this]<typename Row>(FirstBlock<Row>& block) {
    if (!block.read) return;
    const std::uint64_t rows = reader_.row_count<Row>();
    block.rows = RowBuffers<Row>::take();
    reader_.read(0, std::min<std::uint64_t>(rows, reader_.chunk_rows<Row>()), block.rows);
    aligner<Row>()(block.rows.data(), block.rows.size());
  };
  try {
    first_ = std::make_unique<FirstBlocks>();
    FirstBlocks& blocks = *first_;
    std::apply([&](auto&... block) { (plan(block), ...); }, blocks.tables);
    blocks.helper->worker.start([read, &blocks] {
      std::apply([&](auto&... block) { (read(block), ...); }, blocks.tables);
    });
  } catch (...) {
    // Nothing read ahead: the visits read the rank themselves, and report what failed here.
    first_.reset();
  }
}

template <typename Row>
std::vector<Row>* AlignedRank::first_block() const {
  if (!first_) return nullptr;
  first_->helper->worker.wait();  // rethrows a damaged chunk's error, here, at the visit
  auto& first = std::get<FirstBlock<Row>>(first_->tables);
  return std::exchange(first.read, false) ? &first.rows : nullptr;
}

// Moves a block of rows' times (begin and end, or a marker's timestamp) to the reference
// clock; run on the cursor's helper threads (the clock model and the correction are only read).
template <typename Row>
typename PrefetchCursor<Row>::Prepare AlignedRank::aligner() const {
  return [this](Row* rows, std::size_t count) {
    Aligner aligner(*this);
    for (std::size_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<Row, MarkerRow> || std::is_same_v<Row, CounterSampleRow>) {
        rows[i].timestamp_ns = aligner.align(rows[i].timestamp_ns);
      } else {
        rows[i].begin_ns = aligner.align(rows[i].begin_ns);
        rows[i].end_ns = aligner.align(rows[i].end_ns);
      }
    }
  };
}

void AlignedRank::for_each_mpi_call(const std::function<void(const MpiCallRow&)>& visit) const {
  PrefetchCursor<MpiCallRow> cursor(reader_, aligner<MpiCallRow>());
  if (auto* first = first_block<MpiCallRow>()) cursor.use_first_block(std::move(*first));
  std::vector<MpiCallRow> rows;
  while (cursor.next(rows)) {
    if (watcher_.mpi_calls) watcher_.mpi_calls(rows);
    for (const MpiCallRow& row : rows) visit(row);
  }
}

void AlignedRank::for_each_api_call(const std::function<void(const ApiCallRow&)>& visit) const {
  PrefetchCursor<ApiCallRow> cursor(reader_, aligner<ApiCallRow>());
  if (auto* first = first_block<ApiCallRow>()) cursor.use_first_block(std::move(*first));
  std::vector<ApiCallRow> rows;
  while (cursor.next(rows)) {
    if (watcher_.api_calls) watcher_.api_calls(rows);
    for (const ApiCallRow& row : rows) visit(row);
  }
}

void AlignedRank::for_each_activity(const std::function<void(const ActivityRow&)>& visit) const {
  PrefetchCursor<ActivityRow> cursor(reader_, aligner<ActivityRow>());
  if (auto* first = first_block<ActivityRow>()) cursor.use_first_block(std::move(*first));
  std::vector<ActivityRow> rows;
  while (cursor.next(rows)) {
    if (watcher_.activities) watcher_.activities(rows);
    for (const ActivityRow& row : rows) visit(row);
  }
}

void AlignedRank::for_each_counter_sample(
    const std::function<void(const CounterSampleRow&)>& visit) const {
  if (reader_.row_count<CounterSampleRow>() == 0) return;
  PrefetchCursor<CounterSampleRow> cursor(reader_, aligner<CounterSampleRow>());
  std::vector<CounterSampleRow> rows;
  while (cursor.next(rows)) {
    if (watcher_.counter_samples) watcher_.counter_samples(rows);
    for (const CounterSampleRow& row : rows) visit(row);
  }
}

namespace {

// The part a marker plays in a range: it opens or closes the range of its key, or neither.
enum class RangeRole { kNone, kOpens, kCloses };
RangeRole range_role(MarkerOp op) {
  switch (op) {
    case MarkerOp::kPush:
    case MarkerOp::kStart:
    case MarkerOp::kRegionPush:
      return RangeRole::kOpens;
    case MarkerOp::kPop:
    case MarkerOp::kStop:
    case MarkerOp::kRegionPop:
      return RangeRole::kCloses;
    default:
      return RangeRole::kNone;
  }
}
// A push and its pop share the id, as do a start and its stop; start/stop ranges may end on
// another thread, so they are keyed by id alone. User regions count their ids apart from
// ROC-TX's (both start at 1): a region keeps a key space of its own, so a region and a
// ROC-TX range that nest never close each other.
std::pair<std::uint32_t, std::uint64_t> range_key(const MarkerRow& row) {
  constexpr std::uint64_t kRegionIds = std::uint64_t{1} << 63;
  const bool across_threads = row.op == MarkerOp::kStart || row.op == MarkerOp::kStop;
  const bool region = row.op == MarkerOp::kRegionPush || row.op == MarkerOp::kRegionPop;
  return {across_threads ? 0 : row.thread_id, region ? (row.id | kRegionIds) : row.id};
}

}  // namespace

void RangeCounter::add(const MarkerRow& row) {
  const RangeRole role = range_role(row.op);
  // As for_each_marker pairs them: a range opened again under the same key replaces the one
  // open (which then never closes), so one close counts once either way.
  if (role == RangeRole::kOpens) open_.open(range_key(row), true, true);
  if (role == RangeRole::kCloses && open_.close(range_key(row))) ++count_;
}

std::uint64_t AlignedRank::range_count() const {
  static const ColumnSet kPairing = columns_named(table_of<MarkerRow>(), {"thread_id", "id", "op"});
  RangeCounter counter;
  PrefetchCursor<MarkerRow> cursor(reader_, {}, kPrefetchDepth, kPairing);
  std::vector<MarkerRow> rows;
  while (cursor.next(rows))
    for (const MarkerRow& row : rows) counter.add(row);
  return counter.count();
}

void AlignedRank::for_each_marker(const std::function<void(const MarkerRow&)>& mark,
                                  const std::function<void(const Range&)>& range) const {
  OpenRanges<Range> open;  // by range_key
  PrefetchCursor<MarkerRow> cursor(reader_, aligner<MarkerRow>());
  if (auto* first = first_block<MarkerRow>()) cursor.use_first_block(std::move(*first));
  std::vector<MarkerRow> rows;
  std::vector<Range> closed_here;  // in this block of markers, for the watcher
  while (cursor.next(rows)) {
    for (MarkerRow& row : rows) {
      if (row.op == MarkerOp::kMark) {
        mark(row);
        continue;
      }
      const RangeRole role = range_role(row.op);
      if (role == RangeRole::kOpens) {
        // A range opened again under the same key replaces the one open.
        open.open(range_key(row),
                  Range{row.thread_id, row.level, row.message, row.timestamp_ns, 0,
                        row.op != MarkerOp::kStart, row.op == MarkerOp::kRegionPush, row.id},
                  true);
      } else if (role == RangeRole::kCloses) {
        std::optional<Range> closed = open.close(range_key(row));
        if (!closed) continue;  // its start was not recorded
        Range done = *closed;
        done.end_ns = std::max(row.timestamp_ns, done.begin_ns);
        if (watcher_.ranges) closed_here.push_back(done);
        range(done);
      }
    }
    if (watcher_.ranges && !closed_here.empty()) watcher_.ranges(closed_here);
    closed_here.clear();
  }
}

std::uint64_t AlignedRank::first_time_ns() const {
  const std::uint64_t first = first_internal_ns();
  if (first == std::numeric_limits<std::uint64_t>::max()) return first;
  return first > time_base_ ? first - time_base_ : 0;
}

std::uint64_t AlignedRank::first_internal_ns() const {
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  auto take = [&](std::uint64_t local) {
    first = std::min(first, align_corrected(clock_.to_reference(local)));
  };
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
