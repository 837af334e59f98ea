#include "lib/format/rank_file_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <system_error>

#include <fmt/format.h>

#include "lib/format/text.hpp"
#include "lib/format/zstd_filter.hpp"

namespace rocprof::format {

namespace {

// Tables up to this many rows have their chunks located while the file is checked, and the
// locations kept until the reader closes (some 24 bytes per column and chunk).
constexpr std::uint64_t kMappedAtOpenRows = 64 * kChunkRows;
// Files up to this size are read whole into memory to be checked (HDF5's core driver): one
// read instead of many small ones for the metadata of dozens of datasets.
constexpr long kReadWholeBytes = 4L << 20;
// Bounds on what a damaged file may claim: a chunk is decoded whole into memory, so its rows
// and row size must stay small enough to allocate.
constexpr hsize_t kMostChunkRows = hsize_t{1} << 20;
constexpr std::size_t kMostRowBytes = 4096;
constexpr std::uint64_t kMostUnwrittenChunks = 4;

Handle reader_access() {
  // Without flock: the writer takes none, and a file may be read while its rank still runs.
  Handle access(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_file_locking(access.get(), false, true);
  // Each object's metadata leaves the cache when the object closes: a check opens dozens of
  // datasets once each, and keeping them cached only costs bookkeeping (a visible share of
  // the check of a small rank's file).
  H5Pset_evict_on_close(access.get(), true);
  // A small metadata cache: a merge may keep many ranks' files open.
  H5AC_cache_config_t cache{};
  cache.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  if (H5Pget_mdc_config(access.get(), &cache) >= 0) {
    cache.set_initial_size = true;
    cache.initial_size = std::size_t{64} * 1024;
    cache.min_size = std::size_t{64} * 1024;
    cache.max_size = std::size_t{512} * 1024;
    H5Pset_mdc_config(access.get(), &cache);
  }
  return access;
}

// Dataset access without a chunk cache: rows are read a whole chunk at a time, each chunk once,
// so a cache would only hold memory, per column and per open file.
Handle no_chunk_cache() {
  Handle access(H5Pcreate(H5P_DATASET_ACCESS));
  H5Pset_chunk_cache(access.get(), H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0, H5D_CHUNK_CACHE_W0_DEFAULT);
  return access;
}

// The names of a group's links, in one pass over the group.
std::vector<std::string> link_names(hid_t group) {
  std::vector<std::string> names;
  H5Literate(
      group, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        return 0;
      },
      &names);
  return names;
}

// How errors name what a dataset stores: a column (format 1) or a table (format 2).
std::string stored_name(const char* table, const char* column) {
  return column != nullptr ? fmt::format("column {}/{}", table, column)
                           : fmt::format("table {}", table);
}

// Whether a stored type (a column dataset's, or a packed row's member) is the column's.
bool matches_column(hid_t type, const Column& column) {
  const H5T_class_t expected = column.type == ColumnType::kF64 ? H5T_FLOAT : H5T_INTEGER;
  return H5Tget_class(type) == expected && H5Tget_size(type) == column_type_size(column.type);
}

std::size_t table_index(const Table& table) {
  const auto tables = all_tables();
  std::size_t index = 0;
  while (index < tables.size() && tables[index] != &table) ++index;
  return index;
}
}  // namespace

FormatError::FormatError(const std::string& path, const std::string& problem)
    : std::runtime_error(fmt::format("{}: {}", path, problem)), path_(path) {}

std::string merged_trace_problem(const std::string& path) {
  return FormatError(path, kMergedTraceProblem).what();
}

void RankFileReader::fail(const std::string& problem) const {
  const std::string detail = hdf5_error_text();
  throw FormatError(path_, detail.empty() ? problem : fmt::format("{} ({})", problem, detail));
}

RankFileReader::RankFileReader(const std::string& path) : path_(path) {
  const QuietErrors quiet;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    throw FormatError(path, fmt::format("cannot open: {}", std::generic_category().message(errno)));
  if (S_ISDIR(info.st_mode)) throw FormatError(path, "a directory, not a rank file");
  if (!S_ISREG(info.st_mode))  // a pipe or a device: HDF5 could wait on it for ever
    throw FormatError(path, "not a regular file");
  if (info.st_size == 0) throw FormatError(path, "empty file (the writer never got to write it)");
  file_size_ = static_cast<std::uint64_t>(info.st_size);
  register_zstd_filter();
  const Handle access = reader_access();
  if (info.st_size <= kReadWholeBytes) H5Pset_fapl_core(access.get(), 1 << 20, false);
  file_ = Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get()));
  if (!file_.valid()) {
    // Only now tell a foreign file from a damaged one (the signature test costs a file open).
    if (H5Fis_hdf5(path.c_str()) <= 0)
      throw FormatError(path, "not an HDF5 file (no HDF5 signature; wrong file or damaged header)");
    fail("cannot open as HDF5 (truncated or damaged)");
  }

  const hid_t root = file_.get();
  std::string format;
  const bool has_format = read_attribute(root, "format", format);
  if (has_format && format == kMergedTraceFormatName) throw FormatError(path, kMergedTraceProblem);
  if (!has_format || format != kFormatName)
    fail(fmt::format("not a rocprof-mpi rank file (attribute 'format' is '{}', expected '{}')",
                     format, kFormatName));
  std::vector<std::uint32_t> version;
  if (!read_attribute(root, "format_version", version) || version.size() != 2)
    fail("missing or malformed attribute 'format_version'");
  if (version[0] != kFormatVersionMajor && version[0] != kColumnGroupsVersionMajor)
    fail(fmt::format("format version {}.{} is not supported (this reader reads {}.x and {}.x)",
                     version[0], version[1], kColumnGroupsVersionMajor, kFormatVersionMajor));
  version_major_ = version[0];
  version_minor_ = version[1];
  packed_ = version_major_ == kFormatVersionMajor;

  // Metadata: missing optional text is left empty; missing numbers are an error.
  read_attribute(root, "tool_version", metadata_.tool_version);
  read_attribute(root, "job_id", metadata_.job_id);
  read_attribute(root, "hostname", metadata_.hostname);
  // A long command line is whole in a dataset; the attribute has its first arguments.
  read_string_dataset(root, "command_line", metadata_.command_line) ||
      read_attribute(root, "command_line", metadata_.command_line);
  read_attribute(root, "clock", metadata_.clock);
  read_attribute(root, "timestamp_source", metadata_.timestamp_source);  // before 2.4: default
  read_attribute(root, "compression", metadata_.compression);
  read_attribute(root, "traced_ranks", metadata_.traced_ranks);  // files before it: every rank
  read_attribute(root, "parent_pid", metadata_.parent_pid);      // files before it: 0
  std::uint32_t complete = 0;
  if (!read_attribute(root, "rank", metadata_.rank) ||
      !read_attribute(root, "size", metadata_.size) ||
      !read_attribute(root, "pid", metadata_.pid) ||
      !read_attribute(root, "start_realtime_ns", metadata_.start_realtime_ns) ||
      !read_attribute(root, "start_clock_ns", metadata_.start_clock_ns) ||
      !read_attribute(root, "flush_interval_ms", metadata_.flush_interval_ms) ||
      !read_attribute(root, "complete", complete) ||
      !read_attribute(root, "records_dropped", status_.records_dropped) ||
      !read_attribute(root, "last_flush_clock_ns", status_.last_flush_clock_ns))
    fail("missing or malformed metadata attributes (rank, size, pid, start time, status)");
  status_.complete = complete != 0;
  std::uint32_t chunk_rows = 0;
  const std::uint32_t expected_chunk_rows = packed_ ? kChunkRows : kColumnGroupsChunkRows;
  if (!read_attribute(root, "chunk_rows", chunk_rows) || chunk_rows != expected_chunk_rows)
    fail(fmt::format("attribute 'chunk_rows' is {}, expected {}", chunk_rows, expected_chunk_rows));

  {
    const Handle creation(H5Fget_create_plist(root));
    hsize_t user_block = 0;
    if (!creation.valid() || H5Pget_userblock(creation.get(), &user_block) < 0)
      fail("cannot read the file's creation properties");
    base_address_ = user_block;
  }
  maps_.resize(all_tables().size());
  datasets_.resize(all_tables().size());
  const Handle no_cache = no_chunk_cache();
  // Format 2 leaves out the tables that never had a row: list what is there once.
  const std::vector<std::string> present = packed_ ? link_names(root) : std::vector<std::string>{};
  for (const Table* table : all_tables()) {
    TableHandles handles;
    TableMap& map = maps_[tables_.size()];
    if (!packed_)
      check_column_groups(root, *table, handles, map, no_cache.get());
    else if (std::find(present.begin(), present.end(), table->name) != present.end())
      check_packed_table(root, *table, handles, map, no_cache.get());
    tables_.push_back(std::move(handles));  // absent from a format-2 file: empty
  }

  const Handle strings(H5Dopen2(root, kStringsDataset, H5P_DEFAULT));
  if (!strings.valid()) fail("the string table is missing");
  const Handle type(H5Dget_type(strings.get()));
  const Handle space(H5Dget_space(strings.get()));
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0)
    fail("the string table is not a variable-length string dataset");
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 1) fail("the string table is empty (id 0 must be the empty string)");
  std::vector<char*> texts(static_cast<std::size_t>(count), nullptr);
  const Handle memory_type(H5Tcopy(H5T_C_S1));
  H5Tset_size(memory_type.get(), H5T_VARIABLE);
  H5Tset_cset(memory_type.get(), H5T_CSET_UTF8);
  // A conversion buffer the size of the table: HDF5's default is 1 MiB, zeroed at each read.
  const Handle transfer(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_buffer(transfer.get(), std::max<std::size_t>(texts.size() * 16, 4096), nullptr, nullptr);
  if (H5Dread(strings.get(), memory_type.get(), H5S_ALL, H5S_ALL, transfer.get(), texts.data()) < 0)
    fail("cannot read the string table");
  // Since 2.7 the file keeps a checksum of its strings: names are never read damaged.
  std::uint32_t kept_crc = 0;
  if (read_attribute(root, "strings_crc32", kept_crc)) {
    std::uint32_t crc = 0;
    for (const char* text : texts) crc = extend_strings_crc(crc, text);
    if (crc != kept_crc) {
      for (char* text : texts) H5free_memory(text);
      fail("the string table is damaged (its checksum does not match)");
    }
  }
  strings_.reserve(texts.size());
  for (char* text : texts) {
    // Files written before the recorder made every string valid UTF-8 may hold other bytes.
    strings_.push_back(text == nullptr ? std::string() : valid_utf8(text));
    H5free_memory(text);
  }
  // Small, and every reader of the file needs it first: read now, while the file is open.
  clock_samples_ = read_all<ClockSampleRow>();
}

void RankFileReader::check_column_groups(hid_t root, const Table& table, TableHandles& handles,
                                         TableMap& map, hid_t dataset_access) const {
  if (table.since_minor > 0) return;  // added in format 2: never in these files
  if (H5Lexists(root, table.name, H5P_DEFAULT) <= 0) {
    if (version_minor_ >= kColumnGroupsVersionMinor)
      fail(fmt::format("table '{}' is missing", table.name));
    return;  // absent in an older minor version: empty
  }
  const Handle group(H5Gopen2(root, table.name, H5P_DEFAULT));
  if (!group.valid()) fail(fmt::format("'{}' is not a group", table.name));
  bool first = true;
  std::vector<std::string> names;  // of an empty table's group, listed once
  for (const Column& column : table.columns) {
    if (column.since_minor > 0) continue;  // added in format 2: never in these files
    // Once a column is empty the table is (its length is the shortest column's), and an
    // empty column is never read: the others need only exist. Most files have empty tables
    // (no GPU, no counters), and each dataset opened costs several microseconds.
    if (!first && handles.rows == 0) {
      if (names.empty()) names = link_names(group.get());
      if (std::find(names.begin(), names.end(), std::string(column.name)) == names.end())
        fail(fmt::format("column {}/{} is missing", table.name, column.name));
      continue;
    }
    const Handle dataset(H5Dopen2(group.get(), column.name, dataset_access));
    if (!dataset.valid()) fail(fmt::format("column {}/{} is missing", table.name, column.name));
    const Handle type(H5Dget_type(dataset.get()));
    const Handle space(H5Dget_space(dataset.get()));
    if (!matches_column(type.get(), column) || H5Sget_simple_extent_ndims(space.get()) != 1)
      fail(fmt::format("column {}/{} is not a 1-D {} dataset", table.name, column.name,
                       column_type_name(column.type)));
    hsize_t rows = 0;
    H5Sget_simple_extent_dims(space.get(), &rows, nullptr);
    handles.rows = first ? rows : std::min<std::uint64_t>(handles.rows, rows);
    // A small table's chunks are located now, while its datasets are open: the merge's
    // later passes then read them without opening anything in HDF5. Each column is mapped
    // to its own length, at least the table's.
    if (first && rows > 0 && rows <= kMappedAtOpenRows) {
      map.columns.resize(table.columns.size());
      map.kept = true;
    }
    if (map.kept) {
      const auto c = static_cast<std::size_t>(&column - table.columns.data());
      map_column(dataset.get(), rows, map, map.columns[c], table.name, column.name, type.get());
    }
    first = false;
    // Checked, then closed: an open dataset costs memory, and a merge opens every rank's
    // file at once.
  }
  if (map.kept) finish_map(map);
}

void RankFileReader::check_packed_table(hid_t root, const Table& table, TableHandles& handles,
                                        TableMap& map, hid_t dataset_access) const {
  // Called for the names the root lists: a link that opens as no dataset is something else.
  const auto not_rows = [&] {
    return fmt::format("'{}' is not a 1-D dataset of compound rows", table.name);
  };
  const Handle dataset(H5Dopen2(root, table.name, dataset_access));
  if (!dataset.valid()) fail(not_rows());
  const Handle type(H5Dget_type(dataset.get()));
  const Handle space(H5Dget_space(dataset.get()));
  if (H5Tget_class(type.get()) != H5T_COMPOUND || H5Sget_simple_extent_ndims(space.get()) != 1)
    fail(not_rows());
  handles.element_size = H5Tget_size(type.get());
  if (handles.element_size == 0 || handles.element_size > kMostRowBytes) fail(not_rows());
  handles.field_offsets.resize(table.columns.size());
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const Column& column = table.columns[c];
    // Found by name, wherever the file's row type puts it: fields a newer minor version
    // adds are ignored.
    const int member = H5Tget_member_index(type.get(), column.name);
    if (member < 0 && column.since_minor > version_minor_) {
      handles.field_offsets[c] = kAbsentField;  // older than the column: reads as zero
      continue;
    }
    if (member < 0) fail(fmt::format("column {}/{} is missing", table.name, column.name));
    const Handle member_type(H5Tget_member_type(type.get(), static_cast<unsigned>(member)));
    const std::size_t offset = H5Tget_member_offset(type.get(), static_cast<unsigned>(member));
    if (!matches_column(member_type.get(), column) ||
        offset + column_type_size(column.type) > handles.element_size)
      fail(fmt::format("column {}/{} is not a {} field", table.name, column.name,
                       column_type_name(column.type)));
    handles.field_offsets[c] = offset;
  }
  hsize_t rows = 0;
  H5Sget_simple_extent_dims(space.get(), &rows, nullptr);
  handles.rows = rows;
  // A small table's chunks are located now, while its dataset is open (see above).
  if (rows > 0 && rows <= kMappedAtOpenRows) {
    map.columns.resize(1);
    map.kept = true;
    map_column(dataset.get(), rows, map, map.columns[0], table.name, nullptr, type.get());
    finish_map(map);
  }
}

RankFileReader::RankFileReader(Digest digest)
    : path_(std::move(digest.path)),
      metadata_(std::move(digest.metadata)),
      status_(digest.status),
      version_major_(digest.version_major),
      version_minor_(digest.version_minor),
      strings_(std::move(digest.strings)),
      clock_samples_(std::move(digest.clock_samples)),
      from_digest_(!digest.layout),
      digest_communicators_(std::move(digest.communicators)) {
  const auto tables = all_tables();
  if (digest.rows.size() != tables.size() ||
      (digest.layout && digest.layout->tables.size() != tables.size()))
    throw FormatError(path_, "a merge process described it with the wrong number of tables");
  for (std::size_t t = 0; t < tables.size(); ++t) {
    TableHandles handles;
    handles.rows = digest.rows[t];
    tables_.push_back(std::move(handles));
  }
  if (tables_[table_index(table_of<CommunicatorRow>())].rows != digest_communicators_.size())
    throw FormatError(path_, "a merge process sent its communicators incompletely");
  maps_.resize(tables.size());
  datasets_.resize(tables.size());
  if (!digest.layout) return;
  // A reader of the file itself, released, as the check in the helper left it.
  digest_communicators_.clear();
  const Layout& layout = *digest.layout;
  packed_ = layout.packed;
  base_address_ = layout.base_address;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const Layout::TableLayout& table = layout.tables[t];
    tables_[t].element_size = table.element_size;
    tables_[t].field_offsets.assign(table.field_offsets.begin(), table.field_offsets.end());
    if (packed_ && tables_[t].rows > 0 &&
        tables_[t].field_offsets.size() != tables[t]->columns.size())
      throw FormatError(path_, "a check helper described a table's row type incompletely");
    if (!table.mapped) continue;
    TableMap& map = maps_[t];
    map.mapped = true;
    map.kept = true;
    map.decodable = table.decodable;
    map.chunk_rows = table.chunk_rows;
    for (const Layout::Column& column : table.columns) {
      ColumnMap& mapped = map.columns.emplace_back();
      for (const std::uint8_t filter : column.filters) {
        if (filter > static_cast<std::uint8_t>(ColumnPipeline::Filter::kFletcher32))
          throw FormatError(path_, "a check helper named an unknown filter");
        mapped.pipeline.filters.push_back(static_cast<ColumnPipeline::Filter>(filter));
      }
      mapped.pipeline.supported = column.supported;
      for (const Layout::Chunk& chunk : column.chunks)
        mapped.chunks.push_back({chunk.address, chunk.size, chunk.filter_mask});
    }
  }
}

RankFileReader::Digest RankFileReader::digest(bool with_layout) const {
  Digest out{path_,    metadata_,      status_, version_major_, version_minor_, {},
             strings_, clock_samples_, {},      std::nullopt};
  for (const TableHandles& handles : tables_) out.rows.push_back(handles.rows);
  out.communicators = read_all<CommunicatorRow>();
  // A layout locates every table's chunks, so that its receiver reads the whole file without
  // HDF5: the receiver may be a merge process that must never parse a damaged file's metadata.
  if (with_layout && !from_digest_)
    for (std::size_t t = 0; t < tables_.size(); ++t)
      if (tables_[t].rows > 0) {
        table_map(t, *all_tables()[t]);
        maps_[t].kept = true;
      }
  release();  // only the maps made at the check stay: the layout tells only of those
  if (with_layout && !from_digest_) {
    out.layout = Layout{};
    Layout& layout = *out.layout;
    layout.packed = packed_;
    layout.base_address = base_address_;
    for (std::size_t t = 0; t < tables_.size(); ++t) {
      Layout::TableLayout& table = layout.tables.emplace_back();
      table.element_size = tables_[t].element_size;
      table.field_offsets.assign(tables_[t].field_offsets.begin(), tables_[t].field_offsets.end());
      const TableMap& map = maps_[t];
      if (!map.mapped) continue;
      table.mapped = true;
      table.decodable = map.decodable;
      table.chunk_rows = map.chunk_rows;
      for (const ColumnMap& column : map.columns) {
        Layout::Column& described = table.columns.emplace_back();
        for (const ColumnPipeline::Filter filter : column.pipeline.filters)
          described.filters.push_back(static_cast<std::uint8_t>(filter));
        described.supported = column.pipeline.supported;
        for (const ChunkLocation& chunk : column.chunks)
          described.chunks.push_back({chunk.address, chunk.size, chunk.filter_mask, 0});
      }
    }
  }
  return out;
}

RankFileReader::~RankFileReader() { release(); }

void RankFileReader::release() const noexcept {
  for (TableMap& map : maps_)
    if (!map.kept) map = TableMap{};
  if (raw_file_ >= 0) ::close(raw_file_);
  raw_file_ = -1;
  if (!file_.valid()) return;
  for (auto& columns : datasets_) columns.clear();  // datasets before their file
  file_.reset();
  // No H5garbage_collect() here: HDF5's free lists are capped (by default a few MB per kind
  // of block), and emptying them after every file made the next file's open allocate it all
  // again (a sixth of checking a small rank's file).
}

void RankFileReader::reopen() const {
  if (file_.valid()) return;
  const QuietErrors quiet;
  const Handle access = reader_access();
  file_ = Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, access.get()));
  if (!file_.valid()) fail("cannot open again as HDF5 (changed or removed since it was checked?)");
  struct stat info {};
  if (file_size_ == 0 && ::stat(path_.c_str(), &info) == 0)  // a reader made from a digest
    file_size_ = static_cast<std::uint64_t>(info.st_size);
}

std::uint64_t RankFileReader::row_count(const Table& table) const {
  const std::size_t index = table_index(table);
  return index < tables_.size() ? tables_[index].rows : 0;
}

const std::string& RankFileReader::string(StringId id) const {
  if (id >= strings_.size())
    throw FormatError(path_, fmt::format("string id {} is outside the string table ({} strings)",
                                         id, strings_.size()));
  return strings_[id];
}

void RankFileReader::map_column(hid_t dataset, std::uint64_t rows, TableMap& map, ColumnMap& column,
                                const char* table, const char* name, hid_t stored_type) const {
  const Handle creation(H5Dget_create_plist(dataset));
  Handle own_type;
  if (stored_type == H5I_INVALID_HID) {
    own_type = Handle(H5Dget_type(dataset));
    stored_type = own_type.get();
  }
  column.pipeline = column_pipeline(creation.get(), stored_type);
  hsize_t chunk = 0;
  if (H5Pget_layout(creation.get()) != H5D_CHUNKED ||
      H5Pget_chunk(creation.get(), 1, &chunk) != 1 || chunk == 0) {
    column.pipeline.supported = false;  // not chunked: only HDF5 reads it
    return;
  }
  if (chunk > kMostChunkRows)
    fail(fmt::format("{} has chunks of {} rows (damaged?)", stored_name(table, name), chunk));
  if (map.chunk_rows == 0) map.chunk_rows = chunk;
  if (chunk != map.chunk_rows)
    fail(fmt::format("{} has chunks of {} rows, not {}", stored_name(table, name), chunk,
                     map.chunk_rows));
  // Grown chunk by chunk, not sized from the row count: a damaged one may claim billions.
  const std::uint64_t chunks = (rows + chunk - 1) / chunk;
  column.chunks.clear();
  std::uint64_t unwritten = 0;
  for (std::uint64_t i = 0; i < chunks; ++i) {
    const hsize_t offset = i * chunk;
    haddr_t address = HADDR_UNDEF;
    hsize_t size = 0;
    unsigned mask = 0;
    if (H5Dget_chunk_info_by_coord(dataset, &offset, &mask, &address, &size) < 0)
      fail(fmt::format("cannot locate rows {}.. of {}", offset, stored_name(table, name)));
    ChunkLocation& location = column.chunks.emplace_back();
    if (address == HADDR_UNDEF || size == 0) {  // never written
      // Since 2.7 a flush writes every chunk of its rows before the metadata that counts
      // them, killed or not: a chunk the index lacks is damage (HDF5 would read zeros).
      if (packed_ && (version_major_ > 2 || version_minor_ >= 7))
        fail(
            fmt::format("{} claims {} rows, but its chunk of rows {}.. is missing (damaged "
                        "chunk index?)",
                        stored_name(table, name), rows, offset));
      // Before, a killed writer could leave the last few unwritten.
      if (++unwritten > kMostUnwrittenChunks)
        fail(
            fmt::format("{} claims {} rows, but its chunks from row {} on were never written "
                        "(damaged?)",
                        stored_name(table, name), rows, offset));
      continue;
    }
    const std::uint64_t at = base_address_ + address;
    if (at < address || at > file_size_ || size > file_size_ - at)
      fail(fmt::format("rows {}.. of {} lie past the end of the file (truncated or damaged)",
                       offset, stored_name(table, name)));
    location = {base_address_ + address, size, mask};
  }
}

const RankFileReader::TableMap& RankFileReader::table_map(std::size_t table_index,
                                                          const Table& table) const {
  TableMap& map = maps_.at(table_index);
  if (map.mapped) return map;
  reopen();
  const QuietErrors quiet;
  if (packed_) {
    map.columns.resize(1);
    map_column(open_dataset(table_index, table, 0), tables_[table_index].rows, map, map.columns[0],
               table.name, nullptr);
  } else {
    map.columns.resize(table.columns.size());
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      map_column(open_dataset(table_index, table, c), tables_[table_index].rows, map,
                 map.columns[c], table.name, table.columns[c].name);
  }
  finish_map(map);
  return map;
}

void RankFileReader::finish_map(TableMap& map) {
  map.decodable = std::all_of(map.columns.begin(), map.columns.end(),
                              [](const ColumnMap& column) { return column.pipeline.supported; });
  map.mapped = true;
}

hid_t RankFileReader::open_dataset(std::size_t table_index, const Table& table,
                                   std::size_t column) const {
  reopen();
  std::vector<Handle>& columns = datasets_.at(table_index);
  if (columns.empty() && packed_) {
    columns.emplace_back(H5Dopen2(file_.get(), table.name, no_chunk_cache().get()));
    if (!columns[0].valid()) fail(fmt::format("cannot open table '{}'", table.name));
  }
  if (columns.empty()) {
    const Handle group(H5Gopen2(file_.get(), table.name, H5P_DEFAULT));
    if (!group.valid()) fail(fmt::format("cannot open table '{}'", table.name));
    const Handle no_cache = no_chunk_cache();
    columns.resize(table.columns.size());
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      columns[c] = Handle(H5Dopen2(group.get(), table.columns[c].name, no_cache.get()));
      if (!columns[c].valid())
        fail(fmt::format("cannot open column {}/{}", table.name, table.columns[c].name));
    }
  }
  return columns[column].get();
}

namespace {

// Decoding buffers of the reader's own reads, one set per thread rather than per reader: a
// merge keeps every rank's reader but reads one file at a time, and allocating them anew for
// each read costs more than a small rank's reading.
struct DecodeWorkspace {
  StoredChunk chunk;
  ChunkDecodeBuffers buffers;
  std::vector<std::byte> scratch;
};
DecodeWorkspace& workspace() {
  thread_local DecodeWorkspace work;
  return work;
}

}  // namespace

void decode_chunk(const StoredChunk& chunk, ChunkDecodeBuffers& buffers, std::byte* rows) {
  const std::size_t pieces = chunk.pieces.size();
  if (buffers.images.size() < pieces) buffers.images.resize(pieces);
  if (buffers.shuffled.size() < pieces) buffers.shuffled.resize(pieces);
  for (std::size_t p = 0; p < pieces; ++p) {
    const StoredChunk::Piece& piece = chunk.pieces[p];
    if (!piece.wanted) continue;
    std::vector<std::byte>& image = buffers.images[p];
    const std::size_t raw_size = chunk.chunk_rows * piece.element_size;
    if (!piece.written) {
      image.assign(raw_size, std::byte{0});
      buffers.shuffled[p] = false;
      continue;
    }
    bool shuffled = false;
    if (!buffers.decoder.decode(piece.bytes, piece.filter_mask, piece.pipeline, raw_size, image,
                                shuffled))
      throw FormatError(chunk.path, fmt::format("cannot read rows {}..{} of {} (damaged chunk?)",
                                                chunk.first, chunk.first + chunk.count,
                                                stored_name(chunk.table, piece.column)));
    buffers.shuffled[p] = shuffled;
  }
  // Rows in blocks that stay in cache while each field is filled.
  constexpr std::uint64_t kRowsPerBlock = 256;
  const std::uint64_t end = chunk.first + chunk.count;
  for (std::uint64_t block = chunk.first; block < end; block += kRowsPerBlock) {
    const std::uint64_t block_rows = std::min(kRowsPerBlock, end - block);
    const std::uint64_t in_chunk = block - chunk.chunk_first;
    std::byte* destination = rows + (block - chunk.first) * chunk.row_size;
    for (const StoredChunk::Field& field : chunk.fields) {
      if (field.zeroed)
        for (std::uint64_t r = 0; r < block_rows; ++r)
          std::memset(destination + r * chunk.row_size + field.offset, 0, field.width);
      if (!field.wanted) continue;
      const std::byte* image = buffers.images[field.piece].data();
      const std::size_t element_size = chunk.pieces[field.piece].element_size;
      if (buffers.shuffled[field.piece])  // the field's byte planes are a shuffled column
        scatter_column(image + field.packed_offset * chunk.chunk_rows, true, field.width,
                       chunk.chunk_rows, in_chunk, block_rows, destination, chunk.row_size,
                       field.offset);
      else if (element_size == field.width)
        scatter_column(image, false, field.width, chunk.chunk_rows, in_chunk, block_rows,
                       destination, chunk.row_size, field.offset);
      else
        scatter_packed_field(image, element_size, field.packed_offset, field.width, in_chunk,
                             block_rows, destination, chunk.row_size, field.offset);
    }
  }
}

bool RankFileReader::map_chunks(const Table& table) const {
  const std::size_t index = table_index(table);
  if (from_digest_) return false;                // read_rows answers (or refuses) from the digest
  if (tables_.at(index).rows == 0) return true;  // nothing to read
  if (!table_map(index, table).decodable) return false;
  if (raw_file_ < 0) {
    raw_file_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (raw_file_ < 0)
      throw FormatError(path_, fmt::format("cannot open again: {} (removed since it was checked?)",
                                           std::generic_category().message(errno)));
  }
  return true;
}

bool RankFileReader::reads_without_hdf5(const Table& table) const {
  const std::size_t index = table_index(table);
  if (tables_.at(index).rows == 0) return true;
  const TableMap& map = maps_[index];
  return map.kept && map.mapped && map.decodable;
}

bool RankFileReader::reads_without_hdf5() const {
  if (from_digest_) return false;
  const auto tables = all_tables();
  return std::all_of(tables.begin(), tables.end(),
                     [this](const Table* table) { return reads_without_hdf5(*table); });
}

std::uint64_t RankFileReader::chunk_rows(const Table& table) const {
  return maps_.at(table_index(table)).chunk_rows;
}

void RankFileReader::read_chunk(const Table& table, std::uint64_t first, std::uint64_t count,
                                StoredChunk& out, ColumnSet columns) const {
  const std::size_t index = table_index(table);
  const TableHandles& handles = tables_.at(index);
  if (count == 0 || first + count > handles.rows)
    throw FormatError(path_, fmt::format("rows {}..{} of '{}' requested, it has {}", first,
                                         first + count, table.name, handles.rows));
  const TableMap& map = maps_[index];  // mapped by map_chunks, on the caller's thread
  const std::uint64_t chunk_rows = map.chunk_rows;
  const std::uint64_t chunk = first / chunk_rows;
  out.chunk_first = chunk * chunk_rows;
  out.chunk_rows = chunk_rows;
  out.first = first;
  out.count = std::min(count, out.chunk_first + chunk_rows - first);
  out.row_size = table.row_size;
  out.table = table.name;
  if (out.path != path_) out.path = path_;
  const std::size_t column_count = table.columns.size();
  const std::size_t piece_count = packed_ ? 1 : column_count;
  out.fields.resize(column_count);
  out.pieces.resize(piece_count);
  for (StoredChunk::Piece& piece : out.pieces) piece.wanted = false;
  for (std::size_t c = 0; c < column_count; ++c) {
    const Column& column = table.columns[c];
    StoredChunk::Field& field = out.fields[c];
    field.width = column_type_size(column.type);
    field.offset = column.offset;
    field.packed_offset = packed_ ? handles.field_offsets[c] : 0;
    field.piece = packed_ ? 0 : c;
    field.absent = column_absent(handles, column, c);
    field.wanted = (columns >> c & 1U) != 0 && !field.absent;
    field.zeroed = (columns >> c & 1U) != 0 && field.absent;
    StoredChunk::Piece& piece = out.pieces[field.piece];
    piece.wanted = piece.wanted || field.wanted;
    piece.element_size = packed_ ? handles.element_size : field.width;
    piece.column = packed_ ? nullptr : column.name;
  }
  for (std::size_t p = 0; p < piece_count; ++p) {
    StoredChunk::Piece& piece = out.pieces[p];
    piece.pipeline = map.columns[p].pipeline;
    if (!piece.wanted) continue;
    const ChunkLocation& location = map.columns[p].chunks[chunk];
    piece.written = location.size != 0;
    if (!piece.written) continue;
    piece.filter_mask = location.filter_mask;
    piece.bytes.resize(location.size);
    std::size_t done = 0;
    while (done < location.size) {
      const ssize_t got = ::pread(raw_file_, piece.bytes.data() + done, location.size - done,
                                  static_cast<off_t>(location.address + done));
      if (got > 0) {
        done += static_cast<std::size_t>(got);
      } else if (got == 0 || errno != EINTR) {
        throw FormatError(path_,
                          fmt::format("cannot read rows {}..{} of {}: {}", first, first + out.count,
                                      stored_name(table.name, piece.column),
                                      got == 0 ? "the file ends before the chunk (truncated?)"
                                               : std::generic_category().message(errno)));
      }
    }
  }
}

bool RankFileReader::fetch_chunk(const Table& table, std::uint64_t first, std::uint64_t count,
                                 StoredChunk& out, ColumnSet columns) const {
  if (!map_chunks(table)) return false;
  read_chunk(table, first, count, out, columns);
  return true;
}

void RankFileReader::verify_every_chunk() const {
  // A fixed number of rows at a time (four of the recorder's chunks): the memory used stays
  // small whatever the file's size. The chunk maps made here stay until release(), so that
  // a digest with its layout (a check helper's) does not locate every chunk again.
  constexpr std::uint64_t kPieceRows = std::uint64_t{1} << 16;
  std::vector<std::byte> rows;
  for (const Table* table : all_tables()) {
    const std::uint64_t total = row_count(*table);
    for (std::uint64_t first = 0; first < total;) {
      const std::uint64_t count = std::min(kPieceRows, total - first);
      rows.resize(count * table->row_size);
      read_rows(*table, first, count, rows.data(), kAllColumns);
      first += count;
    }
  }
}

void RankFileReader::read_rows(const Table& table, std::uint64_t first, std::uint64_t count,
                               std::byte* rows, ColumnSet columns) const {
  if (count == 0) return;
  if (from_digest_) {
    if (&table != &table_of<CommunicatorRow>())
      throw FormatError(path_,
                        fmt::format("its '{}' rows are read by another merge process", table.name));
    if (first + count > digest_communicators_.size())
      throw FormatError(path_, "communicator rows requested past the table's end");
    std::memcpy(rows, digest_communicators_.data() + first, count * sizeof(CommunicatorRow));
    return;
  }
  DecodeWorkspace& work = workspace();
  // Every column is scattered into the rows; padding bytes between fields are left as the
  // caller's buffer had them (never read). fetch_chunk checks the range first.
  std::uint64_t done = 0;
  while (done < count && fetch_chunk(table, first + done, count - done, work.chunk, columns)) {
    decode_chunk(work.chunk, work.buffers, rows + done * table.row_size);
    done += work.chunk.count;
  }
  if (done == count) return;
  const std::size_t index = table_index(table);
  reopen();
  const QuietErrors quiet;
  // A filter our decoder does not know: HDF5 decodes.
  const hsize_t start = first;
  const hsize_t length = count;
  const Handle memory_space(H5Screate_simple(1, &length, nullptr));
  std::vector<std::byte>& scratch = workspace().scratch;
  // Rows [first, first + count) of one dataset into `scratch`, converted to `memory_type`.
  auto read_dataset = [&](hid_t dataset, hid_t memory_type, std::size_t element_size,
                          const char* column) {
    scratch.resize(count * element_size);
    const Handle file_space(H5Dget_space(dataset));
    H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &length, nullptr);
    if (H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT,
                scratch.data()) < 0)
      fail(fmt::format("cannot read rows {}..{} of {} (damaged chunk?)", first, first + count,
                       stored_name(table.name, column)));
  };
  // Column c's values, `element_size` apart in `scratch` from `offset`, into the caller's rows.
  auto scatter = [&](std::size_t c, std::size_t element_size, std::size_t offset) {
    const Column& column = table.columns[c];
    scatter_packed_field(scratch.data(), element_size, offset, column_type_size(column.type), 0,
                         count, rows, table.row_size, column.offset);
  };
  auto wanted = [columns](std::size_t c) { return (columns >> c & 1U) != 0; };
  auto absent = [&](std::size_t c) { return column_absent(tables_[index], table.columns[c], c); };
  // Columns the file predates read as zeros.
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (!wanted(c) || !absent(c)) continue;
    const Column& column = table.columns[c];
    for (std::uint64_t r = 0; r < count; ++r)
      std::memset(rows + r * table.row_size + column.offset, 0, column_type_size(column.type));
  }
  if (packed_) {
    // HDF5 converts the packed rows to the struct's layout, by member name.
    const Handle memory_type(create_memory_row_type(table));
    read_dataset(open_dataset(index, table, 0), memory_type.get(), table.row_size, nullptr);
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      if (wanted(c) && !absent(c)) scatter(c, table.row_size, table.columns[c].offset);
    return;
  }
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (!wanted(c) || absent(c)) continue;
    const Column& column = table.columns[c];
    read_dataset(open_dataset(index, table, c), column_hdf5_type(column.type),
                 column_type_size(column.type), column.name);
    scatter(c, column_type_size(column.type), 0);
  }
}

}  // namespace rocprof::format
