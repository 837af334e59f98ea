#include "lib/format/rank_file_writer.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <system_error>

#include <fmt/format.h>

#include "lib/format/hdf5_superblock.hpp"
#include "lib/format/text.hpp"

namespace rocprof::format {
namespace {

// Space kept reserved past the file's end: covers the metadata of a final close.
constexpr std::uint64_t kReserveMargin = std::uint64_t{1} << 20;
constexpr std::uint64_t kReserveStep = std::uint64_t{4} << 20;

// The gap left past the allocated space after each flush (fence_flushed_space).
constexpr hsize_t kFenceBytes = 8;

// Strings are few and short; no filter applies to variable-length data anyway.
constexpr hsize_t kStringChunk = 1024;

bool reserve_path(const std::string& path, std::string& error) {
  // O_EXCL: of two processes given the same name, exactly one gets it.
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = fmt::format("cannot create {}: {}", path, std::generic_category().message(errno));
    return false;
  }
  ::close(fd);
  return true;
}

Handle vlen_string_type() {
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

Handle create_extensible(hid_t parent, const char* name, hid_t type, hsize_t chunk,
                         const Compression* compression, std::size_t element_size) {
  const hsize_t zero = 0;
  const hsize_t unlimited = H5S_UNLIMITED;
  const Handle space(H5Screate_simple(1, &zero, &unlimited));
  const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_chunk(properties.get(), 1, &chunk);
  if (compression != nullptr) {
    // Chunks are always written whole; variable-length strings may not skip the fill value.
    H5Pset_fill_time(properties.get(), H5D_FILL_TIME_NEVER);
    if (!add_filters(properties.get(), *compression, element_size)) return {};
    // Last: a checksum over each chunk's stored bytes, so that damage is found, not read.
    if (H5Pset_fletcher32(properties.get()) < 0) return {};
  }
  return Handle(
      H5Dcreate2(parent, name, type, space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT));
}

// The attribute holds the leading arguments that fit easily in an object header; a longer
// command line is kept whole in a dataset of the same name beside it.
bool write_command_line(hid_t root, const std::vector<std::string>& arguments) {
  constexpr std::size_t kAttributeArguments = 256;
  constexpr std::size_t kAttributeBytes = std::size_t{16} * 1024;
  std::size_t fitting = 0;
  std::size_t bytes = 0;
  while (fitting < arguments.size() && fitting < kAttributeArguments &&
         bytes + arguments[fitting].size() <= kAttributeBytes)
    bytes += arguments[fitting++].size();
  if (fitting == arguments.size()) return write_attribute(root, "command_line", arguments);
  const std::vector<std::string> leading(arguments.begin(),
                                         arguments.begin() + static_cast<std::ptrdiff_t>(fitting));
  return write_attribute(root, "command_line", leading) &&
         write_string_dataset(root, "command_line", arguments);
}

}  // namespace

std::unique_ptr<RankFileWriter> RankFileWriter::create(const std::string& path,
                                                       const RankMetadata& metadata,
                                                       const Compression& compression,
                                                       std::string& error) {
  if (!reserve_path(path, error)) return nullptr;
  std::unique_ptr<RankFileWriter> writer(new RankFileWriter(path, compression));
  if (!writer->initialise(metadata)) {
    // Nothing useful is in it (no room for the first reservation, say): no stub is left for
    // a reader to stumble on.
    error = writer->error();
    writer.reset();
    ::unlink(path.c_str());
    return nullptr;
  }
  return writer;
}

RankFileWriter::RankFileWriter(std::string path, const Compression& compression)
    : path_(std::move(path)), compression_(compression), encoder_(compression) {}

RankFileWriter::~RankFileWriter() = default;

bool RankFileWriter::fail(std::string_view what) {
  const std::string detail = hdf5_error_text();
  error_ = detail.empty() ? fmt::format("{}: {}", path_, what)
                          : fmt::format("{}: {} ({})", path_, what, detail);
  failed_ = true;
  return false;
}

bool RankFileWriter::initialise(const RankMetadata& metadata) {
  const QuietErrors quiet;
  const Handle create_properties(H5Pcreate(H5P_FILE_CREATE));
  // Freed space is never reused: the chunks the last flush points to stay intact on disk.
  H5Pset_file_space_strategy(create_properties.get(), H5F_FSPACE_STRATEGY_NONE, false, 1);
  const Handle access_properties(H5Pcreate(H5P_FILE_ACCESS));
  // HDF5 1.8's object formats, so 1.8 tools read the files, and object headers carry
  // checksums (damage is found, not read); the file space setting alone needs superblock
  // version 2, which (unlike version 3) leaves no "open for writing" flag behind that would
  // make readers refuse a file whose writer was killed.
  H5Pset_libver_bounds(access_properties.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  // No flock: one process writes each file (O_EXCL makes sure), readers may look at it while
  // it is written or while its process is going down, and some parallel file systems
  // refuse flock altogether.
  H5Pset_file_locking(access_properties.get(), false, true);
  // No block aggregators: a block the last flush points to, once freed (a rewritten tail
  // chunk), could otherwise be absorbed into one and handed out again before the next flush.
  H5Pset_meta_block_size(access_properties.get(), 0);
  H5Pset_small_data_block_size(access_properties.get(), 0);
  file_ = Handle(
      H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, create_properties.get(), access_properties.get()));
  if (!file_.valid()) return fail("cannot create the HDF5 file");

  void* handle = nullptr;
  if (H5Fget_vfd_handle(file_.get(), H5P_DEFAULT, &handle) >= 0 && handle != nullptr) {
    // The default (sec2) driver hands out the address of its descriptor.
    driver_fd_ = static_cast<int*>(handle);
    fd_ = *driver_fd_;
  }
  if (!reserve(0)) return false;

  // Metadata reaches the disk only in flush(), never half-way between two flushes.
  H5AC_cache_config_t cache{};
  cache.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  if (H5Fget_mdc_config(file_.get(), &cache) >= 0) {
    cache.evictions_enabled = false;
    cache.incr_mode = H5C_incr__off;
    cache.flash_incr_mode = H5C_flash_incr__off;
    cache.decr_mode = H5C_decr__off;
    if (H5Fset_mdc_config(file_.get(), &cache) < 0)
      return fail("cannot configure the metadata cache");
  }

  const hid_t root = file_.get();
  const std::vector<std::uint32_t> version = {kFormatVersionMajor, kFormatVersionMinor};
  bool ok = write_attribute(root, "format", std::string(kFormatName)) &&
            write_attribute(root, "format_version", version) &&
            write_attribute(root, "tool_version", metadata.tool_version) &&
            write_attribute(root, "job_id", metadata.job_id) &&
            write_attribute(root, "rank", metadata.rank) &&
            write_attribute(root, "size", metadata.size) &&
            write_attribute(root, "hostname", metadata.hostname) &&
            write_attribute(root, "pid", metadata.pid) &&
            write_command_line(root, metadata.command_line) &&
            write_attribute(root, "start_realtime_ns", metadata.start_realtime_ns) &&
            write_attribute(root, "start_clock_ns", metadata.start_clock_ns) &&
            write_attribute(root, "clock", metadata.clock) &&
            write_attribute(root, "timestamp_source", metadata.timestamp_source) &&
            write_attribute(root, "compression", metadata.compression) &&
            write_attribute(root, "flush_interval_ms", metadata.flush_interval_ms) &&
            write_attribute(root, "traced_ranks", metadata.traced_ranks) &&
            write_attribute(root, "parent_pid", metadata.parent_pid) &&
            write_attribute(root, "chunk_rows", static_cast<std::uint32_t>(kChunkRows)) &&
            write_status(RankFileStatus{});
  if (!ok) return fail("cannot write the file attributes");

  for (const Table* table : all_tables()) {
    TableState state;  // its dataset is made with its first chunk: a table never used has none
    state.table = table;
    state.chunk_rows = table->chunk_rows;
    tables_.push_back(std::move(state));
  }
  const Handle string_type = vlen_string_type();
  strings_ = create_extensible(root, kStringsDataset, string_type.get(), kStringChunk, nullptr, 0);
  if (!strings_.valid()) return fail("cannot create the string table");
  intern("");  // id 0
  return flush(RankFileStatus{});
}

std::size_t RankFileWriter::table_index(const Table& table) noexcept {
  const auto tables = all_tables();
  return static_cast<std::size_t>(std::find(tables.begin(), tables.end(), &table) - tables.begin());
}

bool RankFileWriter::append_rows(std::size_t table, const std::byte* rows, std::size_t count) {
  if (failed_) return false;
  TableState& state = tables_[table];
  const std::size_t row_size = state.table->row_size;
  const std::size_t chunk_rows = state.chunk_rows;
  if (count > 0 && !state.tail)
    state.tail = std::make_unique_for_overwrite<std::byte[]>(chunk_rows * row_size);
  while (count > 0) {
    const std::size_t take = std::min(count, chunk_rows - state.tail_rows);
    std::memcpy(state.tail.get() + state.tail_rows * row_size, rows, take * row_size);
    state.tail_rows += take;
    state.tail_dirty = true;
    rows += take * row_size;
    count -= take;
    if (state.tail_rows == chunk_rows) {
      if (!write_chunk(state, chunk_rows)) return false;
      ++state.full_chunks;
      state.tail_rows = 0;
      state.tail_dirty = false;
    }
  }
  return true;
}

bool RankFileWriter::reserve(std::uint64_t bytes) {
  if (!can_reserve_ || fd_ < 0) return true;
  hsize_t size = 0;
  H5Fget_filesize(file_.get(), &size);
  const std::uint64_t needed = size + bytes + kReserveMargin;
  if (needed <= reserved_end_) return true;
  const std::uint64_t target = needed + kReserveStep;
  const int result = fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(size),
                               static_cast<off_t>(target - size));
  if (result == 0) {
    reserved_end_ = target;
    return true;
  }
  if (errno == ENOSPC || errno == EDQUOT) {
    error_ = fmt::format(
        "{}: no space left on the device ({}); the file keeps what was written "
        "before and is closed",
        path_, std::generic_category().message(errno));
    close_after_disk_full();
    return false;
  }
  can_reserve_ = false;  // not supported here (EOPNOTSUPP on some parallel file systems)
  return true;
}

void RankFileWriter::close_after_disk_full() {
  // The reserved margin holds the metadata of this close.
  const QuietErrors quiet;
  failed_ = true;  // `complete` stays 0: readers see the file ended early
  for (TableState& state : tables_) state.dataset.reset();
  strings_.reset();
  H5Fclose(file_.release_without_close());
  release_reservation();
}

bool RankFileWriter::write_chunk(TableState& state, std::size_t rows) {
  const QuietErrors quiet;
  const std::size_t chunk_rows = state.chunk_rows;
  const hsize_t first = state.full_chunks * chunk_rows;
  const hsize_t extent = first + rows;
  // Whole chunks always: HDF5 stores edge chunks at full size. Rows past `rows` are zero.
  fields_.clear();
  for (const Column& column : state.table->columns)
    fields_.push_back({column.offset, column_type_size(column.type)});
  const std::span<const std::byte> encoded =
      encoder_.encode_packed(state.tail.get(), state.table->row_size, fields_, rows, chunk_rows);
  if (encoded.empty()) return fail("compression failed");
  stored_.assign(encoded.begin(), encoded.end());
  append_fletcher32(stored_);
  if (!reserve(stored_.size())) return false;
  if (!state.dataset.valid()) {
    const Handle row_type(create_packed_row_type(*state.table));
    state.dataset = create_extensible(file_.get(), state.table->name, row_type.get(), chunk_rows,
                                      &compression_, packed_row_size(*state.table));
    if (!state.dataset.valid())
      return fail(fmt::format("cannot create dataset {}", state.table->name));
  }
  const hid_t dataset = state.dataset.get();
  if (H5Dset_extent(dataset, &extent) < 0)
    return fail(fmt::format("cannot write {}", state.table->name));
  // HDF5 rewrites a (filtered) chunk in place when its new bytes are as many as its old: the
  // chunk the last flush points to would change under a reader and could be torn by a kill.
  // A stand-in of another size first moves the chunk to fresh space; the real one then
  // replaces the stand-in, which no flush ever saw.
  if (state.tail_stored_bytes == stored_.size()) {
    stored_.push_back(std::byte{0});  // the stand-in: the chunk and one byte more
    const bool moved =
        reserve(stored_.size()) &&
        H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, &first, stored_.size(), stored_.data()) >= 0;
    stored_.pop_back();
    if (!moved) return fail(fmt::format("cannot write {}", state.table->name));
  }
  if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, &first, stored_.size(), stored_.data()) < 0)
    return fail(fmt::format("cannot write {}", state.table->name));
  state.tail_stored_bytes = rows == chunk_rows ? 0 : stored_.size();
  return true;
}

bool RankFileWriter::fit_single_chunks() {
  if (failed_) return false;
  const QuietErrors quiet;
  // A table still in its first chunk is mostly the zeros that pad the chunk: every reader
  // would decompress them. Written again as one chunk of exactly its rows (the tail holds
  // them all), it has none. The old dataset's space stays unused in the file.
  for (TableState& state : tables_) {
    if (state.full_chunks > 0 || state.tail_rows == 0) continue;
    if (state.dataset.valid()) {
      state.dataset.reset();
      if (H5Ldelete(file_.get(), state.table->name, H5P_DEFAULT) < 0)
        return fail(fmt::format("cannot replace dataset {}", state.table->name));
    }
    state.chunk_rows = state.tail_rows;
    state.tail_dirty = true;
    state.tail_stored_bytes = 0;
  }
  return true;
}

StringId RankFileWriter::intern(std::string_view text) {
  if (const auto found = string_ids_.find(text); found != string_ids_.end()) return found->second;
  const auto id = static_cast<StringId>(string_ids_.size());
  string_ids_.emplace(std::string(text), id);
  strings_pending_.push_back(valid_utf8(text));
  return id;
}

bool RankFileWriter::write_strings() {
  if (strings_pending_.empty()) return true;
  const QuietErrors quiet;
  const hsize_t first = strings_written_;
  const hsize_t count = strings_pending_.size();
  const hsize_t extent = first + count;
  if (H5Dset_extent(strings_.get(), &extent) < 0) return fail("cannot extend the string table");
  const Handle file_space(H5Dget_space(strings_.get()));
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &first, nullptr, &count, nullptr);
  const Handle memory_space(H5Screate_simple(1, &count, nullptr));
  std::vector<const char*> texts;
  texts.reserve(strings_pending_.size());
  for (const auto& text : strings_pending_) {
    texts.push_back(text.c_str());
    strings_crc_ = extend_strings_crc(strings_crc_, text.c_str());
  }
  const Handle type = vlen_string_type();
  if (H5Dwrite(strings_.get(), type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
               texts.data()) < 0)
    return fail("cannot write the string table");
  strings_written_ = extent;
  strings_pending_.clear();
  return true;
}

bool RankFileWriter::write_status(const RankFileStatus& status) {
  const hid_t root = file_.get();
  return write_attribute(root, "complete", static_cast<std::uint32_t>(status.complete ? 1 : 0)) &&
         write_attribute(root, "records_dropped", status.records_dropped) &&
         write_attribute(root, "last_flush_clock_ns", status.last_flush_clock_ns) &&
         write_attribute(root, "strings_crc32", strings_crc_);
}

bool RankFileWriter::set_identity(std::int32_t rank, std::int32_t size) {
  if (failed_) return false;
  const QuietErrors quiet;
  if (!write_attribute(file_.get(), "rank", rank) || !write_attribute(file_.get(), "size", size))
    return fail("cannot update rank and size");
  return true;
}

bool RankFileWriter::flush(const RankFileStatus& status) {
  if (failed_) return false;
  const QuietErrors quiet;
  for (TableState& state : tables_) {
    if (!state.tail_dirty || state.tail_rows == 0) continue;
    if (!write_chunk(state, state.tail_rows)) return false;
    state.tail_dirty = false;
  }
  if (!reserve(0) || !write_strings()) return false;
  if (!write_status(status)) return fail("cannot update the file status");
  // The end of allocated space reaches the file before anything that points into the space
  // allocated since the last flush (hdf5_superblock.hpp).
  haddr_t end = 0;
  if (fd_ >= 0 && H5Fget_eoa(file_.get(), &end) >= 0 && !raise_superblock_end(fd_, end))
    return fail(
        fmt::format("cannot write the superblock: {}", std::generic_category().message(errno)));
  if (H5Fflush(file_.get(), H5F_SCOPE_LOCAL) < 0) return fail("cannot flush");
  return fence_flushed_space();
}

bool RankFileWriter::fence_flushed_space() {
  // HDF5 gives a freed block back to the file when it ends at the end of allocated space,
  // whatever the file-space strategy, and hands it out again at once: a tail chunk or heap
  // that the flush just made durable, rewritten elsewhere before the next flush, would have
  // its bytes overwritten while the file on disk still points at them. A gap past everything
  // allocated so far keeps every such block off the end until the next flush.
  if (H5Fincrement_filesize(file_.get(), kFenceBytes) < 0)
    return fail("cannot extend the allocated space");
  return true;
}

bool RankFileWriter::close(RankFileStatus status) {
  status.complete = true;
  if (!fit_single_chunks()) return false;
  if (!flush(status)) return false;
  const QuietErrors quiet;
  for (TableState& state : tables_) state.dataset.reset();
  strings_.reset();
  const hid_t file = file_.get();
  if (H5Fclose(file) < 0) {
    (void)file_.release_without_close();
    return fail("cannot close");
  }
  (void)file_.release_without_close();
  release_reservation();
  failed_ = true;  // nothing more may be written
  error_ = fmt::format("{}: already closed", path_);
  return true;
}

void RankFileWriter::abandon() noexcept {
  failed_ = true;
  error_ = fmt::format("{}: given up", path_);
  if (driver_fd_ == nullptr) return;
  const int scratch = memfd_create("rocprof-mpi-abandoned", MFD_CLOEXEC);
  if (scratch >= 0) {
    *driver_fd_ = scratch;
    fd_ = scratch;
  }
  reserved_end_ = 0;
  can_reserve_ = false;
}

void RankFileWriter::release_reservation() noexcept {
  // Space reserved past the end (FALLOC_FL_KEEP_SIZE) stays allocated until the file is
  // truncated: without this a small rank's file keeps megabytes it never used.
  if (reserved_end_ == 0) return;
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat info {};
  if (::fstat(fd, &info) == 0) (void)::ftruncate(fd, info.st_size);
  ::close(fd);
  reserved_end_ = 0;
}

std::uint64_t RankFileWriter::rows(const Table& table) const noexcept {
  const TableState& state = tables_[table_index(table)];
  return state.full_chunks * state.chunk_rows + state.tail_rows;
}

std::uint64_t RankFileWriter::bytes_on_disk() const noexcept {
  hsize_t size = 0;
  if (file_.valid()) H5Fget_filesize(file_.get(), &size);
  return size;
}

}  // namespace rocprof::format
