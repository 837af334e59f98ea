// The zstd HDF5 filter (id 32015): exact round trip in-process, real compression on
// timestamp-like data, and files that stock h5dump (through HDF5_PLUGIN_PATH, our plugin)
// and h5py (Debian's hdf5plugin) read back.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/format/zstd_filter.hpp"

namespace {

namespace fs = std::filesystem;
using rocprof::format::kZstdFilterId;

std::vector<unsigned long long> timestamps(size_t count) {
  std::vector<unsigned long long> values(count);
  unsigned long long t = 1'700'000'000'000'000'000ULL;
  for (size_t i = 0; i < count; ++i) values[i] = t += 100 + (i * 7919) % 53;
  return values;
}

// Writes `values` as a chunked dataset "t" filtered with shuffle+zstd; returns stored bytes.
hsize_t write_file(const std::string& path, const std::vector<unsigned long long>& values) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t dims[1] = {values.size()};
  const hsize_t chunk[1] = {std::min<hsize_t>(16384, values.size())};  // fixed size: chunk <= dims
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(properties, 1, chunk);
  H5Pset_shuffle(properties);
  const unsigned level = 3;
  EXPECT_GE(H5Pset_filter(properties, kZstdFilterId, H5Z_FLAG_MANDATORY, 1, &level), 0);
  const hid_t dataset =
      H5Dcreate2(file, "t", H5T_NATIVE_ULLONG, space, H5P_DEFAULT, properties, H5P_DEFAULT);
  EXPECT_GE(H5Dwrite(dataset, H5T_NATIVE_ULLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  const hsize_t stored = H5Dget_storage_size(dataset);
  H5Dclose(dataset);
  H5Pclose(properties);
  H5Sclose(space);
  H5Fclose(file);
  return stored;
}

std::string run(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? output : "FAILED(" + output + ")";
}

class ZstdFilter : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(rocprof::format::register_zstd_filter());
    directory_ = fs::temp_directory_path() / ("zstd_filter_test." + std::to_string(getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  fs::path directory_;
};

TEST_F(ZstdFilter, RoundTripsExactlyAndCompresses) {
  const auto values = timestamps(200000);
  const std::string path = (directory_ / "t.h5").string();
  const hsize_t stored = write_file(path, values);
  const double ratio = double(values.size() * sizeof(values[0])) / double(stored);
  EXPECT_GT(ratio, 3.0) << "stored " << stored << " bytes";
  std::vector<unsigned long long> back(values.size());
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dataset = H5Dopen2(file, "t", H5P_DEFAULT);
  ASSERT_GE(H5Dread(dataset, H5T_NATIVE_ULLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()), 0);
  H5Dclose(dataset);
  H5Fclose(file);
  EXPECT_EQ(back, values);
}

TEST_F(ZstdFilter, RegistrationIsIdempotent) {
  EXPECT_TRUE(rocprof::format::register_zstd_filter());
  EXPECT_TRUE(rocprof::format::register_zstd_filter());
  EXPECT_GT(H5Zfilter_avail(kZstdFilterId), 0);
}

TEST_F(ZstdFilter, StockH5dumpReadsItThroughOurPlugin) {
  const auto values = timestamps(1000);
  const std::string path = (directory_ / "t.h5").string();
  write_file(path, values);
  const std::string out = run(
      "HDF5_PLUGIN_PATH=" ROCPROF_HDF5_PLUGIN_DIR " h5dump -d /t -s 998 -c 2 " + path + " 2>&1");
  EXPECT_NE(out.find(std::to_string(values[998])), std::string::npos) << out;
  EXPECT_NE(out.find(std::to_string(values[999])), std::string::npos) << out;
  const std::string header =
      run("HDF5_PLUGIN_PATH=" ROCPROF_HDF5_PLUGIN_DIR " h5dump -p -H " + path);
  EXPECT_NE(header.find("32015"), std::string::npos) << header;  // the filter is recorded
  // Without the plugin, h5dump cannot decode the data: the plugin is what made it work.
  const std::string without = run("HDF5_PLUGIN_PATH=/nonexistent h5dump -d /t " + path + " 2>&1");
  EXPECT_EQ(without.find(std::to_string(values[999])), std::string::npos);
}

TEST_F(ZstdFilter, H5pyReadsItThroughOurPlugin) {
  const auto values = timestamps(5000);
  const std::string path = (directory_ / "t.h5").string();
  write_file(path, values);
  // Debian's hdf5plugin ships no zstd filter and points HDF5 at its own plugin folder (where
  // a broken lzf plugin ends the search), so ours is put first in the search path.
  const std::string script =
      "import sys, h5py, hdf5plugin; h5py.h5pl.prepend(sys.argv[2].encode()); "
      "d = h5py.File(sys.argv[1])[\"t\"]; print(len(d), int(d[0]), int(d[-1]))";
  const std::string out =
      run("/usr/bin/python3 -c '" + script + "' " + path + " " ROCPROF_HDF5_PLUGIN_DIR " 2>&1");
  EXPECT_NE(out.find(std::to_string(values.size()) + " " + std::to_string(values.front()) + " " +
                     std::to_string(values.back())),
            std::string::npos)
      << out;
}

}  // namespace
