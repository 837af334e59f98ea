#include "tests/format/rank_file_sample.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "lib/format/rank_file_reader.hpp"

namespace rocprof::test {

using namespace rocprof::format;

RankMetadata sample_metadata() {
  RankMetadata metadata;
  metadata.tool_version = "0.1.0-test";
  metadata.job_id = "4242";
  metadata.rank = 3;
  metadata.size = 8;
  metadata.hostname = "node-a";
  metadata.pid = 12345;
  metadata.command_line = {"./app", "--with space", "ünïcode"};
  metadata.start_realtime_ns = 1'763'800'000'000'000'000ULL;
  metadata.start_clock_ns = 5'000'000'000ULL;
  metadata.compression = "zstd:1";
  metadata.flush_interval_ms = 1000;
  metadata.traced_ranks = "0-3,5";
  return metadata;
}

SampleRows make_sample(RankFileWriter& writer, std::size_t api_rows) {
  SampleRows s;
  const StringId kernel = writer.intern("jacobi_kernel(double*, int)");
  std::uint64_t t = 5'000'000'000ULL;
  for (std::size_t i = 0; i < api_rows; ++i) {
    auto row = zeroed<ApiCallRow>();
    row.begin_ns = t += 700 + (i * 7919) % 300;
    row.end_ns = row.begin_ns + 150 + i % 97;
    row.correlation_id = i + 1;
    row.external_id = i / 100;
    row.thread_id = 4000 + static_cast<std::uint32_t>(i % 3);
    row.domain = 3;
    row.op = static_cast<std::uint32_t>(i % 11);
    if (i % 10 == 0) {
      row.kernel_name = kernel;
      row.grid[0] = 256;
      row.grid[1] = 2;
      row.grid[2] = 1;
      row.block[0] = 64;
      row.block[1] = 1;
      row.block[2] = 1;
      row.stream = 0x7f00'1000;
    }
    if (i % 10 == 5) {
      row.bytes = 1 << 20;
      row.copy_direction = CopyDirection::kHostToDevice;
    }
    s.api_calls.push_back(row);
  }
  for (int i = 0; i < 300; ++i) {
    auto row = zeroed<ActivityRow>();
    row.begin_ns = 6'000'000'000ULL + 1000ULL * i;
    row.end_ns = row.begin_ns + 800;
    row.correlation_id = 10ULL * i + 1;
    row.queue_id = 0x5000 + i % 2;
    row.op = i % 3;
    row.kind = 4000 + i % 2;
    row.device_id = i % 4;
    row.kernel_name = i % 3 == 0 ? kernel : 0;
    row.bytes = i % 3 == 1 ? 4096 : 0;
    if (i % 3 == 0) {  // a kernel: what it asked of the GPU (format 2.2)
      row.grid[0] = 128 + i;
      row.grid[1] = 2;
      row.grid[2] = 1;
      row.block[0] = 256;
      row.block[1] = 1;
      row.block[2] = 1;
      row.shared_bytes = 4096;
      row.registers = 32 + i % 8;
    }
    row.context_id = 1 + i % 2;  // format 2.3
    if (i % 3 == 1) {
      row.src_kind = i % 2 == 0 ? MemoryKind::kPinned : MemoryKind::kDevice;
      row.dst_kind = i % 2 == 0 ? MemoryKind::kDevice : MemoryKind::kPageable;
    }
    row.domain = 2;
    s.activities.push_back(row);
  }
  for (int i = 0; i < 50; ++i) {
    auto row = zeroed<ExternalCorrelationRow>();
    row.correlation_id = 10ULL * i + 1;
    row.external_id = (3ULL << 48) | static_cast<std::uint64_t>(i);
    s.externals.push_back(row);
  }
  const char* phases[] = {"halo exchange", "compute", "residual"};
  for (int i = 0; i < 30; ++i) {
    auto row = zeroed<MarkerRow>();
    row.timestamp_ns = 5'100'000'000ULL + 10ULL * i;
    row.id = static_cast<std::uint64_t>(i) / 2 + 1;
    row.thread_id = 4000;
    row.op = i % 2 == 0 ? MarkerOp::kPush : MarkerOp::kPop;
    row.level = 0;
    row.message = i % 2 == 0 ? writer.intern(phases[(i / 2) % 3]) : 0;
    s.markers.push_back(row);
  }
  const StringId send = writer.intern("MPI_Isend");
  const StringId wait = writer.intern("MPI_Wait");
  for (int i = 0; i < 40; ++i) {
    auto row = zeroed<MpiCallRow>();
    row.begin_ns = 5'200'000'000ULL + 1000ULL * i;
    row.end_ns = row.begin_ns + 300;
    row.external_id = static_cast<std::uint64_t>(i) + 1;
    row.communicator = 1;
    row.request = 0x100 + static_cast<std::uint64_t>(i / 2);
    row.bytes_sent = i % 2 == 0 ? 8192 : 0;
    row.thread_id = 4000;
    row.function = i % 2 == 0 ? send : wait;
    row.peer = i % 2 == 0 ? (i / 2) % 8 : -1;
    row.tag = i % 2 == 0 ? 7 : -1;
    s.mpi_calls.push_back(row);
  }
  for (int i = 0; i < 3; ++i) {
    auto row = zeroed<CommunicatorRow>();
    row.created_ns = 5'200'000'000ULL + 7ULL * i;
    row.communicator = i == 0 ? 1 : 0xabcdef00ULL + i;
    row.parent = i == 0 ? 0 : 1;
    row.size = 8 >> i;
    row.remote_size = i == 2 ? 3 : 0;
    row.rank = 3 >> i;
    row.creator = writer.intern(i == 0 ? "MPI_COMM_WORLD" : "MPI_Comm_split");
    s.communicators.push_back(row);
  }
  const StringId power = writer.intern("power_watts");
  for (int i = 0; i < 20; ++i) {
    auto row = zeroed<CounterSampleRow>();
    row.timestamp_ns = 5'300'000'000ULL + 1'000'000ULL * i;
    row.value = 250.5 + i * 0.25;
    row.session = 1;
    row.counter = power;
    s.counters.push_back(row);
  }
  auto session = zeroed<CounterSessionRow>();
  session.start_ns = 5'299'000'000ULL;
  session.session = 1;
  session.device_id = 0;
  session.name = writer.intern("smi sampler");
  s.sessions.push_back(session);
  for (int i = 0; i < 2; ++i) {
    auto row = zeroed<ClockSampleRow>();
    row.local_ns = 5'000'100'000ULL + 60'000'000'000ULL * i;
    row.offset_ns = -7'000'000'123LL + static_cast<std::int64_t>(i) * 55;
    row.round_trip_ns = 2100 + i;
    row.uncertainty_ns = 1050;
    row.reference_rank = 0;
    s.clocks.push_back(row);
  }
  for (std::uint32_t op = 0; op < 11; ++op) {
    auto row = zeroed<OpNameRow>();
    row.domain = 3;
    row.op = op;
    row.name = writer.intern("hipOp" + std::to_string(op));
    s.op_names.push_back(row);
  }
  auto thread = zeroed<ThreadRow>();
  thread.first_seen_ns = 5'000'000'100ULL;
  thread.thread_id = 4000;
  thread.name = writer.intern("main");
  s.threads.push_back(thread);
  // One annotation of each value type, on marker 7.
  for (std::uint8_t type = 1; type <= 11; ++type) {
    auto annotation = zeroed<AnnotationRow>();
    annotation.timestamp_ns = 1000 + type;
    annotation.marker_id = 7;
    annotation.value = type == 1 ? 0 : (std::uint64_t{1} << 63) + type;
    annotation.thread_id = 4242;
    annotation.name = writer.intern("annotation " + std::to_string(type));
    annotation.text = type == 1 ? writer.intern("a string value") : 0;
    annotation.type = static_cast<AnnotationType>(type);
    s.annotations.push_back(annotation);
  }
  for (std::uint64_t i = 0; i < 5; ++i)  // format 2.4: a TSC of 2.4 GHz
    s.tick_pairs.push_back({7'000'000 + i * 240'000'000, 1'000'000'000 + i * 100'000'000});
  // Format 2.6: two code objects and their kernels.
  for (std::uint64_t i = 0; i < 2; ++i) {
    const std::uint64_t base = 0x7f0000000000ULL + (i << 24);
    s.code_objects.push_back(
        {base, 0x4000, static_cast<std::int64_t>(base) - 0x1000, 6'000'000'000ULL + i,
         writer.intern("file:///opt/app/kernels" + std::to_string(i) + ".co#offset=0&size=16384")});
    for (std::uint64_t k = 0; k < 3; ++k) {
      auto symbol = zeroed<KernelSymbolRow>();
      symbol.kernel_object = base + 0x100 * (k + 1);
      symbol.load_base = base;
      symbol.name = writer.intern("kernel_" + std::to_string(i) + "_" + std::to_string(k));
      s.kernel_symbols.push_back(symbol);
    }
  }
  return s;
}

SampleRows write_sample_file(const std::string& path, const Compression& compression,
                             std::size_t api_rows) {
  std::string error;
  auto writer = RankFileWriter::create(path, sample_metadata(), compression, error);
  if (!writer) throw std::runtime_error(error);
  SampleRows s = make_sample(*writer, api_rows);
  // Uneven appends with flushes between: partial chunks get rewritten as they grow.
  const std::size_t half = s.api_calls.size() / 3;
  RankFileStatus status;
  bool ok = writer->append(std::span<const ApiCallRow>(s.api_calls.data(), half));
  ok = ok && writer->flush(status);
  ok = ok && writer->append(
                 std::span<const ApiCallRow>(s.api_calls.data() + half, s.api_calls.size() - half));
  ok = ok && writer->append<ActivityRow>(s.activities) &&
       writer->append<ExternalCorrelationRow>(s.externals) && writer->append<MarkerRow>(s.markers);
  ok = ok && writer->flush(status);
  ok = ok && writer->append<CommunicatorRow>(s.communicators) &&
       writer->append<MpiCallRow>(s.mpi_calls) && writer->append<CounterSampleRow>(s.counters) &&
       writer->append<CounterSessionRow>(s.sessions) && writer->append<ClockSampleRow>(s.clocks) &&
       writer->append<OpNameRow>(s.op_names) && writer->append<ThreadRow>(s.threads) &&
       writer->append<AnnotationRow>(s.annotations) &&
       writer->append<TickCalibrationRow>(s.tick_pairs) &&
       writer->append<CodeObjectRow>(s.code_objects) &&
       writer->append<KernelSymbolRow>(s.kernel_symbols);
  status.records_dropped = 17;
  status.last_flush_clock_ns = 9'000'000'000ULL;
  ok = ok && writer->close(status);
  if (!ok) throw std::runtime_error(writer->error());
  return s;
}

namespace {

// One table's rows as column datasets of a new group, in place of its dataset.
template <typename Row>
void write_column_group(const std::vector<Row>& rows, hid_t file, const Compression& compression) {
  const Table& table = table_of<Row>();
  // Format 2 leaves out tables without rows; format 1.2 has every one.
  if (H5Lexists(file, table.name, H5P_DEFAULT) > 0 && H5Ldelete(file, table.name, H5P_DEFAULT) < 0)
    throw std::runtime_error(std::string("cannot remove ") + table.name);
  const Handle group(H5Gcreate2(file, table.name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  const hsize_t count = rows.size();
  const hsize_t unlimited = H5S_UNLIMITED;
  const hsize_t chunk = kColumnGroupsChunkRows;
  for (const Column& column : table.columns) {
    if (column.since_minor > 0) continue;  // added in format 2
    const std::size_t width = column_type_size(column.type);
    std::vector<std::byte> values(rows.size() * width);
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::memcpy(values.data() + i * width,
                  reinterpret_cast<const std::byte*>(&rows[i]) + column.offset, width);
    const Handle space(H5Screate_simple(1, &count, &unlimited));
    const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_chunk(properties.get(), 1, &chunk);
    if (!add_filters(properties.get(), compression, width))
      throw std::runtime_error("cannot set the filters");
    const Handle dataset(H5Dcreate2(group.get(), column.name, column_hdf5_type(column.type),
                                    space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT));
    if (!dataset.valid() ||
        (count > 0 && H5Dwrite(dataset.get(), column_hdf5_type(column.type), H5S_ALL, H5S_ALL,
                               H5P_DEFAULT, values.data()) < 0))
      throw std::runtime_error(std::string("cannot write column ") + column.name);
  }
}

}  // namespace

void clear_columns_since(std::vector<ActivityRow>& rows, std::uint32_t minor) {
  const Table& table = table_of<ActivityRow>();
  for (ActivityRow& row : rows)
    for (const Column& column : table.columns)
      if (column.since_minor >= minor)
        std::memset(reinterpret_cast<std::byte*>(&row) + column.offset, 0,
                    column_type_size(column.type));
}

void rewrite_activities_as_format(const std::string& path, std::uint32_t minor) {
  std::vector<ActivityRow> rows;
  {
    const RankFileReader reader(path);
    rows = reader.read_all<ActivityRow>();
  }
  const Table& table = table_of<ActivityRow>();
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  if (!file.valid() || H5Ldelete(file.get(), table.name, H5P_DEFAULT) < 0)
    throw std::runtime_error("cannot remove the activities of " + path);
  // The packed row type of 2.`minor`: the columns that existed then, in order, no padding.
  std::size_t row_bytes = 0;
  for (const Column& column : table.columns)
    if (column.since_minor <= minor) row_bytes += column_type_size(column.type);
  const Handle type(H5Tcreate(H5T_COMPOUND, row_bytes));
  std::vector<std::byte> packed(rows.size() * row_bytes);
  std::size_t offset = 0;
  for (const Column& column : table.columns) {
    if (column.since_minor > minor) continue;
    const std::size_t width = column_type_size(column.type);
    H5Tinsert(type.get(), column.name, offset, column_hdf5_type(column.type));
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::memcpy(packed.data() + i * row_bytes + offset,
                  reinterpret_cast<const std::byte*>(&rows[i]) + column.offset, width);
    offset += width;
  }
  const hsize_t count = rows.size();
  const hsize_t chunk = kChunkRows;
  const hsize_t unlimited = H5S_UNLIMITED;
  const Handle space(H5Screate_simple(1, &count, &unlimited));
  const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_chunk(properties.get(), 1, &chunk);
  const Handle dataset(H5Dcreate2(file.get(), table.name, type.get(), space.get(), H5P_DEFAULT,
                                  properties.get(), H5P_DEFAULT));
  if (!dataset.valid() ||
      H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()) < 0)
    throw std::runtime_error("cannot write the older activities of " + path);
  const std::vector<std::uint32_t> version = {kFormatVersionMajor, minor};
  if (!write_attribute(file.get(), "format_version", version))
    throw std::runtime_error("cannot write format_version");
}

void rewrite_as_column_groups(const std::string& path, const Compression& compression) {
  std::tuple<std::vector<ApiCallRow>, std::vector<ActivityRow>, std::vector<ExternalCorrelationRow>,
             std::vector<MarkerRow>, std::vector<MpiCallRow>, std::vector<CommunicatorRow>,
             std::vector<CounterSampleRow>, std::vector<CounterSessionRow>,
             std::vector<ClockSampleRow>, std::vector<OpNameRow>, std::vector<ThreadRow>,
             std::vector<AnnotationRow>>
      tables;
  {
    const RankFileReader reader(path);  // closed before the file is opened for writing
    std::apply(
        [&](auto&... rows) {
          ((rows = reader.read_all<typename std::decay_t<decltype(rows)>::value_type>()), ...);
        },
        tables);
  }
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  if (!file.valid()) throw std::runtime_error("cannot open " + path);
  std::apply([&](const auto&... rows) { (write_column_group(rows, file.get(), compression), ...); },
             tables);
  const std::vector<std::uint32_t> version = {kColumnGroupsVersionMajor, kColumnGroupsVersionMinor};
  if (!write_attribute(file.get(), "chunk_rows",
                       static_cast<std::uint32_t>(kColumnGroupsChunkRows)))
    throw std::runtime_error("cannot write chunk_rows");
  if (!write_attribute(file.get(), "format_version", version))
    throw std::runtime_error("cannot write format_version");
}

}  // namespace rocprof::test
