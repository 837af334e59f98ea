// BlockFile: what it writes is exactly what was filled in, whether the blocks went through the
// page cache or with direct I/O, and I/O errors reach the caller.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "merge/files/block_file.hpp"

namespace {

namespace fs = std::filesystem;
using rocprof::merge::BlockFile;

class BlockFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "block_file_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Whether this directory's file system takes direct I/O at all (tmpfs of old kernels and
  // some network file systems do not): asked of the kernel directly, not of BlockFile.
  bool takes_direct_io() const {
    const int fd = ::open(path("probe").c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0644);
    if (fd >= 0) ::close(fd);
    return fd >= 0;
  }

  // Fills `file` with `total` pseudo-random bytes in pieces of uneven sizes (some larger than
  // a block) and returns them.
  static std::vector<std::uint8_t> fill(BlockFile& file, std::size_t total) {
    std::vector<std::uint8_t> bytes(total);
    std::mt19937_64 random(42);
    std::generate(bytes.begin(), bytes.end(), [&] { return static_cast<std::uint8_t>(random()); });
    std::size_t done = 0;
    while (done < total) {
      std::size_t piece = random() % 9000 + 1;
      if (random() % 500 == 0) piece = (std::size_t{5} << 20) + 17;  // longer than a block
      piece = std::min(piece, total - done);
      std::uint8_t* out = file.reserve(piece);
      std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(done), piece, out);
      file.commit(out + piece);
      done += piece;
    }
    return bytes;
  }

  static std::vector<std::uint8_t> read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
};

TEST_F(BlockFileTest, DirectIoFromTheFirstBlockWritesEveryByteInPlace) {
  const std::string file = path("on.bin");
  BlockFile out(file, BlockFile::DirectIo::kOn);
  const auto bytes = fill(out, (std::size_t{21} << 20) + 4321);  // not a multiple of a page
  out.close();
  EXPECT_EQ(read(file), bytes);
  if (takes_direct_io())
    EXPECT_GT(out.direct_bytes(), std::uint64_t{12} << 20);  // all but the first block or so
  else
    EXPECT_EQ(out.direct_bytes(), 0U);
}

TEST_F(BlockFileTest, AutoUsesThePageCacheForSmallOutputsAndDirectIoPast64MiB) {
  const std::string small = path("small.bin");
  BlockFile small_out(small, BlockFile::DirectIo::kAuto);
  const auto small_bytes = fill(small_out, std::size_t{9} << 20);
  small_out.close();
  EXPECT_EQ(read(small), small_bytes);
  EXPECT_EQ(small_out.direct_bytes(), 0U);

  const std::string large = path("large.bin");
  BlockFile large_out(large, BlockFile::DirectIo::kAuto);
  const auto large_bytes = fill(large_out, (std::size_t{80} << 20) + 3);
  large_out.close();
  EXPECT_EQ(read(large), large_bytes);
  if (takes_direct_io()) {
    EXPECT_GT(large_out.direct_bytes(), 0U);
    EXPECT_LE(large_out.direct_bytes(), std::uint64_t{17} << 20);  // only what came past 64 MiB
  }
}

TEST_F(BlockFileTest, OffNeverUsesDirectIo) {
  const std::string file = path("off.bin");
  BlockFile out(file, BlockFile::DirectIo::kOff);
  const auto bytes = fill(out, std::size_t{70} << 20);
  out.close();
  EXPECT_EQ(read(file), bytes);
  EXPECT_EQ(out.direct_bytes(), 0U);
}

TEST_F(BlockFileTest, WriteErrorsReachTheCallerWithTheFileName) {
  // /dev/full refuses every write (ENOSPC); it takes no direct I/O either.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  BlockFile out("/dev/full", BlockFile::DirectIo::kOn);
  try {
    fill(out, std::size_t{20} << 20);  // a later block's flush reports the first's failure
    out.close();
    FAIL() << "writes to /dev/full went unnoticed";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("writing /dev/full failed: No space left"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(BlockFileTest, TheEnvironmentChoosesTheModeAndATypoIsAnError) {
  ::unsetenv("ROCPROF_MERGE_DIRECT_IO");
  EXPECT_EQ(BlockFile::direct_io_from_environment(), BlockFile::DirectIo::kAuto);
  ::setenv("ROCPROF_MERGE_DIRECT_IO", "off", 1);
  EXPECT_EQ(BlockFile::direct_io_from_environment(), BlockFile::DirectIo::kOff);
  ::setenv("ROCPROF_MERGE_DIRECT_IO", "on", 1);
  EXPECT_EQ(BlockFile::direct_io_from_environment(), BlockFile::DirectIo::kOn);
  ::setenv("ROCPROF_MERGE_DIRECT_IO", "yes", 1);
  try {
    BlockFile::direct_io_from_environment();
    FAIL() << "a value it does not know was taken";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("ROCPROF_MERGE_DIRECT_IO is 'yes'"),
              std::string::npos);
  }
  ::unsetenv("ROCPROF_MERGE_DIRECT_IO");
}

}  // namespace
