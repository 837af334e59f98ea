// The merged HDF5 file with its chunks compressed on several helpers at once, and the next
// ranks' rows made ready on helpers: every table holds what one thread writes, row for row
// (chunks go out in order whoever compressed them, ranks in order whoever read them), read
// back through HDF5.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/export/merged_hdf5.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/summary/summary.hpp"
#include "tests/tools/synthetic_job.hpp"
#include "tests/tools/test_dir.hpp"

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

// Every dataset of the file: its path and its elements' bytes (in the file's own types).
std::map<std::string, std::vector<std::byte>> read_datasets(const std::string& path) {
  std::map<std::string, std::vector<std::byte>> datasets;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(file, 0) << path;
  if (file < 0) return datasets;
  auto visit = [](hid_t object, const char* name, const H5O_info_t* info, void* data) -> herr_t {
    if (info->type != H5O_TYPE_DATASET) return 0;
    auto& found = *static_cast<std::map<std::string, std::vector<std::byte>>*>(data);
    const hid_t dataset = H5Dopen2(object, name, H5P_DEFAULT);
    const hid_t type = H5Dget_type(dataset);
    const hid_t space = H5Dget_space(dataset);
    const auto elements = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    std::vector<std::byte>& bytes = found[name];
    if (H5Tis_variable_str(type) > 0) {  // the strings themselves, not their pointers
      std::vector<char*> strings(elements);
      if (elements > 0) H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, strings.data());
      for (char* text : strings) {
        const std::string_view view = text == nullptr ? "" : text;
        for (const char c : view) bytes.push_back(static_cast<std::byte>(c));
        bytes.push_back(std::byte{0});
      }
      H5Dvlen_reclaim(type, space, H5P_DEFAULT, strings.data());
    } else {
      bytes.resize(elements * H5Tget_size(type));
      if (elements > 0) H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    }
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(dataset);
    return 0;
  };
  H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &datasets, H5O_INFO_BASIC);
  H5Fclose(file);
  return datasets;
}

TEST(MergedHdf5Encoders, ChunksCompressedAtOnceWriteTheSameTables) {
  const fs::path dir = rocprof::test::fresh_test_dir("merged_hdf5_encoders");
  rocprof::test::SyntheticJob job;
  job.directory = (dir / "job").string();
  job.ranks = 24;                // small ranks: one-chunk tables, staged on helpers
  job.events_per_rank = 20'000;  // several 64 Ki-row chunks per merged table, the last partial
  job.user_regions = true;
  rocprof::test::write_synthetic_job(job);
  const RankSet set = RankSet::open({job.directory}, {});
  std::vector<AlignedRank> ranks;
  for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
  std::vector<const AlignedRank*> pointers;
  pointers.reserve(ranks.size());
  for (const AlignedRank& rank : ranks) pointers.push_back(&rank);

  // 1 encoder and no stagers (the merge's thread reads every rank), against 4 encoders and 3
  // stagers (the next ranks' rows made ready on helpers).
  // The summary gathered meanwhile (on helpers, for staged ranks) is printed the same too.
  std::map<std::size_t, std::map<std::string, std::vector<std::byte>>> tables;
  std::map<std::size_t, std::string> summaries;
  for (const std::size_t encoders : {1, 4}) {
    const std::string out = (dir / ("merged" + std::to_string(encoders) + ".h5")).string();
    Summary summary;
    for (const AlignedRank& rank : ranks) summary.watch(rank);
    const std::uint64_t rows =
        export_merged_hdf5(pointers, set.job_id(), out, {}, nullptr, encoders, encoders - 1);
    for (const AlignedRank& rank : ranks) rank.watch({});
    summary.end_watch();
    std::FILE* text = std::tmpfile();
    summary.print(text);
    std::rewind(text);
    char buffer[4096];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, text)) > 0)
      summaries[encoders].append(buffer, got);
    std::fclose(text);
    EXPECT_GT(rows, 4U * 65536U) << "too few rows for several chunks";
    tables[encoders] = read_datasets(out);
  }
  ASSERT_GT(tables[1].size(), 4U);
  std::size_t large = 0;
  for (const auto& [name, bytes] : tables[1]) {
    ASSERT_TRUE(tables[4].contains(name)) << name;
    EXPECT_TRUE(tables[4].at(name) == bytes) << name << " differs";
    if (bytes.size() > std::size_t{3} * 65536 * 4) ++large;  // 4-byte columns or wider
  }
  EXPECT_GT(large, 0U) << "no table spans several chunks";
  EXPECT_EQ(tables[4].size(), tables[1].size());
  EXPECT_NE(summaries[1].find("MPI_"), std::string::npos) << summaries[1];
  EXPECT_EQ(summaries[4], summaries[1]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocprof::merge
