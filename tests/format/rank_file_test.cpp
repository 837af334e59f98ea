// Rank files: exact round trip of every record kind under each compression, streaming, and
// the reader's clear errors for every kind of bad file.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "lib/format/hdf5_util.hpp"
#include "lib/format/prefetch_cursor.hpp"
#include "lib/format/rank_file_reader.hpp"
#include "lib/format/rank_file_writer.hpp"
#include "lib/format/zstd_filter.hpp"
#include "tests/format/rank_file_sample.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rocprof::format;
using rocprof::test::SampleRows;
using rocprof::test::write_sample_file;

class RankFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = rocprof::test::fresh_test_dir("rank_file_test"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

template <typename Row>
void expect_rows_equal(const std::vector<Row>& expected, const std::vector<Row>& actual,
                       const char* table) {
  ASSERT_EQ(expected.size(), actual.size()) << table;
  // Column by column: padding between fields is unspecified and not stored.
  for (std::size_t i = 0; i < expected.size(); ++i)
    for (const Column& column : table_of<Row>().columns)
      ASSERT_EQ(0, std::memcmp(reinterpret_cast<const char*>(&expected[i]) + column.offset,
                               reinterpret_cast<const char*>(&actual[i]) + column.offset,
                               column_type_size(column.type)))
          << table << " row " << i << " column " << column.name;
}

// Every row of Row's table, as a PrefetchCursor of `depth` hands them out.
template <typename Row>
std::vector<Row> read_with_cursor(const RankFileReader& reader,
                                  std::size_t depth = kPrefetchDepth) {
  PrefetchCursor<Row> cursor(reader, {}, depth);
  std::vector<Row> block;
  std::vector<Row> all;
  while (cursor.next(block)) all.insert(all.end(), block.begin(), block.end());
  return all;
}

void expect_sample(const RankFileReader& reader, const SampleRows& s) {
  expect_rows_equal(s.api_calls, reader.read_all<ApiCallRow>(), "api_calls");
  expect_rows_equal(s.activities, reader.read_all<ActivityRow>(), "activities");
  expect_rows_equal(s.externals, reader.read_all<ExternalCorrelationRow>(), "externals");
  expect_rows_equal(s.markers, reader.read_all<MarkerRow>(), "markers");
  expect_rows_equal(s.mpi_calls, reader.read_all<MpiCallRow>(), "mpi_calls");
  expect_rows_equal(s.communicators, reader.read_all<CommunicatorRow>(), "communicators");
  expect_rows_equal(s.counters, reader.read_all<CounterSampleRow>(), "counters");
  expect_rows_equal(s.sessions, reader.read_all<CounterSessionRow>(), "sessions");
  expect_rows_equal(s.clocks, reader.read_all<ClockSampleRow>(), "clocks");
  expect_rows_equal(s.op_names, reader.read_all<OpNameRow>(), "op_names");
  expect_rows_equal(s.threads, reader.read_all<ThreadRow>(), "threads");
  expect_rows_equal(s.annotations, reader.read_all<AnnotationRow>(), "annotations");
  // Format 1 predates the table: it reads as empty there.
  if (reader.version_major() == kFormatVersionMajor) {
    expect_rows_equal(s.tick_pairs, reader.read_all<TickCalibrationRow>(), "tick_calibration");
    expect_rows_equal(s.code_objects, reader.read_all<CodeObjectRow>(), "code_objects");
    expect_rows_equal(s.kernel_symbols, reader.read_all<KernelSymbolRow>(), "kernel_symbols");
  } else {
    EXPECT_TRUE(reader.read_all<TickCalibrationRow>().empty());
    EXPECT_TRUE(reader.read_all<CodeObjectRow>().empty());
  }
}

class RankFileCompression : public RankFile, public ::testing::WithParamInterface<const char*> {
 protected:
  // The sample file, in this test's codec, at path("rank.h5").
  SampleRows write_sample(std::size_t api_rows) {
    Compression compression;
    std::string error;
    EXPECT_TRUE(Compression::parse(GetParam(), compression, error)) << error;
    return write_sample_file(path("rank.h5"), compression, api_rows);
  }
};

TEST_P(RankFileCompression, EveryRecordKindRoundTripsExactly) {
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample(2 * kChunkRows + 1234);
  const RankFileReader reader(file);
  const RankMetadata expected = rocprof::test::sample_metadata();
  EXPECT_EQ(reader.metadata().rank, 3);
  EXPECT_EQ(reader.metadata().size, 8);
  EXPECT_EQ(reader.metadata().job_id, "4242");
  EXPECT_EQ(reader.metadata().hostname, "node-a");
  EXPECT_EQ(reader.metadata().pid, 12345U);
  EXPECT_EQ(reader.metadata().command_line, expected.command_line);
  EXPECT_EQ(reader.metadata().start_realtime_ns, expected.start_realtime_ns);
  EXPECT_EQ(reader.metadata().start_clock_ns, expected.start_clock_ns);
  EXPECT_EQ(reader.metadata().clock, "CLOCK_BOOTTIME");
  EXPECT_EQ(reader.metadata().traced_ranks, "0-3,5");
  EXPECT_TRUE(reader.status().complete);
  EXPECT_EQ(reader.status().records_dropped, 17U);
  expect_sample(reader, sample);
  EXPECT_EQ(reader.string(sample.api_calls[0].kernel_name), "jacobi_kernel(double*, int)");
  EXPECT_EQ(reader.string(sample.mpi_calls[1].function), "MPI_Wait");
  EXPECT_EQ(reader.string(0), "");
  EXPECT_THROW(reader.string(100000), FormatError);
  EXPECT_EQ(reader.version_major(), kFormatVersionMajor);
}

TEST_P(RankFileCompression, TablesAreDatasetsOfPackedRows) {
  // Format 2 as FORMAT.md has it: each table one 1-D compound dataset, its members the
  // columns in schema order without padding, shuffled over the whole row before the codec.
  const SampleRows sample = write_sample(kChunkRows + 5);
  const Handle file(H5Fopen(path("rank.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  for (const Table* table : all_tables()) {
    const Handle dataset(H5Dopen2(file.get(), table->name, H5P_DEFAULT));
    ASSERT_TRUE(dataset.valid()) << table->name;
    const Handle type(H5Dget_type(dataset.get()));
    ASSERT_EQ(H5Tget_class(type.get()), H5T_COMPOUND) << table->name;
    ASSERT_EQ(H5Tget_nmembers(type.get()), static_cast<int>(table->columns.size()));
    EXPECT_EQ(H5Tget_size(type.get()), packed_row_size(*table)) << table->name;
    std::size_t offset = 0;
    for (std::size_t c = 0; c < table->columns.size(); ++c) {
      const auto member = static_cast<unsigned>(c);
      char* name = H5Tget_member_name(type.get(), member);
      EXPECT_STREQ(name, table->columns[c].name);
      H5free_memory(name);
      EXPECT_EQ(H5Tget_member_offset(type.get(), member), offset) << table->columns[c].name;
      const Handle member_type(H5Tget_member_type(type.get(), member));
      EXPECT_GT(H5Tequal(member_type.get(), column_hdf5_type(table->columns[c].type)), 0);
      offset += column_type_size(table->columns[c].type);
    }
    const Handle creation(H5Dget_create_plist(dataset.get()));
    const bool compressed = std::string(GetParam()) != "none";
    const int filters = H5Pget_nfilters(creation.get());
    ASSERT_EQ(filters, compressed ? 3 : 1) << table->name;
    unsigned flags = 0;
    std::size_t values = 0;
    if (compressed)
      EXPECT_EQ(H5Pget_filter2(creation.get(), 0, &flags, &values, nullptr, 0, nullptr, nullptr),
                H5Z_FILTER_SHUFFLE);
    // Last, over the stored bytes: the checksum.
    values = 0;
    EXPECT_EQ(H5Pget_filter2(creation.get(), static_cast<unsigned>(filters - 1), &flags, &values,
                             nullptr, 0, nullptr, nullptr),
              H5Z_FILTER_FLETCHER32);
  }
  // HDF5's own decoding, by member name into the row struct, reads what was written.
  const Handle dataset(H5Dopen2(file.get(), "mpi_calls", H5P_DEFAULT));
  const Handle memory_type(create_memory_row_type(table_of<MpiCallRow>()));
  std::vector<MpiCallRow> rows(sample.mpi_calls.size());
  ASSERT_GE(H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()),
            0);
  expect_rows_equal(sample.mpi_calls, rows, "mpi_calls through HDF5");
}

TEST_F(RankFile, TablesThatNeverFilledAChunkAreClosedInOneChunkOfTheirRows) {
  // So that readers decompress no padding. A table past its first chunk keeps its chunks.
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample_file(file, Compression{}, kChunkRows + 5);
  auto chunk_of = [&](const char* table) {
    const Handle h(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const Handle dataset(H5Dopen2(h.get(), table, H5P_DEFAULT));
    const Handle creation(H5Dget_create_plist(dataset.get()));
    hsize_t chunk = 0;
    H5Pget_chunk(creation.get(), 1, &chunk);
    return chunk;
  };
  EXPECT_EQ(chunk_of("api_calls"), kChunkRows);
  EXPECT_EQ(chunk_of("mpi_calls"), sample.mpi_calls.size());
  EXPECT_EQ(chunk_of("markers"), sample.markers.size());
  EXPECT_EQ(chunk_of("clock_samples"), sample.clocks.size());
  const RankFileReader reader(file);
  expect_sample(reader, sample);
}

TEST_F(RankFile, RowsAreReadByMemberNameWhateverTheirOrderInTheFile) {
  // Another writer (h5py, say) may lay a table's members out in another order, in chunks of
  // another size, filtered by HDF5 itself: the reader takes each field where the file's row
  // type puts it.
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample_file(file, Compression{}, 100);
  {
    const Handle h(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_GE(H5Ldelete(h.get(), "markers", H5P_DEFAULT), 0);
    const Table& table = table_of<MarkerRow>();
    const Handle reversed(H5Tcreate(H5T_COMPOUND, packed_row_size(table)));
    std::size_t offset = 0;
    for (std::size_t c = table.columns.size(); c-- > 0;) {
      const Column& column = table.columns[c];
      H5Tinsert(reversed.get(), column.name, offset, column_hdf5_type(column.type));
      offset += column_type_size(column.type);
    }
    const hsize_t rows = sample.markers.size();
    const hsize_t unlimited = H5S_UNLIMITED;
    const hsize_t chunk = 7;
    const Handle space(H5Screate_simple(1, &rows, &unlimited));
    const Handle creation(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_chunk(creation.get(), 1, &chunk);
    ASSERT_TRUE(add_filters(creation.get(), Compression{Codec::kDeflate, 1}, offset));
    const Handle dataset(H5Dcreate2(h.get(), "markers", reversed.get(), space.get(), H5P_DEFAULT,
                                    creation.get(), H5P_DEFAULT));
    const Handle memory(create_memory_row_type(table));
    ASSERT_GE(
        H5Dwrite(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, sample.markers.data()),
        0);
  }
  const RankFileReader reader(file);
  expect_rows_equal(sample.markers, reader.read_all<MarkerRow>(), "markers, members reversed");
  const std::vector<MarkerRow> all = read_with_cursor<MarkerRow>(reader);
  expect_rows_equal(sample.markers, all, "markers through the cursor");
}

TEST_F(RankFile, TablesThatNeverHadARowAreLeftOutAndReadAsEmpty) {
  const std::string file = path("rank.h5");
  std::string error;
  auto writer =
      RankFileWriter::create(file, rocprof::test::sample_metadata(), Compression{}, error);
  ASSERT_NE(writer, nullptr) << error;
  std::vector<MpiCallRow> calls(3, rocprof::test::zeroed<MpiCallRow>());
  for (std::size_t i = 0; i < calls.size(); ++i) calls[i].begin_ns = 100 + i;
  ASSERT_TRUE(writer->append<MpiCallRow>(calls));
  ASSERT_TRUE(writer->close(RankFileStatus{}));
  {
    const Handle h(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    EXPECT_GT(H5Lexists(h.get(), "mpi_calls", H5P_DEFAULT), 0);
    EXPECT_EQ(H5Lexists(h.get(), "activities", H5P_DEFAULT), 0);
    EXPECT_EQ(H5Lexists(h.get(), "clock_samples", H5P_DEFAULT), 0);
  }
  const RankFileReader reader(file);
  EXPECT_EQ(reader.row_count<ActivityRow>(), 0U);
  EXPECT_TRUE(reader.read_all<ActivityRow>().empty());
  EXPECT_TRUE(reader.clock_samples().empty());
  PrefetchCursor<MarkerRow> cursor(reader);
  std::vector<MarkerRow> none;
  EXPECT_FALSE(cursor.next(none));
  expect_rows_equal(calls, reader.read_all<MpiCallRow>(), "mpi_calls");
}

// Files of older minor versions lack the columns added since: the kernel columns of 2.2, the
// memory kinds and context of 2.3. They read as zeros, also into rows that held other values.
class OlderMinorVersion : public RankFile, public ::testing::WithParamInterface<std::uint32_t> {};

TEST_P(OlderMinorVersion, ReadsTheColumnsItPredatesAsZeros) {
  const std::uint32_t minor = GetParam();
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample_file(file, Compression{}, 100);
  ASSERT_TRUE(std::any_of(
      sample.activities.begin(), sample.activities.end(),
      [](const ActivityRow& row) { return row.registers != 0 && row.context_id != 0; }));
  ASSERT_TRUE(std::any_of(sample.activities.begin(), sample.activities.end(),
                          [](const ActivityRow& row) { return row.src_kind != MemoryKind{}; }));
  rocprof::test::rewrite_activities_as_format(file, minor);
  const RankFileReader reader(file);
  EXPECT_EQ(reader.version_minor(), minor);
  std::vector<ActivityRow> expected = sample.activities;
  rocprof::test::clear_columns_since(expected, minor + 1);
  std::vector<ActivityRow> rows(expected.size());
  for (ActivityRow& row : rows) {
    row.registers = 99;
    row.context_id = 99;
    row.dst_kind = MemoryKind::kManaged;
  }
  reader.read(0, rows.size(), rows);
  expect_rows_equal(expected, rows, "activities of an older file");
  expect_rows_equal(sample.api_calls, reader.read_all<ApiCallRow>(), "api_calls of an older file");
}

INSTANTIATE_TEST_SUITE_P(Format2, OlderMinorVersion, ::testing::Values(1U, 2U),
                         [](const ::testing::TestParamInfo<std::uint32_t>& info) {
                           return "Minor" + std::to_string(info.param);
                         });

TEST_P(RankFileCompression, ColumnGroupFilesOfFormatOneAreStillRead) {
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample(2 * kChunkRows + 99);
  Compression compression;
  std::string error;
  ASSERT_TRUE(Compression::parse(GetParam(), compression, error));
  rocprof::test::rewrite_as_column_groups(file, compression);
  const RankFileReader reader(file);
  EXPECT_EQ(reader.version_major(), 1U);
  EXPECT_EQ(reader.version_minor(), kColumnGroupsVersionMinor);
  EXPECT_EQ(reader.metadata().rank, 3);
  SampleRows older = sample;  // format 1 predates the columns of format 2's minor versions
  rocprof::test::clear_columns_since(older.activities, 1);
  expect_sample(reader, older);
  // Column subsets and the prefetching cursor, as the merge reads.
  std::vector<ApiCallRow> rows(3);
  for (ApiCallRow& row : rows) row.correlation_id = 77;
  reader.read(kChunkRows - 1, 3, rows, columns_named(table_of<ApiCallRow>(), {"end_ns"}));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].end_ns, sample.api_calls[kChunkRows - 1 + i].end_ns);
    EXPECT_EQ(rows[i].correlation_id, 77U);
  }
  const std::vector<ApiCallRow> all = read_with_cursor<ApiCallRow>(reader);
  expect_rows_equal(sample.api_calls, all, "api_calls through the cursor");
}

TEST_P(RankFileCompression, PrefetchCursorDecodesAheadOnAHelperThread) {
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample(3 * kChunkRows + 5);
  const RankFileReader reader(file);
  // Helpers prepare blocks concurrently and may finish before the caller's first block: each
  // block is recorded by its first row, under a lock.
  std::mutex lock;
  std::map<std::uint64_t, std::thread::id> prepared_on;  // first correlation id -> thread
  PrefetchCursor<ApiCallRow> cursor(reader, [&](ApiCallRow* rows, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) rows[i].begin_ns += 1;
    const std::lock_guard<std::mutex> hold(lock);
    EXPECT_TRUE(prepared_on.emplace(rows[0].correlation_id, std::this_thread::get_id()).second)
        << "a block was prepared twice";
  });
  std::vector<ApiCallRow> block;
  std::vector<std::size_t> sizes;
  std::size_t seen = 0;
  while (cursor.next(block)) {
    sizes.push_back(block.size());
    for (const ApiCallRow& row : block) {
      ASSERT_EQ(row.correlation_id, sample.api_calls[seen].correlation_id) << seen;
      ASSERT_EQ(row.begin_ns, sample.api_calls[seen].begin_ns + 1) << seen;  // prepared once
      ASSERT_EQ(row.end_ns, sample.api_calls[seen].end_ns) << seen;
      ++seen;
    }
  }
  EXPECT_EQ(seen, sample.api_calls.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{kChunkRows, kChunkRows, kChunkRows, 5}));
  // The first chunk is decoded by the caller, the others ahead of it on helper threads.
  ASSERT_EQ(prepared_on.size(), 4U);
  for (std::size_t b = 0; b < 4; ++b) {
    const std::thread::id on = prepared_on.at(sample.api_calls[b * kChunkRows].correlation_id);
    if (b == 0)
      EXPECT_EQ(on, std::this_thread::get_id());
    else
      EXPECT_NE(on, std::this_thread::get_id()) << b;
  }
}

TEST_P(RankFileCompression, PrefetchCursorOfAnyDepthHandsOutEveryRowInOrder) {
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample(6 * kChunkRows + 11);
  const RankFileReader reader(file);
  for (const std::size_t depth : {0, 1, 3, 8}) {
    const std::vector<ApiCallRow> all = read_with_cursor<ApiCallRow>(reader, depth);
    SCOPED_TRACE("depth " + std::to_string(depth));
    expect_rows_equal(sample.api_calls, all, "api_calls");
  }
}

TEST_P(RankFileCompression, OnlyTheColumnsAskedForAreRead) {
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample(3 * kChunkRows + 21);
  const RankFileReader reader(file);
  const ColumnSet wanted = columns_named(table_of<ApiCallRow>(), {"end_ns", "grid_y", "op"});
  // Every block lands in rows that hold a marker value: the fields asked for are read, the
  // others keep it, through the cursor's helpers and in the plain read alike.
  constexpr std::uint64_t kUntouched = 0x5a5a5a5a5a5a5a5aULL;
  std::vector<ApiCallRow> all;
  PrefetchCursor<ApiCallRow> cursor(reader, {}, kPrefetchDepth, wanted);
  std::vector<ApiCallRow> block;
  std::size_t seen = 0;
  while (cursor.next(block)) {
    for (const ApiCallRow& row : block) {
      ASSERT_EQ(row.end_ns, sample.api_calls[seen].end_ns) << seen;
      ASSERT_EQ(row.grid[1], sample.api_calls[seen].grid[1]) << seen;
      ASSERT_EQ(row.op, sample.api_calls[seen].op) << seen;
      ++seen;
    }
  }
  EXPECT_EQ(seen, sample.api_calls.size());
  std::vector<ApiCallRow> rows(5);
  for (ApiCallRow& row : rows) row.begin_ns = row.correlation_id = kUntouched;
  reader.read(kChunkRows - 2, 5, rows, wanted);  // across a chunk boundary
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].end_ns, sample.api_calls[kChunkRows - 2 + i].end_ns);
    EXPECT_EQ(rows[i].begin_ns, kUntouched);
    EXPECT_EQ(rows[i].correlation_id, kUntouched);
  }
  EXPECT_THROW(columns_named(table_of<ApiCallRow>(), {"no_such_column"}), std::invalid_argument);
}

TEST_F(RankFile, PrefetchCursorFallsBackToHdf5ForFiltersItDoesNotKnow) {
  // h5repack (HDF5's stock tool) stores one table with the N-bit filter (in format 1, one of
  // its columns): the reader's own decoder leaves such tables to HDF5, and the cursor must
  // still hand out every row.
  const std::string file = path("rank.h5");
  // Deflate: a filter h5repack has built in (zstd would need our plugin on its path).
  const SampleRows sample =
      write_sample_file(file, Compression{Codec::kDeflate, 1}, 2 * kChunkRows + 7);
  const std::string column_groups = path("column_groups.h5");
  fs::copy_file(file, column_groups);
  rocprof::test::rewrite_as_column_groups(column_groups, Compression{Codec::kDeflate, 1});
  for (const auto& [source, checked] :
       {std::pair{file, "api_calls"}, std::pair{column_groups, "api_calls/begin_ns"}}) {
    SCOPED_TRACE(source);
    const std::string repacked = source + ".repacked.h5";
    const std::string command =
        fmt::format("h5repack -f {}:NBIT '{}' '{}' >/dev/null 2>&1", checked, source, repacked);
    // NOLINTNEXTLINE(concurrency-mt-unsafe): the test runs one thread here
    if (std::system(command.c_str()) != 0) GTEST_SKIP() << "h5repack (hdf5-tools) is not installed";
    const RankFileReader reader(repacked);
    StoredChunk stored;
    ASSERT_FALSE(reader.fetch_chunk<ApiCallRow>(0, 1, stored)) << "the filter went unnoticed";
    ASSERT_TRUE(reader.fetch_chunk<MpiCallRow>(0, 1, stored));  // other tables: our decoder
    const std::vector<ApiCallRow> all = read_with_cursor<ApiCallRow>(reader);
    expect_rows_equal(sample.api_calls, all, "api_calls");
    // HDF5's read honours a set of columns too.
    std::vector<ApiCallRow> rows(3);
    for (ApiCallRow& row : rows) row.correlation_id = 77;
    reader.read(4, 3, rows, columns_named(table_of<ApiCallRow>(), {"begin_ns"}));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].begin_ns, sample.api_calls[4 + i].begin_ns);
      EXPECT_EQ(rows[i].correlation_id, 77U);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, RankFileCompression,
                         ::testing::Values("zstd", "zstd:5", "deflate:1", "none"));

// What a SIGKILL leaves: the file's bytes at a moment between two flushes, copied while the
// writer goes on. At seeded random moments, with tails rewritten as they fill (chunks whose
// compressed size does not change among them), new strings and a table begun between
// flushes, each copy must read exactly as of the last flush, with our reader and with stock
// HDF5's own filter pipeline.
TEST_P(RankFileCompression, AKillBetweenFlushesLeavesExactlyTheLastFlush) {
  Compression compression;
  std::string error;
  ASSERT_TRUE(Compression::parse(GetParam(), compression, error)) << error;
  ASSERT_TRUE(register_zstd_filter());
  const std::string file = path("live.h5");
  const std::string copy = path("killed.h5");
  auto writer = RankFileWriter::create(file, rocprof::test::sample_metadata(), compression, error);
  ASSERT_NE(writer, nullptr) << error;
  std::mt19937_64 random(20261127);
  std::vector<MarkerRow> appended;
  std::vector<std::string> texts;  // by string id
  std::size_t flushed = 0;
  std::size_t mpi_flushed = 0;
  std::size_t mpi_appended = 0;
  texts.emplace_back("");
  for (int step = 0; step < 160; ++step) {
    // Sometimes a few rows (a tail rewritten at the same compressed size: constant rows),
    // sometimes enough to fill chunks.
    const std::size_t count = random() % 4 == 0 ? random() % (2 * kChunkRows) : 1 + random() % 300;
    for (std::size_t i = 0; i < count; ++i) {
      MarkerRow row{};
      const bool varied = random() % 2 == 0;
      row.timestamp_ns = varied ? 1000 + appended.size() * 7 + random() % 5 : 1000;
      row.id = varied ? appended.size() : 1;
      row.thread_id = 77;
      row.op = MarkerOp::kMark;
      if (random() % 500 == 0) {
        const std::string text = fmt::format("message {}", texts.size());
        row.message = writer->intern(text);
        if (row.message == texts.size()) texts.push_back(text);
      }
      appended.push_back(row);
    }
    ASSERT_TRUE(writer->append(std::span<const MarkerRow>(appended.end() - count, appended.end())));
    if (step == 60 || (step > 60 && random() % 7 == 0)) {  // a table begun between flushes
      MpiCallRow call{};
      call.begin_ns = step;
      ASSERT_TRUE(writer->append(call));
      ++mpi_appended;
    }
    if (random() % 3 == 0) {
      ASSERT_TRUE(writer->flush(RankFileStatus{})) << writer->error();
      flushed = appended.size();
      mpi_flushed = mpi_appended;
      continue;
    }
    fs::remove(copy);
    fs::copy_file(file, copy);
    {
      const RankFileReader reader(copy);
      const std::vector<MarkerRow> rows = reader.read_all<MarkerRow>();
      ASSERT_EQ(rows.size(), flushed) << "step " << step;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].timestamp_ns, appended[i].timestamp_ns)
            << "step " << step << " row " << i;
        ASSERT_EQ(rows[i].id, appended[i].id) << "step " << step << " row " << i;
        ASSERT_EQ(reader.string(rows[i].message), texts[appended[i].message]) << "step " << step;
      }
      ASSERT_EQ(reader.row_count<MpiCallRow>(), mpi_flushed) << "step " << step;
    }
    // Stock HDF5, through its filter pipeline: every flushed chunk decodes.
    const hid_t h = H5Fopen(copy.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(h, 0) << "step " << step;
    if (flushed > 0) {
      const hid_t dataset = H5Dopen2(h, "markers", H5P_DEFAULT);
      const hid_t type = H5Dget_type(dataset);
      std::vector<std::byte> packed(flushed * H5Tget_size(type));
      EXPECT_GE(H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), 0)
          << "step " << step;
      H5Tclose(type);
      H5Dclose(dataset);
    }
    H5Fclose(h);
  }
  ASSERT_TRUE(writer->close(RankFileStatus{}));
  EXPECT_EQ(RankFileReader(file).read_all<MarkerRow>().size(), appended.size());
}

TEST_F(RankFile, CursorStreamsBlocksInOrder) {
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample_file(file, Compression{}, 3 * kChunkRows + 5);
  const RankFileReader reader(file);
  TableCursor<ApiCallRow> cursor(reader, 5000);
  std::vector<ApiCallRow> block;
  std::size_t seen = 0;
  std::size_t blocks = 0;
  while (cursor.next(block)) {
    ASSERT_LE(block.size(), 5000U);
    for (const ApiCallRow& row : block)
      ASSERT_EQ(row.correlation_id, sample.api_calls[seen++].correlation_id);
    ++blocks;
  }
  EXPECT_EQ(seen, sample.api_calls.size());
  EXPECT_EQ(blocks, (sample.api_calls.size() + 4999) / 5000);
}

TEST_F(RankFile, ZstdMeetsTheApiCallSizeTarget) {
  // Realistic API-call stream: the target is at most 8 bytes per record on disk.
  const std::string file = path("rank.h5");
  const std::size_t rows = 8 * kChunkRows;
  write_sample_file(file, Compression{}, rows);
  const double bytes_per_row = static_cast<double>(fs::file_size(file)) / static_cast<double>(rows);
  EXPECT_LT(bytes_per_row, 8.0);
  std::printf("api-call sample: %.2f bytes per record on disk\n", bytes_per_row);
}

TEST_F(RankFile, SpaceReservedAheadIsGivenBackAtClose) {
  // The writer reserves disk space ahead (so that a full disk stops it cleanly); a small
  // rank's closed file must not keep megabytes it never used.
  const std::string file = path("small.h5");
  write_sample_file(file, Compression{}, 100);
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  const auto allocated = static_cast<std::uint64_t>(info.st_blocks) * 512;
  EXPECT_LT(allocated, static_cast<std::uint64_t>(info.st_size) + (std::uint64_t{64} << 10))
      << "size " << info.st_size;
}

TEST_F(RankFile, ExistingPathIsNeverOverwritten) {
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{}, 10);
  const auto size = fs::file_size(file);
  std::string error;
  auto second =
      RankFileWriter::create(file, rocprof::test::sample_metadata(), Compression{}, error);
  EXPECT_EQ(second, nullptr);
  EXPECT_NE(error.find(file), std::string::npos) << error;
  EXPECT_NE(error.find("File exists"), std::string::npos) << error;
  EXPECT_EQ(fs::file_size(file), size);
  EXPECT_NO_THROW(RankFileReader{file});
}

TEST_F(RankFile, CompressionSpellings) {
  Compression c;
  std::string error;
  EXPECT_TRUE(Compression::parse("zstd:3", c, error));
  EXPECT_EQ(c.to_string(), "zstd:3");
  EXPECT_TRUE(Compression::parse("deflate", c, error));
  EXPECT_EQ(c.to_string(), "deflate:1");
  EXPECT_TRUE(Compression::parse("none", c, error));
  for (const char* bad : {"lz4", "zstd:", "zstd:99", "deflate:0", "none:1", "zstd:3x", ""}) {
    EXPECT_FALSE(Compression::parse(bad, c, error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

// ---- bad files: each is a FormatError naming the file, never a crash ----

std::string open_error(const std::string& file) {
  try {
    const RankFileReader reader(file);
    (void)reader.read_all<ApiCallRow>();
    (void)reader.read_all<MpiCallRow>();
  } catch (const FormatError& error) {
    EXPECT_EQ(error.path(), file);
    EXPECT_NE(std::string(error.what()).find(file), std::string::npos);
    return error.what();
  }
  return "";
}

TEST_F(RankFile, MissingEmptyAndForeignFilesAreClearErrors) {
  EXPECT_NE(open_error(path("missing.h5")).find("No such file"), std::string::npos);
  std::ofstream(path("empty.h5")).close();
  EXPECT_NE(open_error(path("empty.h5")).find("empty file"), std::string::npos);
  std::ofstream(path("text.h5")) << "this is not HDF5\n";
  EXPECT_NE(open_error(path("text.h5")).find("not an HDF5 file"), std::string::npos);
  const hid_t other = H5Fcreate(path("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(other);
  EXPECT_NE(open_error(path("other.h5")).find("not a rocprof-mpi rank file"), std::string::npos);
  {  // rocprof-merge's .h5 output: known for what it is
    const rocprof::format::Handle merged(
        H5Fcreate(path("merged.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(rocprof::format::write_attribute(merged.get(), "format",
                                                 std::string(kMergedTraceFormatName)));
  }
  EXPECT_EQ(open_error(path("merged.h5")), path("merged.h5") + ": " + kMergedTraceProblem);
  ASSERT_EQ(::mkfifo(path("pipe.h5").c_str(), 0600), 0);
  EXPECT_NE(open_error(path("pipe.h5")).find("not a regular file"), std::string::npos);
  EXPECT_NE(open_error("/dev/zero").find("not a regular file"), std::string::npos);
}

TEST_F(RankFile, WrongMajorVersionIsRefused) {
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{}, 10);
  const hid_t h = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t attribute = H5Aopen(h, "format_version", H5P_DEFAULT);
  const unsigned version[2] = {kFormatVersionMajor + 1, 0};
  H5Awrite(attribute, H5T_NATIVE_UINT, version);
  H5Aclose(attribute);
  H5Fclose(h);
  EXPECT_NE(open_error(file).find("format version 3.0 is not supported"), std::string::npos)
      << open_error(file);
}

TEST_F(RankFile, TruncatedFileIsAClearError) {
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{}, 4 * kChunkRows);
  fs::resize_file(file, fs::file_size(file) / 2);
  const std::string error = open_error(file);
  EXPECT_FALSE(error.empty());
}

TEST_F(RankFile, UserBlockInFrontOfTheFileIsAllowedFor) {
  // HDF5 addresses count from the end of a user block (h5jam puts one in front): chunks read
  // at the addresses HDF5 gives must be shifted by it, or every row would be garbage.
  const std::string file = path("rank.h5");
  const std::string jammed = path("jammed.h5");
  const SampleRows sample = write_sample_file(file, Compression{}, 2 * kChunkRows + 9);
  const std::string block = path("block.txt");
  std::ofstream(block) << "a user block: text a site's tools put in front of HDF5 files\n";
  const std::string command =
      "h5jam -i '" + file + "' -u '" + block + "' -o '" + jammed + "' >/dev/null 2>&1";
  // NOLINTNEXTLINE(concurrency-mt-unsafe): the test runs one thread here
  if (std::system(command.c_str()) != 0) GTEST_SKIP() << "h5jam (hdf5-tools) is not installed";
  ASSERT_GE(fs::file_size(jammed), fs::file_size(file) + 512);
  const RankFileReader reader(jammed);
  expect_sample(reader, sample);
  const std::vector<ApiCallRow> all = read_with_cursor<ApiCallRow>(reader);
  expect_rows_equal(sample.api_calls, all, "api_calls through the cursor");
}

TEST_F(RankFile, LargeTablesAreLocatedWhenReadAndAgainAfterRelease) {
  // Past 64 chunks a table's chunk locations are not kept from the check at open: they are
  // found when the table is read, and dropped when the file is released.
  const std::string file = path("rank.h5");
  const SampleRows sample = write_sample_file(file, Compression{}, 64 * kChunkRows + 3);
  const RankFileReader reader(file);
  for (int pass = 0; pass < 2; ++pass) {
    PrefetchCursor<ApiCallRow> cursor(reader);
    std::vector<ApiCallRow> block;
    std::size_t seen = 0;
    while (cursor.next(block))
      for (const ApiCallRow& row : block) {
        ASSERT_EQ(row.correlation_id, sample.api_calls[seen].correlation_id) << pass << seen;
        ASSERT_EQ(row.end_ns, sample.api_calls[seen].end_ns) << pass << seen;
        ++seen;
      }
    EXPECT_EQ(seen, sample.api_calls.size());
    reader.release();
  }
  expect_rows_equal(sample.markers, reader.read_all<MarkerRow>(), "markers after release");
}

TEST_F(RankFile, FileShortenedAfterItsCheckIsAClearError) {
  // The check at open located the chunks; the file then loses its end (a copy still running,
  // say). Reading a chunk that is gone names the file and the column instead of handing out
  // zeros.
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{Codec::kNone, 0}, 8 * kChunkRows);
  const RankFileReader reader(file);
  reader.release();
  fs::resize_file(file, fs::file_size(file) / 2);
  std::vector<ApiCallRow> rows;
  try {
    reader.read(0, reader.row_count<ApiCallRow>(), rows);
    FAIL() << "a chunk past the end of the file was read without an error";
  } catch (const FormatError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(file), std::string::npos) << what;
    EXPECT_NE(what.find("truncated"), std::string::npos) << what;
  }
}

TEST_F(RankFile, FileRemovedAfterItsCheckIsAClearError) {
  // Chunks are read with pread from a descriptor opened when first needed: a file gone by
  // then is named, not read as zeros.
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{}, 100);
  const RankFileReader reader(file);
  reader.release();
  fs::remove(file);
  try {
    reader.read_all<MpiCallRow>();
    FAIL() << "a removed file was read";
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("removed since it was checked"), std::string::npos)
        << error.what();
  }
}

TEST_F(RankFile, MissingOrMistypedColumnsAndTablesAreNamed) {
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{}, 100);
  // Each case replaces a table's dataset with an empty one of other rows (or a group).
  struct Case {
    const char* table;
    const char* dropped;   // a column left out of the row type
    const char* retyped;   // a column stored as float64
    bool group;            // a group instead of a dataset
    const char* expected;  // in the error
  };
  for (const Case& test : {
           Case{"counter_samples", "counter", nullptr, false, "counter_samples/counter is missing"},
           Case{"api_calls", "end_ns", nullptr, false, "api_calls/end_ns is missing"},
           Case{"markers", nullptr, "op", false, "markers/op is not a uint8 field"},
           Case{"threads", nullptr, nullptr, true, "'threads' is not a 1-D dataset"},
       }) {
    const std::string copy = path(std::string(test.table) + ".h5");
    fs::copy_file(file, copy, fs::copy_options::overwrite_existing);
    {
      const Handle h(H5Fopen(copy.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
      ASSERT_TRUE(h.valid());
      ASSERT_GE(H5Ldelete(h.get(), test.table, H5P_DEFAULT), 0);
      if (test.group) {
        ASSERT_GE(
            Handle(H5Gcreate2(h.get(), test.table, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)).get(),
            0);
      } else {
        const Table& table =
            **std::find_if(all_tables().begin(), all_tables().end(),
                           [&](const Table* t) { return std::string(t->name) == test.table; });
        const Handle type(H5Tcreate(H5T_COMPOUND, 8 * table.columns.size()));
        std::size_t offset = 0;
        for (const Column& column : table.columns) {
          if (test.dropped != nullptr && std::string(column.name) == test.dropped) continue;
          const bool retype = test.retyped != nullptr && std::string(column.name) == test.retyped;
          H5Tinsert(type.get(), column.name, offset,
                    retype ? H5T_IEEE_F64LE : column_hdf5_type(column.type));
          offset += 8;
        }
        const hsize_t none = 0;
        const Handle space(H5Screate_simple(1, &none, nullptr));
        ASSERT_GE(Handle(H5Dcreate2(h.get(), test.table, type.get(), space.get(), H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT))
                      .get(),
                  0);
      }
    }
    const std::string error = open_error(copy);
    EXPECT_NE(error.find(test.expected), std::string::npos) << error;
    EXPECT_NE(error.find(copy), std::string::npos) << error;
  }
}

TEST_F(RankFile, MissingColumnsOfFormatOneAreFoundEvenInEmptyTables) {
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{}, 100);
  rocprof::test::rewrite_as_column_groups(file, Compression{});
  // Empty the counter table (its first column, in schema order, cut to no rows), then remove one
  // column from it and one from the API-call table: both are named, though the empty table's
  // columns are otherwise not opened.
  for (const auto& [table, first_column, removed] :
       {std::tuple{"counter_samples", "timestamp_ns", "counter"},
        std::tuple{"api_calls", "", "end_ns"}}) {
    const std::string copy = path(std::string(table) + ".h5");
    fs::copy_file(file, copy);
    const hid_t h = H5Fopen(copy.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(h, 0);
    const hid_t group = H5Gopen2(h, table, H5P_DEFAULT);
    if (*first_column != '\0') {
      const hid_t dataset = H5Dopen2(group, first_column, H5P_DEFAULT);
      const hsize_t none = 0;
      ASSERT_GE(H5Dset_extent(dataset, &none), 0);
      H5Dclose(dataset);
    }
    ASSERT_GE(H5Ldelete(group, removed, H5P_DEFAULT), 0);
    H5Gclose(group);
    H5Fclose(h);
    try {
      const RankFileReader reader(copy);
      FAIL() << table << ": a missing column went unnoticed";
    } catch (const FormatError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string(table) + "/" + removed + " is missing"),
                std::string::npos)
          << error.what();
    }
  }
}

// One flipped byte anywhere in a chunk's stored bytes (a codec that would still decode it, or
// none at all) or in a string is found: by the chunks' and the strings' checksums (2.7), by
// our reader and by stock HDF5, never read as other values.
TEST_F(RankFile, AFlippedByteInAChunkOrAStringIsFound) {
  for (const Codec codec : {Codec::kNone, Codec::kZstd}) {
    const std::string file = path(codec == Codec::kNone ? "raw.h5" : "zstd.h5");
    write_sample_file(file, Compression{codec, 1}, 3 * kChunkRows);
    haddr_t address = 0;
    hsize_t size = 0;
    {
      const Handle h(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
      const Handle dataset(H5Dopen2(h.get(), "api_calls", H5P_DEFAULT));
      const Handle space(H5Dget_space(dataset.get()));
      hsize_t offset[1] = {0};
      unsigned mask = 0;
      ASSERT_GE(H5Dget_chunk_info(dataset.get(), space.get(), 1, offset, &mask, &address, &size),
                0);
    }
    {
      std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
      stream.seekg(static_cast<std::streamoff>(address + size / 2));
      char byte = 0;
      stream.get(byte);
      stream.seekp(static_cast<std::streamoff>(address + size / 2));
      stream.put(static_cast<char>(byte ^ 0x10));
    }
    const RankFileReader reader(file);
    std::vector<ApiCallRow> rows;
    EXPECT_THROW(reader.read(0, reader.row_count<ApiCallRow>(), rows), FormatError) << file;
    const Handle h(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const Handle dataset(H5Dopen2(h.get(), "api_calls", H5P_DEFAULT));
    const Handle type(H5Dget_type(dataset.get()));
    std::vector<std::byte> packed(reader.row_count<ApiCallRow>() * H5Tget_size(type.get()));
    const QuietErrors quiet;
    EXPECT_LT(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), 0)
        << "stock HDF5 read a damaged chunk: " << file;
  }
  // A string: its bytes found in the file and one of them changed.
  const std::string file = path("strings.h5");
  write_sample_file(file, Compression{}, 100);
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::size_t at = bytes.find("jacobi_kernel");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'J';
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  try {
    const RankFileReader reader(file);
    FAIL() << "a damaged string went unnoticed";
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("string table is damaged"), std::string::npos)
        << error.what();
  }
}

TEST_F(RankFile, CorruptedChunksAreAClearError) {
  // Overwrite the stored bytes of one real chunk (located through HDF5) with garbage.
  const std::string file = path("rank.h5");
  write_sample_file(file, Compression{}, 6 * kChunkRows);
  haddr_t address = 0;
  hsize_t size = 0;
  {
    const hid_t h = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(h, "api_calls", H5P_DEFAULT);
    const hid_t space = H5Dget_space(dataset);
    hsize_t offset[1] = {0};
    unsigned mask = 0;
    ASSERT_GE(H5Dget_chunk_info(dataset, space, 2, offset, &mask, &address, &size), 0);
    H5Sclose(space);
    H5Dclose(dataset);
    H5Fclose(h);
  }
  ASSERT_GT(size, 16U);
  {
    std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
    stream.seekp(static_cast<std::streamoff>(address + 8));
    const std::string garbage(size - 8, '\x5a');
    stream.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const RankFileReader reader(file);  // metadata is intact: opening works
  std::vector<ApiCallRow> rows;
  try {
    reader.read(0, reader.row_count<ApiCallRow>(), rows);
    FAIL() << "a damaged chunk was read without an error";
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find(file), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("table api_calls"), std::string::npos) << error.what();
  }
  // Through a prefetching cursor the damage is found on its helper thread and reported by
  // next() at the damaged chunk, after the sound chunks before it.
  PrefetchCursor<ApiCallRow> cursor(reader);
  std::size_t sound_blocks = 0;
  try {
    while (cursor.next(rows)) ++sound_blocks;
    FAIL() << "a damaged chunk was read without an error";
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("table api_calls"), std::string::npos) << error.what();
  }
  EXPECT_EQ(sound_blocks, 2U);
  // The undamaged tables still read.
  EXPECT_EQ(reader.read_all<MpiCallRow>().size(), 40U);
}

}  // namespace
