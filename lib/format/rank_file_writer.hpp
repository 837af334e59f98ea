// Writes one rank file (docs/FORMAT.md). Used by the recorder's writer thread only: not
// thread-safe, and it may block on I/O.
//
// Crash safety: the file is created with superblock version 2, a "never reuse file space"
// strategy, no block aggregators, and metadata cache evictions off; each flush ends with a
// gap past the allocated space, and a chunk is never rewritten in place. Between flushes
// nothing on disk that the last flush's metadata points to is modified (new and rewritten
// chunks go to fresh space at the end), so a process killed at any moment outside flush()
// leaves the file exactly as of the last flush, readable by stock HDF5 tools without repair.
//
// Disk full: where the file system supports fallocate, space is reserved ahead of every write
// with a margin for the metadata; when the reservation fails, nothing more is written, the
// file is closed (readable, `complete` 0) and the call fails with "no space left".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/format/compression.hpp"
#include "lib/format/hdf5_util.hpp"
#include "lib/format/rank_metadata.hpp"
#include "lib/format/records.hpp"
#include "lib/format/schema.hpp"

namespace rocprof::format {

class RankFileWriter {
 public:
  // Creates `path`, which must not exist (so two processes can never share a file). Returns
  // nullptr with `error` set on failure; `error` names the path and the reason.
  static std::unique_ptr<RankFileWriter> create(const std::string& path,
                                                const RankMetadata& metadata,
                                                const Compression& compression, std::string& error);
  ~RankFileWriter();
  RankFileWriter(const RankFileWriter&) = delete;
  RankFileWriter& operator=(const RankFileWriter&) = delete;

  // Appends rows; full chunks are encoded and written at once, the rest waits for flush().
  template <typename Row>
  bool append(std::span<const Row> rows) {
    return append_rows(table_index(table_of<Row>()),
                       reinterpret_cast<const std::byte*>(rows.data()), rows.size());
  }
  template <typename Row>
  bool append(const Row& row) {
    return append(std::span<const Row>(&row, 1));
  }

  // The id of `text` in this file's string table (added on first use).
  StringId intern(std::string_view text);

  // Corrects the rank and size attributes (the MPI layer knows them only after MPI_Init).
  bool set_identity(std::int32_t rank, std::int32_t size);

  // Makes everything appended so far durable (partial chunks, new strings, status).
  bool flush(const RankFileStatus& status);
  // Final flush with `complete` set, then closes the file. The writer is unusable after.
  bool close(RankFileStatus status);

  // Why the last failing call failed (path included).
  const std::string& error() const noexcept { return error_; }
  const std::string& path() const noexcept { return path_; }
  // The file descriptor HDF5 writes through (-1 if unknown); see the recorder's fork handling.
  int file_descriptor() const noexcept { return fd_; }
  // Gives the file up without another byte written through the descriptor: HDF5's handle is
  // pointed at an anonymous scratch file (its later close, even at the library's own
  // shutdown, writes there), and the writer is unusable after.
  void abandon() noexcept;
  // Gives back the disk space reserved past the file's end (done by close(); also for a
  // process that ends without closing, as _exit does). Not while another call writes.
  void release_reservation() noexcept;
  std::uint64_t rows(const Table& table) const noexcept;
  std::uint64_t bytes_on_disk() const noexcept;

 private:
  struct TableState {
    const Table* table = nullptr;
    Handle dataset;  // of packed rows; made with the first chunk written
    // Rows per chunk of its dataset: the table's; at close, a table that never filled a chunk
    // is rewritten in one chunk of exactly its rows.
    std::size_t chunk_rows = 0;
    std::uint64_t full_chunks = 0;  // chunks written whole; never rewritten
    // Rows after the last full chunk; allocated at the table's first row, and never zeroed:
    // a process pays in memory and page faults only for the tables it uses.
    std::unique_ptr<std::byte[]> tail;
    std::size_t tail_rows = 0;
    bool tail_dirty = false;  // tail changed since it was last written
    // Bytes of the tail's chunk as last written (0: not written since the last full chunk).
    std::size_t tail_stored_bytes = 0;
  };

  RankFileWriter(std::string path, const Compression& compression);
  bool initialise(const RankMetadata& metadata);
  static std::size_t table_index(const Table& table) noexcept;
  bool append_rows(std::size_t table, const std::byte* rows, std::size_t count);
  bool write_chunk(TableState& state, std::size_t rows);
  bool fit_single_chunks();
  bool write_strings();
  bool write_status(const RankFileStatus& status);
  bool fence_flushed_space();
  bool reserve(std::uint64_t bytes);
  void close_after_disk_full();
  bool fail(std::string_view what);

  std::string path_;
  Compression compression_;
  ChunkEncoder encoder_;
  std::vector<std::byte> stored_;  // a chunk as stored: encoded, then its checksum
  Handle file_;
  std::vector<TableState> tables_;
  std::vector<ChunkEncoder::Field> fields_;

  Handle strings_;
  std::vector<std::string> strings_pending_;  // interned since the last write
  std::uint64_t strings_written_ = 0;
  std::uint32_t strings_crc_ = 0;  // of the strings written (extend_strings_crc)
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };
  std::unordered_map<std::string, StringId, StringHash, std::equal_to<>> string_ids_;

  // Disk space reserved ahead of the file's end (fallocate, size unchanged), so running out
  // of space is noticed before HDF5 writes anything and the file can still be closed.
  int fd_ = -1;
  int* driver_fd_ = nullptr;  // the descriptor inside HDF5's file driver
  bool can_reserve_ = true;
  std::uint64_t reserved_end_ = 0;

  std::string error_;
  bool failed_ = false;
};

}  // namespace rocprof::format
