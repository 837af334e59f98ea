// How each row type of records.hpp is stored. Format 2: a table is one 1-D dataset of packed
// rows (an HDF5 compound type whose members are the columns, in order, without padding).
// Format 1 (still read): a group per table, one 1-D dataset per column. The writer and the
// reader both walk these descriptions, so the layout exists only here.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "lib/format/records.hpp"

namespace rocprof::format {

enum class ColumnType : std::uint8_t { kU8, kU32, kU64, kI32, kI64, kF64 };

struct Column {
  const char* name;
  ColumnType type;
  std::uint32_t offset;  // byte offset of the field in the row struct
  // The format-2 minor version that added the column: files of older versions (and every
  // format-1 file) lack it, and it reads as zero from them.
  std::uint32_t since_minor = 0;
};

// Rows of a chunk of a table of events: large enough for good compression (a synthetic job's
// MPI calls take less than half the space in chunks of 16384 rows than of 4096), small enough
// that a reader streams a file in small steps. Recorded as each dataset's chunk size.
inline constexpr std::size_t kChunkRows = 16384;
// Format 1 chunked every column by the same number of rows, small tables too.
inline constexpr std::size_t kColumnGroupsChunkRows = 16384;
// Format 2 gives tables that stay small (clock samples, communicators, ...) smaller chunks:
// reading one decodes a whole chunk, and every reader reads them first.
inline constexpr std::size_t kSmallTableChunkRows = 256;

struct Table {
  const char* name;  // the dataset (format 2) or group (format 1) under the file root
  std::size_t row_size;
  std::span<const Column> columns;
  std::size_t chunk_rows = kChunkRows;  // written in format 2 (format 1: kColumnGroupsChunkRows)
  // The format-2 minor version that added the table: never in format-1 files.
  std::uint32_t since_minor = 0;
};

std::size_t column_type_size(ColumnType type) noexcept;
// The native HDF5 type used in memory and in the file (little-endian on x86-64).
hid_t column_hdf5_type(ColumnType type) noexcept;
std::string_view column_type_name(ColumnType type) noexcept;

// Bytes of a table's packed row (format 2): its columns side by side, in order.
std::size_t packed_row_size(const Table& table) noexcept;
// The HDF5 compound type of a table's packed rows as stored (format 2), and of its rows in
// memory (the row struct's layout, for HDF5's own reads): new ids the caller closes.
hid_t create_packed_row_type(const Table& table) noexcept;
hid_t create_memory_row_type(const Table& table) noexcept;

// The table each row type is stored in.
template <typename Row>
const Table& table_of() noexcept;

// Every table, in file order.
std::span<const Table* const> all_tables() noexcept;

// A set of a table's columns, bit i for table.columns[i]: readers can skip the others.
using ColumnSet = std::uint64_t;
inline constexpr ColumnSet kAllColumns = ~ColumnSet{0};
// The columns of `table` with these names; throws std::invalid_argument for a name it lacks.
ColumnSet columns_named(const Table& table, std::initializer_list<std::string_view> names);

// Group holding the string table (dataset "strings" of variable-length UTF-8 strings).
inline constexpr const char* kStringsDataset = "strings";
// The root attribute `strings_crc32` (since 2.7): `crc` (0 to start) extended by the next
// string of the table, as HDF5 stores it: its bytes up to its first NUL, then one NUL.
std::uint32_t extend_strings_crc(std::uint32_t crc, const char* text) noexcept;

}  // namespace rocprof::format
