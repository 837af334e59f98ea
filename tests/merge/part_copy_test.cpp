// copy_pieces: parts copied into an output of full size land byte for byte where they were
// sent, by either method, on any number of threads, across mapping windows and pieces that
// start and end off page boundaries; a missing or short part, and a full file system, are named.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
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

#include "merge/files/part_copy.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using rocprof::merge::copy_pieces;
using rocprof::merge::CopyPiece;
using rocprof::merge::PartCopyOptions;
using Method = PartCopyOptions::Method;

class PartCopyTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = rocprof::test::fresh_test_dir("part_copy"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::vector<char> random_bytes(std::size_t size, std::uint64_t seed) {
    std::vector<char> bytes(size);
    std::mt19937_64 random(seed);
    std::generate(bytes.begin(), bytes.end(), [&] { return static_cast<char>(random()); });
    return bytes;
  }
  static void write_file(const std::string& name, const std::vector<char>& bytes) {
    std::ofstream(name, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
  }
  static std::vector<char> read_file(const std::string& name) {
    std::ifstream in(name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
};

// Three parts after a head the output already holds (as a parallel merge's first part), of
// sizes that are not multiples of a page, one of them empty, copied from an offset inside
// the first (a process's share starts anywhere).
TEST_F(PartCopyTest, EveryMethodAndThreadCountWritesTheSameBytes) {
  const std::vector<std::size_t> sizes = {(std::size_t{3} << 20) + 4097, 0,
                                          (std::size_t{1} << 20) + 123, 77};
  const std::size_t head = 12345;
  const std::size_t skip = 999;  // of the first part: another process's share
  std::vector<std::vector<char>> parts;
  std::vector<CopyPiece> pieces;
  std::size_t at = head;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    parts.push_back(random_bytes(sizes[i], i + 1));
    const std::string name = path("out.part" + std::to_string(i + 1));
    write_file(name, parts.back());
    const std::size_t from = i == 0 ? skip : 0;
    pieces.push_back({name, from, at + from, sizes[i] - from});
    at += sizes[i];
  }
  std::vector<char> expected = random_bytes(head, 99);
  for (const auto& part : parts) expected.insert(expected.end(), part.begin(), part.end());
  std::fill_n(expected.begin() + static_cast<std::ptrdiff_t>(head), skip, '\0');

  for (const Method method : {Method::kKernel, Method::kMapped, Method::kAuto})
    for (const std::size_t threads : {1, 3, 8})
      for (const std::size_t window : {std::size_t{4096}, std::size_t{16} << 20}) {
        SCOPED_TRACE(::testing::Message() << "method " << static_cast<int>(method) << ", "
                                          << threads << " threads, window " << window);
        const std::string output = path("out");
        std::vector<char> start(expected.begin(), expected.begin() + head);
        write_file(output, start);
        fs::resize_file(output, expected.size());  // as the first process does before copying
        PartCopyOptions options;
        options.method = method;
        options.threads = threads;
        options.window_bytes = window;
        EXPECT_EQ(copy_pieces(output, pieces, options), "");
        EXPECT_TRUE(read_file(output) == expected);
      }
}

// The shares of the processes (and of each one's threads): together every byte once, in
// order, each share within one byte of the others.
TEST(EqualShare, CutsThePiecesBytesIntoEqualRunsInOrder) {
  const std::vector<CopyPiece> pieces = {{"a", 5, 100, 10}, {"b", 0, 110, 0}, {"c", 7, 110, 23}};
  for (const std::size_t count : {1U, 2U, 3U, 7U, 40U}) {
    SCOPED_TRACE(count);
    std::vector<std::pair<std::string, std::uint64_t>> bytes;  // (file, offset) in output order
    std::uint64_t smallest = ~std::uint64_t{0};
    std::uint64_t largest = 0;
    for (std::size_t index = 0; index < count; ++index) {
      std::uint64_t size = 0;
      for (const CopyPiece& piece : rocprof::merge::equal_share(pieces, index, count)) {
        EXPECT_GT(piece.size, 0U);
        for (std::uint64_t i = 0; i < piece.size; ++i) {
          bytes.emplace_back(piece.from, piece.read_at + i);
          // Where the byte goes keeps its distance from where its piece goes.
          const auto& whole = piece.from == "a" ? pieces[0] : pieces[2];
          EXPECT_EQ(piece.write_at - whole.write_at, piece.read_at - whole.read_at);
        }
        size += piece.size;
      }
      smallest = std::min(smallest, size);
      largest = std::max(largest, size);
    }
    std::vector<std::pair<std::string, std::uint64_t>> expected;
    for (std::uint64_t i = 0; i < 10; ++i) expected.emplace_back("a", 5 + i);
    for (std::uint64_t i = 0; i < 23; ++i) expected.emplace_back("c", 7 + i);
    EXPECT_EQ(bytes, expected);
    EXPECT_LE(largest - smallest, 1U);
  }
}

TEST_F(PartCopyTest, NothingToCopyTouchesNothing) {
  EXPECT_EQ(copy_pieces(path("absent"), {}, {}), "");
  EXPECT_FALSE(fs::exists(path("absent")));
}

TEST_F(PartCopyTest, AMissingPartIsNamed) {
  const std::string output = path("out");
  write_file(output, std::vector<char>(100));
  const std::vector<CopyPiece> pieces = {{path("out.part1"), 0, 10, 50}};
  for (const Method method : {Method::kKernel, Method::kMapped}) {
    PartCopyOptions options;
    options.method = method;
    const std::string problem = copy_pieces(output, pieces, options);
    EXPECT_NE(problem.find(path("out.part1")), std::string::npos) << problem;
    EXPECT_NE(problem.find("No such file"), std::string::npos) << problem;
  }
}

// A part shorter than its piece says (removed or cut short by someone else meanwhile) is an
// error, not silently zeros in the output.
TEST_F(PartCopyTest, APartShorterThanSaidIsNamed) {
  const std::string output = path("out");
  write_file(output, std::vector<char>(1 << 20));
  write_file(path("out.part1"), random_bytes(5000, 7));
  const std::vector<CopyPiece> pieces = {{path("out.part1"), 0, 100, 9000}};
  for (const Method method : {Method::kKernel, Method::kMapped})
    for (const std::size_t threads : {1, 4}) {
      PartCopyOptions options;
      options.method = method;
      options.threads = threads;
      const std::string problem = copy_pieces(output, pieces, options);
      EXPECT_NE(problem.find(path("out.part1")), std::string::npos) << problem;
      EXPECT_NE(problem.find("ends before byte"), std::string::npos) << problem;
    }
}

TEST_F(PartCopyTest, AnOutputThatCannotBeOpenedIsNamed) {
  write_file(path("out.part1"), random_bytes(10, 3));
  const std::vector<CopyPiece> pieces = {{path("out.part1"), 0, 0, 10}};
  const std::string output = path("no/such/dir/out");
  const std::string problem = copy_pieces(output, pieces, {});
  EXPECT_NE(problem.find("cannot write " + output), std::string::npos) << problem;
}

// A full file system, as a small tmpfs mounted in a mount namespace of a child process's own
// (root only: skipped elsewhere). The output is sized in full (sparse) as join_parts does, so
// the bytes fail to land only when they are copied: a mapped copy learns it as EFAULT from
// the read into the mapping, a kernel copy as ENOSPC. Either way the output is named.
TEST_F(PartCopyTest, AFullFileSystemIsNamedByEitherMethod) {
  const std::string part = path("out.part1");
  constexpr std::size_t kPart = std::size_t{2} << 20;
  write_file(part, random_bytes(kPart, 5));
  const fs::path small = dir_ / "small";
  fs::create_directories(small);
  const std::string output = (small / "out").string();
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_ends[0]);
    // 77: the mount could not be made here (not root, or no namespaces): skipped.
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=256k") != 0)
      ::_exit(77);
    std::string said;
    for (const Method method : {Method::kMapped, Method::kKernel}) {
      const int out = ::open(output.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || ::ftruncate(out, static_cast<off_t>(kPart + 100)) != 0) ::_exit(1);
      ::close(out);
      PartCopyOptions options;
      options.method = method;
      options.threads = 2;
      said += copy_pieces(output, std::vector<CopyPiece>{{part, 0, 100, kPart}}, options) + "\n";
    }
    const bool sent =
        ::write(pipe_ends[1], said.data(), said.size()) == static_cast<ssize_t>(said.size());
    ::_exit(sent ? 0 : 1);
  }
  ::close(pipe_ends[1]);
  std::string said;
  char buffer[4096];
  for (ssize_t got = 0; (got = ::read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
    said.append(buffer, static_cast<std::size_t>(got));
  ::close(pipe_ends[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot mount a small tmpfs here";
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::size_t line_end = said.find('\n');
  ASSERT_NE(line_end, std::string::npos) << said;
  const std::string mapped = said.substr(0, line_end);
  const std::string kernel = said.substr(line_end + 1);
  EXPECT_EQ(mapped, "cannot write " + output + ": the file system could not store it (full?)");
  EXPECT_NE(kernel.find(output), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("No space left on device"), std::string::npos) << kernel;
}

TEST_F(PartCopyTest, TellsFileSystemsWhoseWritersTakeTurns) {
  EXPECT_FALSE(rocprof::merge::writers_take_turns("/proc/self"));
  EXPECT_FALSE(rocprof::merge::writers_take_turns(path("absent/file")));
  if (fs::exists("/dev/shm")) {
    EXPECT_TRUE(rocprof::merge::writers_take_turns("/dev/shm"));
  }
}

}  // namespace
