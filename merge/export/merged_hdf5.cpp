#include "merge/export/merged_hdf5.hpp"

#include <sys/stat.h>

#include <hdf5.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <optional>
#include <span>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "lib/format/compression.hpp"
#include "lib/format/hdf5_util.hpp"
#include "lib/format/schema.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/export/encode_ahead.hpp"
#include "merge/export/merged_hdf5_chunks.hpp"
#include "merge/export/merged_hdf5_file.hpp"
#include "merge/export/merged_hdf5_layout.hpp"
#include "merge/export/merged_hdf5_strings.hpp"
#include "merge/files/staged_output.hpp"
#include "merge/parallel/chunk_messages.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

using namespace merged_hdf5;

// One rank's rows of a table as the merged table holds them: rank column added, times
// aligned, string ids global, each into the row `next_row()` gives (the layout's size, every
// field written). The rank's watcher (a summary gathered meanwhile) sees its MPI calls and device
// activities as AlignedRank's visitors hand them out: aligned, with the rank's own string ids.
// With `count_ranges`, returns how many ranges the rows pair into (markers; 0 for other
// tables), for the ranges table that follows: a small rank's markers need no pass of their own
// to count them.
template <typename Row, typename NextRow>
std::uint64_t produce_rows(const AlignedRank& rank, const std::vector<StringId>& remap,
                           bool count_ranges, NextRow next_row) {
  const Table& table = table_of<Row>();
  std::vector<std::size_t> times;
  std::vector<std::size_t> strings;
  for (const Column& column : table.columns) {
    if (kTimeColumns.contains(column.name)) times.push_back(column.offset);
    if (kStringColumns.contains(column.name)) strings.push_back(column.offset);
  }
  const RankFileReader& reader = rank.reader();
  const std::int32_t rank_value = rank.rank();
  // Times are moved to the reference clock on the cursor's helper threads (only the rank's
  // clock and correction are read there).
  PrefetchCursor<Row> cursor(reader, [&](Row* block, std::size_t count) {
    AlignedRank::Aligner aligner(rank);
    for (std::size_t i = 0; i < count; ++i) {
      auto* field = reinterpret_cast<std::byte*>(&block[i]);
      for (const std::size_t offset : times) {
        std::uint64_t t = 0;
        std::memcpy(&t, field + offset, sizeof t);
        t = aligner.align(t);
        std::memcpy(field + offset, &t, sizeof t);
      }
    }
  });
  std::function<void(std::span<const Row>)> watch;
  if (const auto* watching = rank.watcher().template for_rows<Row>()) watch = *watching;
  RangeCounter ranges;
  std::vector<Row> rows;
  while (cursor.next(rows)) {
    if (watch) watch(rows);
    for (const Row& row : rows) {
      if constexpr (std::is_same_v<Row, MarkerRow>)
        if (count_ranges) ranges.add(row);
      std::byte* field = next_row();
      std::memcpy(field, &row, sizeof(Row));
      for (const std::size_t offset : strings) {
        StringId id = 0;
        std::memcpy(&id, field + offset, sizeof id);
        id = id < remap.size() ? remap[id] : 0;
        std::memcpy(field + offset, &id, sizeof id);
      }
      std::memcpy(field + table.row_size, &rank_value, sizeof rank_value);
    }
  }
  reader.release();
  return ranges.count();
}

// Straight into the chunks, on the merge's thread.
template <typename Row>
std::uint64_t copy_rank(const AlignedRank& rank, const std::vector<StringId>& remap,
                        bool count_ranges, ChunkProducer& out) {
  return produce_rows<Row>(rank, remap, count_ranges, [&out] { return out.next_row(); });
}

// Into `staged` (rows of `row_size` bytes), on a helper: a rank whose table reads without
// HDF5, made ready while the merge's thread copies the ranks before it.
template <typename Row>
std::uint64_t stage_rank(const AlignedRank& rank, const std::vector<StringId>& remap,
                         bool count_ranges, std::vector<std::byte>& staged, std::size_t row_size) {
  staged.assign(rank.reader().row_count<Row>() * row_size, std::byte{0});
  std::size_t used = 0;
  const std::uint64_t ranges = produce_rows<Row>(rank, remap, count_ranges, [&] {
    if (used + row_size > staged.size()) staged.resize(used + row_size);  // never, by the count
    std::byte* row = staged.data() + used;
    used += row_size;
    return row;
  });
  staged.resize(used);
  return ranges;
}

// Both return the ranges the rows pair into, if asked to count them (produce_rows).
using CopyRank = std::uint64_t (*)(const AlignedRank&, const std::vector<StringId>&, bool,
                                   ChunkProducer&);
using StageRank = std::uint64_t (*)(const AlignedRank&, const std::vector<StringId>&, bool,
                                    std::vector<std::byte>&, std::size_t);

struct TableSpec {
  const Table* table;
  CopyRank copy;
  StageRank stage;
};

template <typename Row>
TableSpec spec() {
  return {&table_of<Row>(), &copy_rank<Row>, &stage_rank<Row>};
}

// Rows staged aside by helpers at once, across the ranks ahead (tens of megabytes).
constexpr std::uint64_t kStagedRows = std::uint64_t{1} << 20;

// Whether a rank's rows of `table` may be made ready on a helper: a table of one chunk that
// reads without HDF5. A longer table is read on the merge's thread (its next chunks are read
// ahead on helpers already, and staging it only added a copy, which was slower); HDF5 serves
// the merge's thread only.
bool stageable(const RankFileReader& reader, const Table& table) {
  return reader.row_count(table) <= reader.chunk_rows(table) && reader.reads_without_hdf5(table);
}

// The ranges of the ranks [first, last) that `ahead` says to count before the tables (the
// others are counted as their markers are copied): on `helpers` threads for the ranks whose
// markers read without HDF5, and on this thread for the others. Counting a rank is a pass
// over its markers of its own, so it is spread out (on the merge's thread it was a tenth of
// the writing time of many small ranks).
std::uint64_t count_ranges(const std::vector<const AlignedRank*>& ranks, std::size_t first,
                           std::size_t last, const std::vector<bool>& ahead, std::size_t helpers) {
  auto anywhere = [&](std::size_t r) {
    return ranks[r]->reader().reads_without_hdf5(table_of<MarkerRow>());
  };
  std::atomic<std::size_t> next{first};
  // Each rank's file closed once it is counted, not after all of them: a process's block may
  // hold more ranks than it may open files (ulimit -n), and counting opens each for reading.
  // Its HDF5 handle, if it holds one, only on this thread, which alone calls HDF5.
  auto counted_one = [&](std::size_t r) {
    if (!ranks[r]->reader().open_in_hdf5()) ranks[r]->reader().release();
  };
  auto count_some = [&] {
    std::uint64_t counted = 0;
    for (std::size_t r = next++; r < last; r = next++)
      if (ahead[r - first] && anywhere(r)) {
        counted += ranks[r]->range_count();
        counted_one(r);
      }
    return counted;
  };
  std::vector<std::future<std::uint64_t>> counting;
  const auto to_count = static_cast<std::size_t>(std::count(ahead.begin(), ahead.end(), true));
  for (std::size_t h = 0; h < std::min(helpers, to_count); ++h)
    counting.push_back(std::async(std::launch::async, count_some));
  std::uint64_t total = 0;
  // This thread's share: the ranks that need HDF5, then whatever the helpers left.
  std::exception_ptr failed;
  try {
    for (std::size_t r = first; r < last; ++r)
      if (ahead[r - first] && !anywhere(r)) {
        total += ranks[r]->range_count();
        ranks[r]->done();
      }
    total += count_some();
  } catch (...) {
    failed = std::current_exception();
    next = last;  // the helpers stop at their next rank
  }
  for (auto& helper : counting) {
    try {
      total += helper.get();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  // Those a helper left open (their HDF5 handle is this thread's to close).
  for (std::size_t r = first; r < last; ++r)
    if (ahead[r - first]) ranks[r]->done();
  return total;
}

// The writer's handler of the other processes' messages (chunk_messages.hpp): their rows
// into the file, each block checked against its table's layout.
class RowsIntoFile final : public ChunkHandler {
 public:
  RowsIntoFile(FileTables& file, ChunkEncoder& encoder, const std::vector<std::uint64_t>& totals,
               const std::vector<const Layout*>& layouts)
      : file_(file), encoder_(encoder), totals_(totals), layouts_(layouts) {}
  std::size_t tables() const override { return layouts_.size(); }
  std::size_t columns(std::uint32_t table) const override {
    return layouts_[table]->columns.size();
  }
  void encoded_chunk(std::uint32_t table, std::uint64_t chunk, std::uint64_t rows,
                     const std::vector<std::span<const std::byte>>& columns) override {
    file_.write_encoded(table, chunk, rows, columns);
  }
  void partial_rows(std::uint32_t table, std::uint64_t chunk, std::uint64_t first,
                    std::uint64_t count, std::span<const std::byte> rows) override {
    if (rows.size() != count * layouts_[table]->row_size || first + count > kChunk)
      throw std::runtime_error("a merge process sent a bad block of rows");
    const std::uint64_t expected = std::min<std::uint64_t>(kChunk, totals_[table] - chunk * kChunk);
    file_.add_rows(table, chunk, first, count, expected, rows.data(), encoder_);
  }

 private:
  FileTables& file_;
  ChunkEncoder& encoder_;
  const std::vector<std::uint64_t>& totals_;
  const std::vector<const Layout*>& layouts_;
};

// One process's side of the merged file, phase by phase: its ranks' rows of every table,
// then their ranges, then (the writer) the file's attributes and strings.
class MergedHdf5Export {
 public:
  // kShared: the file of every process's rows (the leader writes, the others send); kPart:
  // this process's block alone, as a file of its own (no strings, no attributes); kLinks:
  // the output that links the parts (run_links).
  enum class Mode : std::uint8_t { kShared, kPart, kLinks };
  MergedHdf5Export(const std::vector<const AlignedRank*>& ranks, const std::string& path,
                   const ProgressReport& progress, const MergeShare& me, std::size_t encoders,
                   std::size_t stagers, Mode mode = Mode::kShared)
      : ranks_(ranks),
        path_(path),
        me_(me),
        mode_(mode),
        stagers_(stagers),
        specs_{spec<ApiCallRow>(),       spec<ActivityRow>(),       spec<ExternalCorrelationRow>(),
               spec<MarkerRow>(),        spec<MpiCallRow>(),        spec<CommunicatorRow>(),
               spec<CounterSampleRow>(), spec<CounterSessionRow>(), spec<ClockSampleRow>(),
               spec<ThreadRow>(),        spec<AnnotationRow>(),     spec<CodeObjectRow>(),
               spec<KernelSymbolRow>()},
        strings_(ranks),
        steps_(progress, (specs_.size() + 1) * (me.last_rank - me.first_rank)) {
    layouts_.reserve(specs_.size());
    for (const TableSpec& table : specs_) layouts_.push_back(with_rank(*table.table));
    for (std::size_t t = 0; t < specs_.size(); ++t) {
      all_layouts_.push_back(&layouts_[t]);
      named_.emplace_back(specs_[t].table->name, &layouts_[t]);
    }
    all_layouts_.push_back(&kRangeLayout);
    named_.emplace_back("ranges", &kRangeLayout);
    totals_.assign(named_.size(), 0);
    if (me_.leader() && mode_ != Mode::kLinks) open_file();
    producer_.emplace(
        file_ ? &*file_ : nullptr, &sender_, encoder_, [this] { drain(false); }, encoders);
  }

  // Returns the rows written (on the writer; 0 elsewhere).
  std::uint64_t run(const std::string& job_id) {
    count_rows();
    copy_tables();
    copy_ranges();
    if (!me_.leader()) {
      sender_.send_done();
      return 0;
    }
    drain(true);
    if (!file_->finish(totals_))
      throw std::runtime_error(
          fmt::format("rows of {} are missing from the merge processes", path_));
    if (mode_ == Mode::kShared) {
      write_attributes(job_id);
      write_strings();
    }
    close_file();
    std::uint64_t rows = 0;
    for (const std::uint64_t total : totals_) rows += total;
    return rows;
  }

  // Rows of each table in this file (the tables, then the ranges), after run().
  const std::vector<std::uint64_t>& totals() const noexcept { return totals_; }

  // The output of linked parts: each table's columns are virtual datasets whose rows are the
  // parts' rows, part after part (`rows[p][t]`: part p's rows of table t, as totals() lists
  // them; part p is linked_part_path(`output_name`, p), relative to the output's directory),
  // with the attributes and the string table. Returns the rows in all.
  std::uint64_t run_links(const std::string& job_id,
                          const std::vector<std::vector<std::uint64_t>>& rows,
                          const std::string& output_name) {
    create_file();
    std::uint64_t written = 0;
    for (std::size_t t = 0; t < named_.size(); ++t) {
      hsize_t total = 0;
      for (const auto& part : rows) total += part.at(t);
      written += total;
      const Handle group(H5Gcreate2(file_handle_->get(), named_[t].first.c_str(), H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT));
      for (const Column& column : named_[t].second->columns) {
        const Handle space(H5Screate_simple(1, &total, nullptr));
        const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
        hsize_t offset = 0;
        for (std::size_t p = 0; p < rows.size(); ++p) {
          const hsize_t count = rows[p][t];
          if (count == 0) continue;
          const Handle source(H5Screate_simple(1, &count, nullptr));
          const std::string file = linked_part_path(output_name, p);
          const std::string dataset = fmt::format("/{}/{}", named_[t].first, column.name);
          if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &offset, nullptr, &count, nullptr) <
                  0 ||
              H5Pset_virtual(properties.get(), space.get(), file.c_str(), dataset.c_str(),
                             source.get()) < 0)
            throw std::runtime_error(
                fmt::format("cannot write {}: cannot link {} of {}", path_, dataset, file));
          offset += count;
        }
        H5Sselect_all(space.get());
        const Handle created(H5Dcreate2(group.get(), column.name, column_hdf5_type(column.type),
                                        space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT));
        if (!created.valid())
          throw std::runtime_error(fmt::format("cannot write {}: cannot create {}/{}", path_,
                                               named_[t].first, column.name));
      }
    }
    write_attributes(job_id);
    write_strings();
    close_file();
    return written;
  }

 private:
  void create_file() {
    // HDF5 opens without O_NOFOLLOW: a link put in place of the file the merge created for
    // it (the staged output) is refused here instead of written through.
    struct stat about {};
    if (::lstat(path_.c_str(), &about) == 0 && S_ISLNK(about.st_mode))
      throw std::runtime_error(fmt::format("cannot create {}: a symbolic link is there", path_));
    file_handle_.emplace(H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    if (!file_handle_->valid()) throw std::runtime_error(fmt::format("cannot create {}", path_));
  }
  // The file with its tables, for rows.
  void open_file() {
    create_file();
    file_.emplace(file_handle_->get(), path_, named_);
  }

  // The writer takes what the others sent between its own chunks and ranks: a sender waits
  // once it has a few chunks in flight, and a big rank takes many chunks.
  void drain(bool wait, bool until_tables_done = false) {
    if (!me_.leader() || me_.processes <= 1) return;
    RowsIntoFile into_file(*file_, receiving_encoder_, totals_, all_layouts_);
    receiver_.receive(into_file, wait, until_tables_done);
  }

  bool last_block() const noexcept {
    return mode_ == Mode::kPart || me_.last_rank == ranks_.size();
  }

  // Where each table's rows from this process start, and how many there are in all: known
  // before anything is sent, since the writer needs the totals for any table at any time.
  void count_rows() {
    firsts_.assign(specs_.size(), 0);
    for (std::size_t t = 0; t < specs_.size(); ++t)
      for (std::size_t r = 0; r < ranks_.size(); ++r) {
        // A part holds its block's rows only, from its first row on.
        if (mode_ == Mode::kPart && (r < me_.first_rank || r >= me_.last_rank)) continue;
        const std::uint64_t rows = ranks_[r]->reader().row_count(*specs_[t].table);
        if (r < me_.first_rank) firsts_[t] += rows;
        totals_[t] += rows;
      }
  }

  // Whether rank r's rows of `source` are made ready on a helper.
  bool staged_from(std::size_t r, const Table& source) const {
    return stagers_ > 0 && stageable(ranks_[r]->reader(), source);
  }

  using Stage = std::function<std::uint64_t(std::size_t, std::vector<std::byte>&)>;
  using Copy = std::function<std::uint64_t(std::size_t)>;
  // Copies this process's ranks into the table begun in the producer, in rank order, from
  // their table `source`. The ranks staged_from() that table are made ready on helpers by
  // `stage` while the merge's thread copies the ranks before them; the others are copied by
  // `copy` on the merge's thread, which alone calls HDF5. Returns the ranges the ranks' rows
  // pair into (produce_rows).
  std::uint64_t copy_block(const Table& source, const Stage& stage, const Copy& copy,
                           std::size_t row_size) {
    const std::size_t first = me_.first_rank;
    EncodeAhead::Plan plan;
    plan.helpers = stagers_;
    plan.budget = kStagedRows;
    plan.window = 2 * stagers_ + 2;
    for (std::size_t r = first; r < me_.last_rank; ++r)  // weight: the rows read
      plan.weights.push_back(staged_from(r, source)
                                 ? std::max<std::uint64_t>(ranks_[r]->reader().row_count(source), 1)
                                 : 0);
    if (std::all_of(plan.weights.begin(), plan.weights.end(), [](auto w) { return w == 0; }))
      plan.helpers = 0;  // nothing to stage: no threads
    std::vector<std::vector<std::byte>> staged(me_.last_rank - first);
    std::vector<std::uint64_t> staged_ranges(staged.size(), 0);  // each helper its own
    std::uint64_t ranges = 0;
    EncodeAhead ahead(
        std::move(plan), [&](std::size_t i) { staged_ranges[i] = stage(first + i, staged[i]); },
        [](std::size_t) {});
    for (std::size_t i = 0; i < staged.size(); ++i) {
      if (ahead.take(i)) {
        producer_->append(staged[i], row_size);
        std::vector<std::byte>().swap(staged[i]);
        ranges += staged_ranges[i];
      } else {
        ranges += copy(first + i);
      }
      ahead.written(i);
      steps_.step();
      drain(false);
    }
    return ranges;
  }

  // Every table, this process's ranks' rows of it; counts the ranges they pair into.
  void copy_tables() {
    // Whose ranges are counted before the tables (a pass over the markers of its own, spread
    // over helpers), and whose as their markers are copied: the small ranks, whose markers
    // are made ready on helpers then (counted on the merge's thread, the pairing cost a big
    // rank's copy a third more time).
    std::vector<bool> counted_ahead(me_.last_rank - me_.first_rank, true);
    for (std::size_t r = me_.first_rank; r < me_.last_rank; ++r)
      counted_ahead[r - me_.first_rank] = !staged_from(r, table_of<MarkerRow>());
    if (me_.gather)
      my_ranges_ = count_ranges(ranks_, me_.first_rank, me_.last_rank, counted_ahead, stagers_);
    auto counts_ranges = [&](std::size_t t, std::size_t r) {
      return me_.gather && specs_[t].table == &table_of<MarkerRow>() &&
             !counted_ahead[r - me_.first_rank];
    };
    for (std::size_t t = 0; t < specs_.size(); ++t) {
      producer_->begin(t, layouts_[t], firsts_[t], totals_[t]);
      my_ranges_ += copy_block(
          *specs_[t].table,
          [&](std::size_t r, std::vector<std::byte>& staged) {
            return specs_[t].stage(*ranks_[r], strings_.remap(r), counts_ranges(t, r), staged,
                                   layouts_[t].row_size);
          },
          [&](std::size_t r) {
            return specs_[t].copy(*ranks_[r], strings_.remap(r), counts_ranges(t, r), *producer_);
          },
          layouts_[t].row_size);
      producer_->end(last_block());
    }
  }

  // Where this process's ranges start: how many each process pairs is known only now, and
  // the processes agree on it before any sends a range. The first process takes every row
  // of the tables before (a collective call while another waits to send to it would never
  // return).
  std::uint64_t first_range() {
    std::uint64_t first = 0;
    if (!me_.gather) return first;
    if (!me_.leader()) sender_.send_tables_done();
    drain(true, true);
    const std::vector<std::uint64_t> counts = me_.gather(my_ranges_);
    // Blocks are in process order: the processes before this one hold the ranges before.
    for (std::size_t p = 0; p < counts.size(); ++p) {
      totals_[range_table()] += counts[p];
      if (p < me_.index) first += counts[p];
    }
    return first;
  }

  std::size_t range_table() const noexcept { return specs_.size(); }

  // A rank's ranges, paired from its markers, as rows of the table.
  void range_rows(std::size_t r, const std::function<void(const RangeRow&)>& take) {
    const std::int32_t rank_value = ranks_[r]->rank();
    const std::vector<StringId>& remap = strings_.remap(r);
    ranks_[r]->for_each_marker(
        [](const MarkerRow&) {},
        [&](const Range& range) {
          take(RangeRow{range.begin_ns, range.end_ns, range.thread_id, range.level,
                        range.name < remap.size() ? remap[range.name] : 0, rank_value});
        });
    ranks_[r]->done();
  }

  // The ranges table, staged like the tables: pairing a small rank's ranges reads its markers
  // again.
  void copy_ranges() {
    const std::uint64_t first = first_range();
    producer_->begin(range_table(), kRangeLayout, first,
                     me_.gather ? totals_[range_table()] : ~std::uint64_t{0});
    copy_block(
        table_of<MarkerRow>(),
        [&](std::size_t r, std::vector<std::byte>& staged) {
          // A range takes two markers at least (its start and its end).
          staged.resize(ranks_[r]->reader().row_count<MarkerRow>() / 2 * sizeof(RangeRow));
          std::size_t used = 0;
          range_rows(r, [&](const RangeRow& row) {
            if (used + sizeof row > staged.size()) staged.resize(used + sizeof row);  // never
            std::memcpy(staged.data() + used, &row, sizeof row);
            used += sizeof row;
          });
          staged.resize(used);
          return std::uint64_t{0};
        },
        [&](std::size_t r) {
          range_rows(r, [&](const RangeRow& row) {
            std::memcpy(producer_->next_row(), &row, sizeof row);
          });
          return std::uint64_t{0};
        },
        sizeof(RangeRow));
    producer_->end(last_block());
    if (!me_.gather) totals_[range_table()] = producer_->rows_until_now();
  }

  void write_attributes(const std::string& job_id) {
    const hid_t root = file_handle_->get();
    write_attribute(root, "format", std::string(kMergedTraceFormatName));
    write_attribute(root, "format_version", std::vector<std::uint32_t>{1, 3});
    write_attribute(root, "job_id", job_id);
    write_attribute(root, "clock", std::string("reference rank's CLOCK_BOOTTIME (ns)"));
    if (ranks_.empty()) return;
    const auto& reference = ranks_.front()->reader().metadata();
    write_attribute(root, "reference_rank", ranks_.front()->rank());
    // Wall-clock anchor: reference clock `start_clock_ns` was `start_realtime_ns`.
    write_attribute(root, "start_realtime_ns", reference.start_realtime_ns);
    write_attribute(root, "start_clock_ns", ranks_.front()->align(reference.start_clock_ns));
  }

  // The shared string table.
  void write_strings() {
    const hsize_t count = strings_.texts().size();
    const Handle space(H5Screate_simple(1, &count, nullptr));
    const Handle type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    const Handle dataset(H5Dcreate2(file_handle_->get(), "strings", type.get(), space.get(),
                                    H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    std::vector<const char*> texts;
    texts.reserve(strings_.texts().size());
    for (const auto& text : strings_.texts()) texts.push_back(text.c_str());
    if (H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()) < 0)
      throw std::runtime_error(fmt::format("cannot write the string table of {}", path_));
  }

  // Closed here, every dataset first, and the result checked: the file's last metadata is
  // written now, and where the file system fills up at this point, a file that did not close
  // is no merged trace (the handle would close it without a word).
  void close_file() {
    file_.reset();
    errno = 0;
    if (H5Fclose(file_handle_->release_without_close()) < 0)
      throw std::runtime_error(fmt::format(
          "cannot write {}: its last metadata could not be stored{}", path_, system_said(errno)));
  }

  const std::vector<const AlignedRank*>& ranks_;
  const std::string& path_;
  const MergeShare& me_;
  const ChunkSender sender_{me_};
  ChunkReceiver receiver_{me_};
  Mode mode_;
  std::size_t stagers_;
  std::vector<TableSpec> specs_;
  std::vector<Layout> layouts_;
  std::vector<const Layout*> all_layouts_;
  std::vector<std::pair<std::string, const Layout*>> named_;
  const Strings strings_;
  std::optional<Handle> file_handle_;
  std::optional<FileTables> file_;
  ChunkEncoder receiving_encoder_{Compression{}};
  std::vector<std::uint64_t> totals_;
  std::vector<std::uint64_t> firsts_;
  std::uint64_t my_ranges_ = 0;
  ChunkEncoder encoder_{Compression{}};
  ProgressSteps steps_;
  std::optional<ChunkProducer> producer_;  // last: its helpers use the members above
};

}  // namespace

std::uint64_t export_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                 const std::string& job_id, const std::string& path,
                                 const ProgressReport& progress, const MergeShare* share,
                                 std::size_t encoders, std::size_t stagers) {
  const QuietErrors quiet;
  register_zstd_filter();
  MergeShare serial;
  serial.last_rank = ranks.size();
  MergedHdf5Export writer(ranks, path, progress, share != nullptr ? *share : serial, encoders,
                          stagers);
  return writer.run(job_id);
}

std::uint64_t export_linked_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                        const std::string& job_id, const std::string& path,
                                        const std::string& output_name,
                                        const ProgressReport& progress, const MergeShare& share,
                                        std::size_t encoders, std::size_t stagers) {
  const QuietErrors quiet;
  register_zstd_filter();
  const std::string directory = parts_directory(path);
  // The first process makes the parts' directory; each process then writes its part there
  // as a merge of its block alone. A failure here ends every process (the strategy aborts).
  if (share.leader() && ::mkdir(directory.c_str(), 0777) != 0)
    throw std::runtime_error(
        fmt::format("cannot create {}: {}", directory, std::generic_category().message(errno)));
  share.barrier();
  MergeShare solo;
  solo.first_rank = share.first_rank;
  solo.last_rank = share.last_rank;
  const std::string part = linked_part_path(path, share.index);
  std::vector<std::uint64_t> totals;
  {
    MergedHdf5Export writer(ranks, part, progress, solo, encoders, stagers,
                            MergedHdf5Export::Mode::kPart);
    writer.run(job_id);
    totals = writer.totals();
  }
  // Every part's rows of each table, to the first process, which links them.
  ByteWriter mine;
  mine.put_vector(totals);
  const std::vector<std::vector<std::byte>> everyone = share.all_gather(mine.take());
  if (!share.leader()) return 0;
  std::vector<std::vector<std::uint64_t>> rows;
  for (const auto& bytes : everyone) {
    ByteReader in(bytes);
    rows.push_back(in.get_vector<std::uint64_t>());
    if (rows.back().size() != totals.size())
      throw std::runtime_error("a merge process sent the rows of another set of tables");
  }
  const MergeShare links;
  MergedHdf5Export writer(ranks, path, progress, links, 1, 0, MergedHdf5Export::Mode::kLinks);
  return writer.run_links(job_id, rows, output_name);
}

}  // namespace rocprof::merge
