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

  // Writes `total` bytes to a new file `name` in `mode`, checks that the file holds exactly
  // them, and returns how many went with direct I/O.
  std::uint64_t write_and_check(const std::string& name, BlockFile::DirectIo mode,
                                std::size_t total) const {
    const std::string file = path(name);
    BlockFile out(file, mode);
    const auto bytes = fill(out, total);
    out.close();
    EXPECT_EQ(read(file), bytes) << name;
    return out.direct_bytes();
  }

  fs::path dir_;
};

TEST_F(BlockFileTest, DirectIoFromTheFirstBlockWritesEveryByteInPlace) {
  // Not a multiple of a page: the tail goes through the page cache.
  const std::uint64_t direct =
      write_and_check("on.bin", BlockFile::DirectIo::kOn, (std::size_t{21} << 20) + 4321);
  if (takes_direct_io())
    EXPECT_GT(direct, std::uint64_t{12} << 20);  // all but the first block or so
  else
    EXPECT_EQ(direct, 0U);
}

TEST_F(BlockFileTest, AutoUsesThePageCacheForSmallOutputsAndDirectIoPast64MiB) {
  EXPECT_EQ(write_and_check("small.bin", BlockFile::DirectIo::kAuto, std::size_t{9} << 20), 0U);
  const std::uint64_t direct =
      write_and_check("large.bin", BlockFile::DirectIo::kAuto, (std::size_t{80} << 20) + 3);
  if (takes_direct_io()) {
    EXPECT_GT(direct, 0U);
    EXPECT_LE(direct, std::uint64_t{17} << 20);  // only what came past 64 MiB
  }
}

TEST_F(BlockFileTest, OffNeverUsesDirectIo) {
  EXPECT_EQ(write_and_check("off.bin", BlockFile::DirectIo::kOff, std::size_t{70} << 20), 0U);
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

// The environment is changed on the test's one thread.
// NOLINTBEGIN(concurrency-mt-unsafe)
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
// NOLINTEND(concurrency-mt-unsafe)

}  // namespace
