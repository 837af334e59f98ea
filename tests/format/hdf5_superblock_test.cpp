// The end of allocated space a superblock records, read and raised as the writer does before
// HDF5's flush: checked against files HDF5 itself wrote and then reads.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "lib/format/hdf5_superblock.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using rocprof::format::hdf5_metadata_checksum;
using rocprof::format::kSuperblockBytes;
using rocprof::format::raise_superblock_end;
using rocprof::format::read_superblock_end;
using Block = std::array<std::byte, kSuperblockBytes>;

std::span<const std::byte> bytes_of(std::string_view text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

// A file as the rank-file writer makes them: 1.8 object formats, no free-space reuse
// (superblock version 2), with one dataset.
std::string make_file(const fs::path& dir, const char* name) {
  std::string path = (dir / name).string();
  const hid_t create = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_file_space_strategy(create, H5F_FSPACE_STRATEGY_NONE, false, 1);
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_libver_bounds(access, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, create, access);
  const hsize_t size = 1000;
  const hid_t space = H5Screate_simple(1, &size, nullptr);
  const hid_t set =
      H5Dcreate2(file, "numbers", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dclose(set);
  H5Sclose(space);
  H5Fclose(file);
  H5Pclose(access);
  H5Pclose(create);
  return path;
}

Block read_block(const std::string& path) {
  Block block{};
  const int fd = ::open(path.c_str(), O_RDONLY);
  EXPECT_EQ(::pread(fd, block.data(), block.size(), 0), static_cast<ssize_t>(block.size()));
  ::close(fd);
  return block;
}

bool opens_in_hdf5(const std::string& path) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return false;
  H5Fclose(file);
  return true;
}

class Hdf5Superblock : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = rocprof::test::fresh_test_dir("hdf5_superblock_test");
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// lookup3's published values (the hash HDF5 checksums its metadata with).
TEST_F(Hdf5Superblock, ChecksumIsLookup3) {
  EXPECT_EQ(hdf5_metadata_checksum({}), 0xdeadbeefU);
  EXPECT_EQ(hdf5_metadata_checksum({}, 0xdeadbeefU), 0xbd5b7ddeU);
  EXPECT_EQ(hdf5_metadata_checksum(bytes_of("Four score and seven years ago")), 0x17770551U);
  EXPECT_EQ(hdf5_metadata_checksum(bytes_of("Four score and seven years ago"), 1), 0xcd628161U);
}

TEST_F(Hdf5Superblock, ReadsTheEndHdf5Recorded) {
  const std::string path = make_file(dir_, "plain.h5");
  std::uint64_t end = 0;
  ASSERT_TRUE(read_superblock_end(read_block(path), end));
  EXPECT_EQ(end, fs::file_size(path));  // a closed file ends where its allocated space does
}

TEST_F(Hdf5Superblock, RaisedEndStillOpensInHdf5) {
  const std::string path = make_file(dir_, "raised.h5");
  const std::uint64_t size = fs::file_size(path);
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_TRUE(raise_superblock_end(fd, size + 10000));
  ::close(fd);
  std::uint64_t end = 0;
  ASSERT_TRUE(read_superblock_end(read_block(path), end));
  EXPECT_EQ(end, size + 10000);
  EXPECT_EQ(fs::file_size(path), size + 10000);  // HDF5 refuses a file shorter than its end
  EXPECT_TRUE(opens_in_hdf5(path));
}

TEST_F(Hdf5Superblock, NeverLowersTheEnd) {
  const std::string path = make_file(dir_, "lower.h5");
  const Block before = read_block(path);
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_TRUE(raise_superblock_end(fd, 100));
  ::close(fd);
  EXPECT_EQ(read_block(path), before);
  EXPECT_TRUE(opens_in_hdf5(path));
}

// A write that fails (here: a descriptor open for reading only) is reported, with errno.
TEST_F(Hdf5Superblock, AFailedWriteIsReported) {
  const std::string path = make_file(dir_, "read_only.h5");
  const Block before = read_block(path);
  const int fd = ::open(path.c_str(), O_RDONLY);
  errno = 0;
  EXPECT_FALSE(raise_superblock_end(fd, fs::file_size(path) + 4096));
  EXPECT_NE(errno, 0);  // ftruncate refuses a descriptor not open for writing
  ::close(fd);
  EXPECT_EQ(read_block(path), before);
  EXPECT_TRUE(opens_in_hdf5(path));
}

// A block that is not such a superblock (damaged, or another format) is left alone.
TEST_F(Hdf5Superblock, LeavesWhatItDoesNotRecogniseAlone) {
  const std::string path = make_file(dir_, "damaged.h5");
  Block block = read_block(path);
  block[30] ^= std::byte{0x40};  // inside the recorded end: the checksum no longer matches
  std::uint64_t end = 0;
  EXPECT_FALSE(read_superblock_end(block, end));
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_EQ(::pwrite(fd, block.data(), block.size(), 0), static_cast<ssize_t>(block.size()));
  ASSERT_TRUE(raise_superblock_end(fd, fs::file_size(path) + 4096));
  ::close(fd);
  EXPECT_EQ(read_block(path), block);

  const std::string text = (dir_ / "text.txt").string();
  fd = ::open(text.c_str(), O_RDWR | O_CREAT, 0644);
  const std::string words(100, 'x');
  ASSERT_EQ(::write(fd, words.data(), words.size()), 100);
  ASSERT_TRUE(raise_superblock_end(fd, 1 << 20));
  ::close(fd);
  EXPECT_EQ(fs::file_size(text), 100U);
}

}  // namespace
