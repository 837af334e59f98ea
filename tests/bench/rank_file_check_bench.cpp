// What checking a rank file costs (the RankFileReader constructor: open, validate every table,
// locate small tables' chunks, read the strings and clock samples, then close), for the same
// synthetic ranks in format 2 and rewritten in format 1. A merge checks every rank's file
// before it starts, so with many small ranks this is much of its time.
//   rank_file_check_bench [--benchmark_repetitions=5 ...]
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lib/format/rank_file_reader.hpp"
#include "tests/format/rank_file_sample.hpp"
#include "tests/tools/synthetic_job.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rocprof;

constexpr int kRanks = 64;

// The job once per process: 64 ranks of 10 k events in format 2, and a copy in format 1.
struct Jobs {
  fs::path root;
  std::vector<std::string> format2;
  std::vector<std::string> format1;
  Jobs() {
    root = fs::temp_directory_path() / ("rank_file_check_bench_" + std::to_string(getpid()));
    test::SyntheticJob job;
    job.ranks = kRanks;
    job.events_per_rank = 10000;
    job.directory = (root / "v2").string();
    test::write_synthetic_job(job);
    fs::copy(root / "v2", root / "v1");
    for (int rank = 0; rank < kRanks; ++rank) {
      const std::string name = std::to_string(rank) + ".h5";
      format2.push_back((root / "v2" / name).string());
      format1.push_back((root / "v1" / name).string());
      test::rewrite_as_column_groups(format1.back(), format::Compression{});
    }
  }
  ~Jobs() { fs::remove_all(root); }
  Jobs(const Jobs&) = delete;
  Jobs& operator=(const Jobs&) = delete;
};

const Jobs& jobs() {
  static const Jobs instance;
  return instance;
}

void check_files(benchmark::State& state, const std::vector<std::string>& files) {
  std::size_t next = 0;
  for (auto _ : state) {
    const format::RankFileReader reader(files[next]);
    benchmark::DoNotOptimize(reader.row_count<format::MpiCallRow>());
    next = (next + 1) % files.size();
  }
  state.SetItemsProcessed(state.iterations());  // files checked
}

void BM_CheckFormat2(benchmark::State& state) { check_files(state, jobs().format2); }
void BM_CheckFormat1(benchmark::State& state) { check_files(state, jobs().format1); }

BENCHMARK(BM_CheckFormat2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CheckFormat1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
