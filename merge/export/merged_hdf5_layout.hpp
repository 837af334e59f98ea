#pragma once
// The merged file's tables as rows in memory: the chunk size, the columns that hold string
// ids and trace-clock times, and the row layouts (rank-file rows with the rank, paired ranges).
// Internal to the merged .h5 output (merged_hdf5.cpp); in namespace merged_hdf5.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/format/compression.hpp"
#include "lib/format/schema.hpp"

namespace rocprof::merge::merged_hdf5 {

using namespace rocprof::format;

inline constexpr std::size_t kChunk = 65536;  // rows per chunk of a merged table

// Which columns hold string ids and which hold times on the trace clock, per table.
inline const std::set<std::string> kStringColumns = {
    "kernel_name", "message", "function", "counter", "name",
    "creator",     "text",    "uri",      "backend", "counters"};
inline const std::set<std::string> kTimeColumns = {"begin_ns", "end_ns",     "timestamp_ns",
                                                   "start_ns", "created_ns", "first_seen_ns"};

// Rows of a merged table in a buffer: the columns, the row size, and the fields the chunk
// encoder splits them into.
struct Layout {
  std::vector<Column> columns;
  std::size_t row_size;
  std::vector<ChunkEncoder::Field> fields;
};

inline Layout make_layout(std::vector<Column> columns, std::size_t row_size) {
  Layout layout{std::move(columns), row_size, {}};
  for (const Column& column : layout.columns)
    layout.fields.push_back({column.offset, column_type_size(column.type)});
  return layout;
}

// Rank-file rows extended with the rank.
inline Layout with_rank(const Table& table) {
  std::vector<Column> columns;
  columns.push_back({"rank", ColumnType::kI32, static_cast<std::uint32_t>(table.row_size)});
  for (Column column : table.columns) {
    // communicators.rank is the rank inside that communicator; "rank" is the world rank here.
    if (std::string_view(column.name) == "rank") column.name = "comm_rank";
    columns.push_back(column);
  }
  return make_layout(std::move(columns), (table.row_size + sizeof(std::int32_t) + 7) / 8 * 8);
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

inline const Layout kRangeLayout = make_layout(
    {
        {"begin_ns", ColumnType::kU64, offsetof(RangeRow, begin_ns)},
        {"end_ns", ColumnType::kU64, offsetof(RangeRow, end_ns)},
        {"thread_id", ColumnType::kU32, offsetof(RangeRow, thread_id)},
        {"level", ColumnType::kU32, offsetof(RangeRow, level)},
        {"name", ColumnType::kU32, offsetof(RangeRow, name)},
        {"rank", ColumnType::kI32, offsetof(RangeRow, rank)},
    },
    sizeof(RangeRow));

}  // namespace rocprof::merge::merged_hdf5
