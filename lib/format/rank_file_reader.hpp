// Reads rank files (docs/FORMAT.md) by streaming: rows come a chunk at a time, never the
// whole file. Used by the tests and the merge tool. One reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/format/compression.hpp"
#include "lib/format/hdf5_util.hpp"
#include "lib/format/rank_metadata.hpp"
#include "lib/format/records.hpp"
#include "lib/format/schema.hpp"

namespace rocprof::format {

// A file that is missing, not a rank file, of an unsupported version, or damaged. what()
// names the file and the problem.
class FormatError : public std::runtime_error {
 public:
  FormatError(const std::string& path, const std::string& problem);
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

// What a check of rocprof-merge's own .h5 output says of `path` (a FormatError's what()): a
// merged trace, not a rank file, and not a bad one either.
std::string merged_trace_problem(const std::string& path);

// One chunk of a table as stored, with everything decoding it needs: filled by
// RankFileReader::fetch_chunk (HDF5, on the reader's thread) and decoded by decode_chunk,
// which touches neither HDF5 nor the reader, so it may run on another thread.
struct StoredChunk {
  // What one dataset stores for the chunk: a table's packed rows (format 2, the only piece),
  // or one column (format 1, a piece per column).
  struct Piece {
    std::vector<std::byte> bytes;
    bool written = false;  // false: the chunk was never written (all zero, the fill value)
    bool wanted = true;    // false: no wanted field is in it, and it was not read
    unsigned filter_mask = 0;
    ColumnPipeline pipeline;
    std::size_t element_size = 0;  // bytes of a stored element (a packed row, or a value)
    const char* column = nullptr;  // the column a format-1 piece holds, for error messages
  };
  struct Field {
    std::size_t width = 0;
    std::size_t offset = 0;         // of the field in a row
    std::size_t packed_offset = 0;  // of the field in its piece's element
    std::size_t piece = 0;
    bool wanted = true;   // false: its field in the rows is left as it was
    bool absent = false;  // the file predates the column
    bool zeroed = false;  // wanted but absent: written as zeros
  };
  std::vector<Piece> pieces;
  std::vector<Field> fields;      // by column of the table
  std::uint64_t chunk_first = 0;  // the table row the chunk starts at
  std::uint64_t chunk_rows = 0;
  std::uint64_t first = 0;  // the rows wanted: [first, first + count), inside the chunk
  std::uint64_t count = 0;
  std::size_t row_size = 0;
  const char* table = "";
  std::string path;  // for error messages
};

// Buffers for decode_chunk, reused from chunk to chunk: one set per thread that decodes.
struct ChunkDecodeBuffers {
  ChunkDecoder decoder;
  std::vector<std::vector<std::byte>> images;  // a decoded chunk per piece
  std::vector<bool> shuffled;                  // per piece: images[p] holds byte planes
};

// Rows [chunk.first, chunk.first + chunk.count) into `rows` (count * row_size bytes; padding
// between fields, and the fields of columns not wanted, are left as they were). Throws
// FormatError if a column does not decode.
void decode_chunk(const StoredChunk& chunk, ChunkDecodeBuffers& buffers, std::byte* rows);

class RankFileReader {
 public:
  // Opens and validates `path` (format name and major version, every table's columns and
  // types, the string table). Reads formats 2.x and 1.x. Throws FormatError.
  explicit RankFileReader(const std::string& path);

  // What a reader knows of its file once open, and the small communicator table: what a
  // parallel merge's process that checked a file tells the others, so that they need not
  // open it themselves.
  // Where a checked file's tables lie (what the check found and located): with it, a digest
  // makes a reader of the file itself, one that reads the tables located at the check with
  // pread() and opens the file in HDF5 only for the others. A merge's check helpers (other
  // processes, merge/input/check_helpers.hpp) send it, so that the files they checked need
  // not be opened again here.
  struct Layout {
    struct Chunk {
      std::uint64_t address = 0;  // 0 with size 0: never written
      std::uint64_t size = 0;
      std::uint32_t filter_mask = 0;
      std::uint32_t padding = 0;
    };
    struct Column {
      std::vector<std::uint8_t> filters;  // ColumnPipeline::Filter values, in order
      bool supported = true;
      std::vector<Chunk> chunks;
    };
    struct TableLayout {
      std::uint64_t element_size = 0;
      std::vector<std::uint64_t> field_offsets;
      bool mapped = false;  // located at the check (the fields below are valid)
      bool decodable = false;
      std::uint64_t chunk_rows = 0;
      std::vector<Column> columns;
    };
    bool packed = false;
    std::uint64_t base_address = 0;
    std::vector<TableLayout> tables;  // in all_tables() order
  };
  struct Digest {
    std::string path;
    RankMetadata metadata;
    RankFileStatus status;
    std::uint32_t version_major = 0;
    std::uint32_t version_minor = 0;
    std::vector<std::uint64_t> rows;  // by table, in all_tables() order
    std::vector<std::string> strings;
    std::vector<ClockSampleRow> clock_samples;
    std::vector<CommunicatorRow> communicators;
    std::optional<Layout> layout;
  };
  // Reads the communicator table (then releases the file); `with_layout`: the layout too,
  // with every table's chunks located (HDF5 walks each table's chunk index here). Throws
  // FormatError.
  Digest digest(bool with_layout = false) const;
  // A reader of a file another process checked. Without a layout it answers from the
  // digest, reads the communicator table from it, and throws FormatError for any other
  // table's rows; with one, it is a reader of the file as the check left it (released).
  explicit RankFileReader(Digest digest);
  bool from_digest() const noexcept { return from_digest_; }

  ~RankFileReader();
  RankFileReader(const RankFileReader&) = delete;
  RankFileReader& operator=(const RankFileReader&) = delete;

  const std::string& path() const noexcept { return path_; }
  const RankMetadata& metadata() const noexcept { return metadata_; }
  const RankFileStatus& status() const noexcept { return status_; }
  std::uint32_t version_major() const noexcept { return version_major_; }
  std::uint32_t version_minor() const noexcept { return version_minor_; }

  // Rows of a table (the shortest column, should a killed writer have left them unequal).
  std::uint64_t row_count(const Table& table) const;
  template <typename Row>
  std::uint64_t row_count() const {
    return row_count(table_of<Row>());
  }

  // Reads rows [first, first + count) of Row's table into `out` (resized). Throws
  // FormatError if a chunk cannot be decoded. Only the `columns` asked for are read: the
  // other fields of the rows are left as they were.
  template <typename Row>
  void read(std::uint64_t first, std::uint64_t count, std::vector<Row>& out,
            ColumnSet columns = kAllColumns) const {
    out.resize(count);
    read_rows(table_of<Row>(), first, count, reinterpret_cast<std::byte*>(out.data()), columns);
  }
  // The stored chunk of Row's table that holds row `first`, for rows [first, first + count)
  // cut at the chunk's end (out.count says how many). False, with nothing read, when a column
  // has a filter decode_chunk does not know: read() such a table instead. Throws FormatError.
  template <typename Row>
  bool fetch_chunk(std::uint64_t first, std::uint64_t count, StoredChunk& out) const {
    return fetch_chunk(table_of<Row>(), first, count, out);
  }
  bool fetch_chunk(const Table& table, std::uint64_t first, std::uint64_t count, StoredChunk& out,
                   ColumnSet columns = kAllColumns) const;

  // Stored chunks are read with pread() at addresses HDF5 gave once, not through HDF5: a
  // merge reads each rank's file in several passes, and reopening a file and its datasets
  // for each pass cost more than reading a small rank. map_chunks locates a table's chunks
  // (through HDF5 on the caller's thread, unless the check at open already did); then
  // read_chunk may run on any thread, even while the caller maps other tables. False when
  // a column has a filter decode_chunk does not know. Throws FormatError.
  template <typename Row>
  bool map_chunks() const {
    return map_chunks(table_of<Row>());
  }
  bool map_chunks(const Table& table) const;
  // Whether reading the table needs no HDF5 call at all: empty, or its chunks were located
  // at open and our decoder knows their filters. Such a table may be read on any thread.
  bool reads_without_hdf5(const Table& table) const;
  // The same for every table of the file (and a file behind the reader): the whole rank may
  // then be read on another thread while this one calls HDF5 for other files.
  bool reads_without_hdf5() const;

  // Rows per stored chunk of a table map_chunks mapped (read_chunk reads no further).
  template <typename Row>
  std::uint64_t chunk_rows() const {
    return chunk_rows(table_of<Row>());
  }
  std::uint64_t chunk_rows(const Table& table) const;
  template <typename Row>
  void read_chunk(std::uint64_t first, std::uint64_t count, StoredChunk& out,
                  ColumnSet columns = kAllColumns) const {
    read_chunk(table_of<Row>(), first, count, out, columns);
  }
  void read_chunk(const Table& table, std::uint64_t first, std::uint64_t count, StoredChunk& out,
                  ColumnSet columns = kAllColumns) const;

  // Reads every chunk of every table, each checked against its checksum and decoded, a
  // bounded piece at a time: a check of the whole file, for a merge that must find a damaged
  // chunk before it starts (--skip-bad) rather than halfway. Throws FormatError naming the
  // first damaged chunk's rows. Leaves the file open, as a read does (release() closes it).
  void verify_every_chunk() const;

  // Every row of a table; for tests and small tables.
  template <typename Row>
  std::vector<Row> read_all() const {
    std::vector<Row> rows;
    read(0, row_count<Row>(), rows);
    return rows;
  }

  // Closes the file until the next read (which reopens it): a merge checks every rank's file
  // first and then reads one after the other, so only one needs to be open at a time. Chunk
  // maps of small tables are kept (made at open); larger ones are made again when needed.
  void release() const noexcept;
  // Whether HDF5 holds the file open (from the check, or a read through HDF5).
  bool open_in_hdf5() const noexcept { return file_.valid(); }

  // The string table is small: loaded at open. Unknown ids throw FormatError.
  const std::string& string(StringId id) const;
  std::size_t string_count() const noexcept { return strings_.size(); }

  // The clock-sync samples (small: loaded at open).
  const std::vector<ClockSampleRow>& clock_samples() const noexcept { return clock_samples_; }

 private:
  struct TableHandles {
    std::uint64_t rows = 0;
    // Format 2: bytes of a stored packed row, and where each column's field lies in it (as
    // the file's row type says; kAbsentField for a column the file's version predates).
    std::size_t element_size = 0;
    std::vector<std::size_t> field_offsets;
  };
  static constexpr std::size_t kAbsentField = ~std::size_t{0};
  // Whether the file predates column `c` of a table (it then reads as zeros).
  bool column_absent(const TableHandles& handles, const Column& column,
                     std::size_t c) const noexcept {
    return packed_ ? handles.field_offsets[c] == kAbsentField : column.since_minor > 0;
  }
  // Where a column's stored chunks lie: file address (the user block included) and stored
  // size, 0 for a chunk never written (it reads as zeros), by chunk number.
  struct ChunkLocation {
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    unsigned filter_mask = 0;
  };
  struct ColumnMap {
    ColumnPipeline pipeline;
    std::vector<ChunkLocation> chunks;
  };
  struct TableMap {
    bool mapped = false;     // the fields below are valid
    bool decodable = false;  // every dataset's pipeline is decode_chunk's (set with mapped)
    bool kept = false;       // made at open (small): survives release()
    std::uint64_t chunk_rows = 0;
    std::vector<ColumnMap> columns;  // by dataset: the table's one (format 2), or by column
  };
  void check_column_groups(hid_t root, const Table& table, TableHandles& handles, TableMap& map,
                           hid_t dataset_access) const;
  void check_packed_table(hid_t root, const Table& table, TableHandles& handles, TableMap& map,
                          hid_t dataset_access) const;
  // Locates the chunks of a column (format 1, `name` its column) or of a table's packed rows
  // (format 2, `name` null). `stored_type`: the dataset's type if the caller has it open
  // (H5I_INVALID_HID: asked for here).
  void map_column(hid_t dataset, std::uint64_t rows, TableMap& map, ColumnMap& column,
                  const char* table, const char* name, hid_t stored_type = H5I_INVALID_HID) const;
  static void finish_map(TableMap& map);
  const TableMap& table_map(std::size_t table_index, const Table& table) const;
  hid_t open_dataset(std::size_t table_index, const Table& table, std::size_t column) const;
  void read_rows(const Table& table, std::uint64_t first, std::uint64_t count, std::byte* rows,
                 ColumnSet columns) const;
  [[noreturn]] void fail(const std::string& problem) const;

  void reopen() const;

  std::string path_;
  mutable Handle file_;
  RankMetadata metadata_;
  RankFileStatus status_;
  std::uint32_t version_major_ = 0;
  std::uint32_t version_minor_ = 0;
  bool packed_ = false;  // format 2: a dataset of packed rows per table
  std::vector<TableHandles> tables_;
  std::vector<std::string> strings_;
  std::vector<ClockSampleRow> clock_samples_;
  std::uint64_t base_address_ = 0;                     // HDF5 addresses start after a user block
  mutable std::uint64_t file_size_ = 0;                // at the check: chunks must lie inside
  mutable std::vector<TableMap> maps_;                 // by table; sized at open
  mutable std::vector<std::vector<Handle>> datasets_;  // by table: its datasets, when opened
  mutable int raw_file_ = -1;                          // for read_chunk's pread()
  bool from_digest_ = false;                           // no file behind this reader
  std::vector<CommunicatorRow> digest_communicators_;  // what a digest reader can read
};

// Streams a table block by block: `while (cursor.next(rows)) ...`.
template <typename Row>
class TableCursor {
 public:
  explicit TableCursor(const RankFileReader& reader, std::uint64_t block_rows = kChunkRows)
      : reader_(reader), total_(reader.row_count<Row>()), block_rows_(block_rows) {}
  bool next(std::vector<Row>& rows) {
    if (position_ >= total_) return false;
    const std::uint64_t count = std::min(block_rows_, total_ - position_);
    reader_.read(position_, count, rows);
    position_ += count;
    return true;
  }

 private:
  const RankFileReader& reader_;
  std::uint64_t total_;
  std::uint64_t block_rows_;
  std::uint64_t position_ = 0;
};

}  // namespace rocprof::format
