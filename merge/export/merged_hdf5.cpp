#include "merge/export/merged_hdf5.hpp"

#include <hdf5.h>

#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "lib/format/compression.hpp"
#include "lib/format/hdf5_util.hpp"
#include "lib/format/schema.hpp"
#include "lib/format/zstd_filter.hpp"
#include "merge/events/rank_progress.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

constexpr hsize_t kChunk = 65536;

// Which columns hold string ids and which hold times on the trace clock, per table.
const std::set<std::string> kStringColumns = {"kernel_name", "message", "function",
                                              "counter",     "name",    "creator"};
const std::set<std::string> kTimeColumns = {"begin_ns", "end_ns",     "timestamp_ns",
                                            "start_ns", "created_ns", "first_seen_ns"};

// One extensible 1-D dataset per column, appended to block by block.
class MergedTable {
 public:
  MergedTable(hid_t file, const std::string& name, std::vector<Column> columns)
      : columns_(std::move(columns)) {
    group_ = Handle(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (const Column& column : columns_) {
      const hsize_t zero = 0;
      const hsize_t unlimited = H5S_UNLIMITED;
      const Handle space(H5Screate_simple(1, &zero, &unlimited));
      const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
      H5Pset_chunk(properties.get(), 1, &kChunk);
      add_filters(properties.get(), Compression{}, column_type_size(column.type));
      datasets_.emplace_back(H5Dcreate2(group_.get(), column.name, column_hdf5_type(column.type),
                                        space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT));
      if (!datasets_.back().valid())
        throw std::runtime_error(fmt::format("cannot create {}/{}", name, column.name));
    }
  }
  // `rows`: count rows of `row_size` bytes laid out as the columns' offsets say.
  void append(const std::byte* rows, std::size_t row_size, std::size_t count) {
    if (count == 0) return;
    const hsize_t first = rows_;
    const hsize_t length = count;
    const hsize_t extent = first + length;
    const Handle memory(H5Screate_simple(1, &length, nullptr));
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::size_t width = column_type_size(columns_[c].type);
      scratch_.resize(count * width);
      for (std::size_t r = 0; r < count; ++r)
        std::memcpy(scratch_.data() + r * width, rows + r * row_size + columns_[c].offset, width);
      const hid_t dataset = datasets_[c].get();
      H5Dset_extent(dataset, &extent);
      const Handle file_space(H5Dget_space(dataset));
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &first, nullptr, &length, nullptr);
      if (H5Dwrite(dataset, column_hdf5_type(columns_[c].type), memory.get(), file_space.get(),
                   H5P_DEFAULT, scratch_.data()) < 0)
        throw std::runtime_error(fmt::format("cannot write column {}", columns_[c].name));
    }
    rows_ = extent;
  }
  std::uint64_t rows() const { return rows_; }

 private:
  std::vector<Column> columns_;
  Handle group_;
  std::vector<Handle> datasets_;
  std::vector<std::byte> scratch_;
  hsize_t rows_ = 0;
};

// Rank-file rows extended with the rank, in a buffer laid out for MergedTable.
struct Layout {
  std::vector<Column> columns;
  std::size_t row_size;
};

Layout with_rank(const Table& table) {
  Layout layout;
  layout.row_size = table.row_size + sizeof(std::int32_t);
  layout.row_size = (layout.row_size + 7) / 8 * 8;
  layout.columns.push_back({"rank", ColumnType::kI32, static_cast<std::uint32_t>(table.row_size)});
  for (Column column : table.columns) {
    // communicators.rank is the rank inside that communicator; "rank" is the world rank here.
    if (std::string_view(column.name) == "rank") column.name = "comm_rank";
    layout.columns.push_back(column);
  }
  return layout;
}

// Global string ids: each rank's ids are remapped into one table.
class Strings {
 public:
  StringId global(const std::string& text) {
    const auto [it, added] = ids_.emplace(text, static_cast<StringId>(texts_.size()));
    if (added) texts_.push_back(text);
    return it->second;
  }
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  std::unordered_map<std::string, StringId> ids_{{"", 0}};
  std::vector<std::string> texts_{""};
};

template <typename Row>
std::uint64_t copy_table(hid_t file, const AlignedRank* const* begin, const AlignedRank* const* end,
                         Strings& strings, ProgressSteps& steps) {
  const Table& table = table_of<Row>();
  const Layout layout = with_rank(table);
  MergedTable merged(file, table.name, layout.columns);
  std::vector<std::byte> buffer;
  std::vector<Row> rows;
  for (const auto* it = begin; it != end; ++it) {
    const AlignedRank& rank = **it;
    const RankFileReader& reader = rank.reader();
    std::vector<StringId> remap(reader.string_count());
    for (StringId id = 0; id < remap.size(); ++id) remap[id] = strings.global(reader.string(id));
    TableCursor<Row> cursor(reader);
    while (cursor.next(rows)) {
      buffer.assign(rows.size() * layout.row_size, std::byte{0});
      for (std::size_t r = 0; r < rows.size(); ++r) {
        std::byte* out = buffer.data() + r * layout.row_size;
        std::memcpy(out, &rows[r], sizeof(Row));
        const std::int32_t rank_value = rank.rank();
        std::memcpy(out + table.row_size, &rank_value, sizeof rank_value);
        for (const Column& column : table.columns) {
          std::byte* field = out + column.offset;
          if (kTimeColumns.contains(column.name)) {
            std::uint64_t t = 0;
            std::memcpy(&t, field, sizeof t);
            t = rank.align(t);
            std::memcpy(field, &t, sizeof t);
          } else if (kStringColumns.contains(column.name)) {
            StringId id = 0;
            std::memcpy(&id, field, sizeof id);
            id = id < remap.size() ? remap[id] : 0;
            std::memcpy(field, &id, sizeof id);
          }
        }
      }
      merged.append(buffer.data(), layout.row_size, rows.size());
    }
    steps.step();
  }
  return merged.rows();
}

// Paired ranges: rank, thread, level, name, begin, end (aligned).
struct RangeRow {
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::uint32_t thread_id;
  std::uint32_t level;
  StringId name;
  std::int32_t rank;
};

}  // namespace

std::uint64_t export_merged_hdf5(const std::vector<const AlignedRank*>& ranks,
                                 const std::string& job_id, const std::string& path,
                                 const ProgressReport& progress) {
  const QuietErrors quiet;
  register_zstd_filter();
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  if (!file.valid()) throw std::runtime_error(fmt::format("cannot create {}", path));
  const hid_t root = file.get();
  write_attribute(root, "format", std::string("rocprof-mpi merged trace"));
  write_attribute(root, "format_version", std::vector<std::uint32_t>{1, 0});
  write_attribute(root, "job_id", job_id);
  write_attribute(root, "clock", std::string("reference rank's CLOCK_BOOTTIME (ns)"));
  if (!ranks.empty()) {
    const auto& reference = ranks.front()->reader().metadata();
    write_attribute(root, "reference_rank", ranks.front()->rank());
    // Wall-clock anchor: reference clock `start_clock_ns` was `start_realtime_ns`.
    write_attribute(root, "start_realtime_ns", reference.start_realtime_ns);
    write_attribute(root, "start_clock_ns", ranks.front()->align(reference.start_clock_ns));
  }
  Strings strings;
  // Ten tables copied rank by rank, then the ranges of each rank.
  ProgressSteps steps(progress, 11 * ranks.size());
  const AlignedRank* const* begin = ranks.data();
  const AlignedRank* const* end = ranks.data() + ranks.size();
  std::uint64_t rows = 0;
  rows += copy_table<ApiCallRow>(root, begin, end, strings, steps);
  rows += copy_table<ActivityRow>(root, begin, end, strings, steps);
  rows += copy_table<ExternalCorrelationRow>(root, begin, end, strings, steps);
  rows += copy_table<MarkerRow>(root, begin, end, strings, steps);
  rows += copy_table<MpiCallRow>(root, begin, end, strings, steps);
  rows += copy_table<CommunicatorRow>(root, begin, end, strings, steps);
  rows += copy_table<CounterSampleRow>(root, begin, end, strings, steps);
  rows += copy_table<CounterSessionRow>(root, begin, end, strings, steps);
  rows += copy_table<ClockSampleRow>(root, begin, end, strings, steps);
  rows += copy_table<ThreadRow>(root, begin, end, strings, steps);

  const std::vector<Column> range_columns = {
      {"begin_ns", ColumnType::kU64, offsetof(RangeRow, begin_ns)},
      {"end_ns", ColumnType::kU64, offsetof(RangeRow, end_ns)},
      {"thread_id", ColumnType::kU32, offsetof(RangeRow, thread_id)},
      {"level", ColumnType::kU32, offsetof(RangeRow, level)},
      {"name", ColumnType::kU32, offsetof(RangeRow, name)},
      {"rank", ColumnType::kI32, offsetof(RangeRow, rank)},
  };
  MergedTable ranges(root, "ranges", range_columns);
  std::vector<RangeRow> pending;
  for (const AlignedRank* rank : ranks) {
    rank->for_each_marker(
        [](const MarkerRow&) {},
        [&](const Range& range) {
          pending.push_back({range.begin_ns, range.end_ns, range.thread_id, range.level,
                             strings.global(rank->reader().string(range.name)), rank->rank()});
          if (pending.size() == kChunk) {
            ranges.append(reinterpret_cast<const std::byte*>(pending.data()), sizeof(RangeRow),
                          pending.size());
            pending.clear();
          }
        });
    steps.step();
  }
  ranges.append(reinterpret_cast<const std::byte*>(pending.data()), sizeof(RangeRow),
                pending.size());
  rows += ranges.rows();

  // The shared string table.
  const hsize_t count = strings.texts().size();
  const Handle space(H5Screate_simple(1, &count, nullptr));
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  const Handle dataset(
      H5Dcreate2(root, "strings", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  std::vector<const char*> texts;
  texts.reserve(strings.texts().size());
  for (const auto& text : strings.texts()) texts.push_back(text.c_str());
  if (H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()) < 0)
    throw std::runtime_error(fmt::format("cannot write the string table of {}", path));
  return rows;
}

}  // namespace rocprof::merge
