// Recorder benchmarks (issue #3 targets): writer throughput per core and bytes per record on
// disk for a realistic HIP API-call stream and for kernel activity records, per codec; the
// same stream as compound rows (the layout not chosen) for comparison; and, with the recorder
// preloaded, what recording costs an application thread while the writer is busy.
//
//   build/tests/recorder_bench --benchmark_filter=Writer --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
//   LD_PRELOAD=build/lib/librocprof-mpi.so ROCPROF_MPI_OUTPUT_DIR=/tmp/bench-out
//       build/tests/recorder_bench --benchmark_filter=Producer
//
// Counters: items_per_second = records/s on the one writer thread; bytes_per_record = file
// size / records.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <rocprof-mpi/recorder.h>
#include <roctracer/roctracer.h>

#include "lib/format/rank_file_writer.hpp"
#include "lib/format/zstd_filter.hpp"
#include "lib/recorder/record_sink.hpp"

namespace {

using namespace rocprof::format;
namespace fs = std::filesystem;

constexpr std::size_t kBatch = 4096;  // rows per append (a delivered pool buffer's worth)
constexpr std::size_t kStreamRows = 1 << 20;

const char* const kCodecs[] = {"zstd:1", "zstd:3", "zstd:-1", "deflate:1", "none"};

std::string bench_path(const char* name) {
  return (fs::temp_directory_path() /
          (std::string("recorder_bench_") + name + "_" + std::to_string(getpid()) + ".h5"))
      .string();
}

// A HIP application's API stream: mostly launches, async copies and synchronisations, a
// call every ~0.7 us on 4 threads, an MPI-call external id changing every ~100 calls.
std::vector<ApiCallRow> api_stream(RankFileWriter& writer) {
  std::mt19937_64 random(42);
  std::vector<StringId> kernels;
  kernels.reserve(24);
  for (int k = 0; k < 24; ++k) kernels.push_back(writer.intern("kernel_" + std::to_string(k)));
  std::vector<ApiCallRow> rows(kStreamRows);
  std::uint64_t t = 1'000'000'000ULL;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ApiCallRow& row = rows[i];
    std::memset(&row, 0, sizeof row);
    t += 400 + random() % 600;
    row.begin_ns = t;
    row.correlation_id = i + 1;
    row.external_id = i / 100;
    row.thread_id = 7000 + static_cast<std::uint32_t>(random() % 4);
    row.domain = 3;
    const unsigned pick = random() % 10;
    if (pick < 4) {  // hipLaunchKernel
      row.op = 99;
      row.end_ns = t + 3000 + random() % 2000;
      row.kernel_name = kernels[random() % kernels.size()];
      row.grid[0] = 1024;
      row.grid[1] = row.grid[2] = 1;
      row.block[0] = 256;
      row.block[1] = row.block[2] = 1;
      row.stream = 0x5555'0000 + random() % 2;
    } else if (pick < 6) {  // hipMemcpyAsync
      row.op = 52;
      row.end_ns = t + 2000 + random() % 1000;
      row.bytes = 1U << (10 + random() % 12);
      row.copy_direction = static_cast<CopyDirection>(2 + random() % 2);
      row.stream = 0x5555'0000 + random() % 2;
    } else {  // synchronisation and queries
      row.op = 150 + static_cast<std::uint32_t>(random() % 4);
      row.end_ns = t + 100 + random() % 5000;
    }
  }
  return rows;
}

std::vector<ActivityRow> kernel_stream(RankFileWriter& writer) {
  std::mt19937_64 random(7);
  std::vector<StringId> kernels;
  kernels.reserve(24);
  for (int k = 0; k < 24; ++k) kernels.push_back(writer.intern("kernel_" + std::to_string(k)));
  std::vector<ActivityRow> rows(kStreamRows);
  std::uint64_t t = 1'000'000'000ULL;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ActivityRow& row = rows[i];
    std::memset(&row, 0, sizeof row);
    t += 2000 + random() % 8000;
    row.begin_ns = t;
    row.end_ns = t + 1500 + random() % 6000;
    row.correlation_id = 3 * i + 1 + random() % 3;
    row.queue_id = 0x4000 + random() % 2;
    row.device_id = 0;
    row.domain = 2;
    row.op = 0;
    row.kind = 0x4201;
    row.kernel_name = kernels[random() % kernels.size()];
  }
  return rows;
}

template <typename Row, typename Make>
void writer_benchmark(benchmark::State& state, Make make) {
  Compression compression;
  std::string error;
  Compression::parse(kCodecs[state.range(0)], compression, error);
  state.SetLabel(compression.to_string());
  const std::string path = bench_path("writer");
  // The stream is made once; string ids come out the same in every new file (same order).
  std::vector<Row> rows;
  {
    auto scratch = RankFileWriter::create(path, RankMetadata{}, compression, error);
    rows = make(*scratch);
  }
  std::uint64_t rows_written = 0;
  double bytes_per_record = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(path);
    auto writer = RankFileWriter::create(path, RankMetadata{}, compression, error);
    for (int k = 0; k < 24; ++k) writer->intern("kernel_" + std::to_string(k));
    state.ResumeTiming();
    for (std::size_t i = 0; i < rows.size(); i += kBatch)
      writer->append(std::span<const Row>(rows.data() + i, kBatch));
    writer->close(RankFileStatus{});
    rows_written += rows.size();
    bytes_per_record = static_cast<double>(fs::file_size(path)) / static_cast<double>(rows.size());
  }
  fs::remove(path);
  state.SetItemsProcessed(static_cast<std::int64_t>(rows_written));
  state.counters["bytes_per_record"] = bytes_per_record;
}

void BM_WriterApiCalls(benchmark::State& state) { writer_benchmark<ApiCallRow>(state, api_stream); }
void BM_WriterKernelActivity(benchmark::State& state) {
  writer_benchmark<ActivityRow>(state, kernel_stream);
}
BENCHMARK(BM_WriterApiCalls)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriterKernelActivity)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

// The recorder's writer-side path from pool buffers: activity_record_t HIP API records through
// the sink (conversion, op and thread names) into the file.
void BM_WriterFromPoolBuffers(benchmark::State& state) {
  const std::string path = bench_path("sink");
  std::string error;
  std::vector<activity_record_t> records(kBatch);
  std::uint64_t written = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(path);
    auto writer = RankFileWriter::create(path, RankMetadata{}, Compression{}, error);
    rocprof::recorder::RecordSink sink(*writer, false);
    std::mt19937_64 random(1);
    std::uint64_t t = 1'000'000'000ULL;
    std::uint64_t correlation = 1;
    state.ResumeTiming();
    for (std::size_t batch = 0; batch < kStreamRows / kBatch; ++batch) {
      state.PauseTiming();
      for (activity_record_t& record : records) {
        std::memset(&record, 0, sizeof record);
        record.domain = ACTIVITY_DOMAIN_HIP_API;
        record.op = 150 + static_cast<std::uint32_t>(random() % 4);
        record.correlation_id = correlation++;
        record.begin_ns = t += 400 + random() % 600;
        record.end_ns = t + 100 + random() % 5000;
        record.process_id = 1;
        record.thread_id = 7000 + static_cast<std::uint32_t>(random() % 4);
      }
      state.ResumeTiming();
      sink.consume(reinterpret_cast<const char*>(records.data()),
                   reinterpret_cast<const char*>(records.data() + records.size()));
    }
    writer->close(RankFileStatus{});
    written += kStreamRows;
  }
  fs::remove(path);
  state.SetItemsProcessed(static_cast<std::int64_t>(written));
}
BENCHMARK(BM_WriterFromPoolBuffers)->Unit(benchmark::kMillisecond);

// ROC-TX ranges as the recorder's pool delivers them: push and pop records of one thread in
// TSC ticks, every push naming the same kept message, in 1 MiB chunks that are no longer in
// the cache (more of them than the last-level cache holds); through the sink into the file.
// The writer's side of a program that records ranges flat out.
void BM_WriterFromMarkerBuffers(benchmark::State& state) {
  const std::string path = bench_path("markers");
  std::string error;
  constexpr std::size_t kChunkRecords = (std::size_t{1} << 20) / sizeof(activity_record_t);
  constexpr std::size_t kChunks = 96;
  std::vector<std::vector<activity_record_t>> chunks(kChunks,
                                                     std::vector<activity_record_t>(kChunkRecords));
  static const char kMessage[] = "ranged";
  std::uint64_t written = 0;
  std::uint64_t id = 1;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(path);
    for (auto& records : chunks) {
      // Ticks read before the sink's first clock pair, as in the recorder.
      std::uint64_t tick = __builtin_ia32_rdtsc();
      for (std::size_t i = 0; i < records.size(); ++i) {
        activity_record_t& record = records[i];
        record = activity_record_t{};
        record.domain = ACTIVITY_DOMAIN_ROCTX;
        const bool push = i % 2 == 0;
        record.op = push ? 1 : 2;
        record.correlation_id = push ? ++id : id;
        record.begin_ns = record.end_ns = ++tick;
        record.process_id = 1;
        record.thread_id = 7000;
        record.mark_message = push ? kMessage : nullptr;
      }
    }
    auto writer = RankFileWriter::create(path, RankMetadata{}, Compression{}, error);
    rocprof::recorder::RecordSink sink(*writer, true);
    state.ResumeTiming();
    for (const auto& records : chunks)
      sink.consume(reinterpret_cast<const char*>(records.data()),
                   reinterpret_cast<const char*>(records.data() + records.size()));
    writer->close(RankFileStatus{});
    written += kChunks * kChunkRecords;
  }
  fs::remove(path);
  state.SetItemsProcessed(static_cast<std::int64_t>(written));
}
BENCHMARK(BM_WriterFromMarkerBuffers)->Unit(benchmark::kMillisecond);

// The same API stream as compound rows (one dataset, rows of the struct's 96 bytes) written
// the way another program would: shuffle + zstd through HDF5's own filter pipeline.
void BM_CompoundRowsApiCalls(benchmark::State& state) {
  register_zstd_filter();
  const std::string path = bench_path("compound");
  std::string error;
  std::uint64_t rows_written = 0;
  double bytes_per_record = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(path);
    auto names = RankFileWriter::create(bench_path("names"), RankMetadata{}, Compression{}, error);
    const std::vector<ApiCallRow> rows = api_stream(*names);
    names.reset();
    fs::remove(bench_path("names"));
    const hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(ApiCallRow));
    for (const Column& column : table_of<ApiCallRow>().columns)
      H5Tinsert(type, column.name, column.offset, column_hdf5_type(column.type));
    state.ResumeTiming();
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims = rows.size();
    const hsize_t chunk = kChunkRows;
    const hid_t space = H5Screate_simple(1, &dims, nullptr);
    const hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(properties, 1, &chunk);
    H5Pset_shuffle(properties);
    const unsigned level = 1;
    H5Pset_filter(properties, kZstdFilterId, H5Z_FLAG_MANDATORY, 1, &level);
    const hid_t dataset =
        H5Dcreate2(file, "api_calls", type, space, H5P_DEFAULT, properties, H5P_DEFAULT);
    H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data());
    H5Dclose(dataset);
    H5Pclose(properties);
    H5Sclose(space);
    H5Fclose(file);
    H5Tclose(type);
    rows_written += rows.size();
    bytes_per_record = static_cast<double>(fs::file_size(path)) / static_cast<double>(rows.size());
  }
  fs::remove(path);
  state.SetItemsProcessed(static_cast<std::int64_t>(rows_written));
  state.counters["bytes_per_record"] = bytes_per_record;
}
BENCHMARK(BM_CompoundRowsApiCalls)->Unit(benchmark::kMillisecond);

// What an application thread pays per recorded MPI call while the recorder's writer runs
// (needs the recorder preloaded; skipped otherwise). Drops, if any, are reported.
void BM_ProducerMpiCallRecord(benchmark::State& state) {
  static const auto record = reinterpret_cast<decltype(&rocprof_mpi_record_mpi_call)>(
      dlsym(RTLD_DEFAULT, "rocprof_mpi_record_mpi_call"));
  static const auto active = reinterpret_cast<decltype(&rocprof_mpi_recorder_active)>(
      dlsym(RTLD_DEFAULT, "rocprof_mpi_recorder_active"));
  if (record == nullptr || active == nullptr || active() == 0) {
    state.SkipWithError("run with LD_PRELOAD=build/lib/librocprof-mpi.so");
    return;
  }
  rocprof_mpi_mpi_call_t call{};
  call.peer = 1;
  call.tag = 5;
  std::uint64_t t = 0;
  for (auto _ : state) {
    call.begin_ns = ++t;
    call.end_ns = t + 10;
    benchmark::DoNotOptimize(record("MPI_Isend", &call));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProducerMpiCallRecord)->ThreadRange(1, 2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
