// What a SIGKILL in the middle of a flush leaves. A killed process's writes all reach the
// file (the kernel keeps them), those it had not made yet never do: the file after a kill
// is the file before the flush with a prefix of the flush's writes applied, the last one
// possibly cut at a page boundary. This test records every write and truncation the writer
// makes during each flush (pwrite and ftruncate, interposed here: HDF5's sec2 driver uses
// them), rebuilds the file at every such prefix, and checks what each reads as, with our
// reader and with stock HDF5.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lib/format/hdf5_util.hpp"
#include "lib/format/rank_file_reader.hpp"
#include "lib/format/rank_file_writer.hpp"
#include "lib/format/zstd_filter.hpp"
#include "tests/format/rank_file_sample.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

struct FileChange {
  off_t offset = 0;         // a write's place, or a truncation's new length
  std::vector<char> bytes;  // a write's bytes
  bool truncation = false;
};

// The changes made while set; the tests run on one thread.
std::vector<FileChange>* g_changes = nullptr;
int g_file = -1;  // the descriptor whose changes are recorded

}  // namespace

// Interposed for libhdf5: exported (the build hides symbols by default), the executable's
// definitions come first in symbol lookup.
extern "C" __attribute__((visibility("default"))) ssize_t pwrite(int fd, const void* buffer,
                                                                 std::size_t count, off_t offset) {
  using Real = ssize_t (*)(int, const void*, std::size_t, off_t);
  static const auto real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "pwrite"));
  const ssize_t written = real(fd, buffer, count, offset);
  if (g_changes != nullptr && fd == g_file && written > 0) {
    const auto* bytes = static_cast<const char*>(buffer);
    g_changes->push_back({offset, std::vector<char>(bytes, bytes + written), false});
  }
  return written;
}

extern "C" __attribute__((visibility("default"))) int ftruncate(int fd, off_t length) {
  using Real = int (*)(int, off_t);
  static const auto real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "ftruncate"));
  const int result = real(fd, length);
  if (g_changes != nullptr && fd == g_file && result == 0) g_changes->push_back({length, {}, true});
  return result;
}

namespace {

namespace fs = std::filesystem;
using namespace rocprof::format;

constexpr std::size_t kPage = 4096;

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Where a kill may cut `change` short: at its first page boundary, one in its middle and its
// last (a write's pages reach the file one after the other).
std::vector<std::size_t> tear_points(const FileChange& change) {
  std::vector<std::size_t> cuts;
  if (change.truncation) return cuts;
  const auto offset = static_cast<std::size_t>(change.offset);
  const std::size_t end = offset + change.bytes.size();
  const std::size_t first = (offset / kPage + 1) * kPage;
  if (first >= end) return cuts;
  const std::size_t last = (end - 1) / kPage * kPage;
  const std::size_t middle = (first + last) / 2 / kPage * kPage;
  for (const std::size_t cut : {first, middle, last})
    if (cut > offset && cut < end && (cuts.empty() || cut > cuts.back()))
      cuts.push_back(cut - offset);
  return cuts;
}

void write_at(const std::string& path, const FileChange& change, std::size_t length) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << path;
  if (change.truncation)
    EXPECT_EQ(::ftruncate(fd, change.offset), 0);
  else
    EXPECT_EQ(::pwrite(fd, change.bytes.data(), length, change.offset),
              static_cast<ssize_t>(length));
  ::close(fd);
}

// Makes the file at `path` (the file before `changes`) each state a kill may leave: as it
// is, after each change, and before that with the change cut short at its tear points.
// `check()` looks at each.
template <typename Check>
void replay(const std::string& path, const std::vector<FileChange>& changes, Check&& check) {
  check();
  for (const FileChange& change : changes) {
    for (const std::size_t cut : tear_points(change)) {
      write_at(path, change, cut);
      check();
    }
    write_at(path, change, change.bytes.size());
    check();
  }
}

class KillInFlush : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { dir_ = rocprof::test::fresh_test_dir("kill_in_flush_test"); }
  void TearDown() override {
    g_changes = nullptr;
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// What a state reads as.
struct Outcome {
  enum Kind { kOlder, kNewer, kRefused, kWrong } kind = kWrong;
  bool stock_reads = true;  // stock HDF5 reads its markers too
  std::string detail;
};

// With our reader: exactly the `older` or the `newer` first rows of `appended` (and their
// texts), or refused with a FormatError, which names the file; anything else is wrong. The
// file must open in stock HDF5 whatever the state; whether stock HDF5 reads the markers
// the reader found is noted.
Outcome check_state(const std::string& file, const std::vector<MarkerRow>& appended,
                    const std::vector<std::string>& texts, std::size_t older, std::size_t newer) {
  Outcome outcome;
  std::size_t rows_held = 0;
  try {
    const RankFileReader reader(file);
    const std::vector<MarkerRow> rows = reader.read_all<MarkerRow>();
    rows_held = rows.size();
    if (rows.size() != older && rows.size() != newer) {
      outcome.detail = fmt::format("{} markers, neither {} nor {}", rows.size(), older, newer);
      return outcome;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].timestamp_ns != appended[i].timestamp_ns || rows[i].id != appended[i].id ||
          reader.string(rows[i].message) != texts[appended[i].message]) {
        outcome.detail = fmt::format("marker {} differs", i);
        return outcome;
      }
    }
    outcome.kind = rows.size() == older ? Outcome::kOlder : Outcome::kNewer;
  } catch (const FormatError& error) {
    outcome.kind = Outcome::kRefused;
    outcome.detail = error.what();
  }
  const hid_t h = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (h < 0) {
    outcome.kind = Outcome::kWrong;
    outcome.detail = "stock HDF5 cannot open it";
    return outcome;
  }
  if (rows_held > 0) {
    const hid_t dataset = H5Dopen2(h, "markers", H5P_DEFAULT);
    const hid_t type = H5Dget_type(dataset);
    std::vector<std::byte> packed(rows_held * H5Tget_size(type));
    outcome.stock_reads = H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()) >= 0;
    if (!outcome.stock_reads) outcome.detail += " / stock HDF5: " + hdf5_error_text();
    H5Tclose(type);
    H5Dclose(dataset);
  }
  H5Fclose(h);
  return outcome;
}

// check_state in a child process, stopped after `limit`: HDF5 loops for ever on some
// damaged files (the merge's check helpers stop such a file's check the same way, and name
// it). A state whose check does not finish counts as refused.
Outcome check_state_apart(const std::string& file, const std::vector<MarkerRow>& appended,
                          const std::vector<std::string>& texts, std::size_t older,
                          std::size_t newer, int limit_ms) {
  int ends[2] = {-1, -1};
  if (::pipe(ends) != 0) return {Outcome::kWrong, true, "pipe"};
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ends[0]);
    const Outcome outcome = check_state(file, appended, texts, older, newer);
    const std::string message = fmt::format("{} {} {}", static_cast<int>(outcome.kind),
                                            outcome.stock_reads ? 1 : 0, outcome.detail);
    (void)::write(ends[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(ends[1]);
  pollfd wait_for{ends[0], POLLIN, 0};
  std::string message;
  while (::poll(&wait_for, 1, limit_ms) > 0) {
    char buffer[4096];
    const ssize_t got = ::read(ends[0], buffer, sizeof buffer);
    if (got <= 0) break;
    message.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(ends[0]);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  Outcome outcome;
  int kind = Outcome::kWrong;
  int stock = 1;
  int used = 0;
  if (std::sscanf(message.c_str(), "%d %d %n", &kind, &stock, &used) < 2)
    return {Outcome::kRefused, false, "its check did not finish (HDF5 looping)"};
  outcome.kind = static_cast<Outcome::Kind>(kind);
  outcome.stock_reads = stock != 0;
  outcome.detail = message.substr(static_cast<std::size_t>(used));
  return outcome;
}

// Not promised: HDF5 updates its metadata in place, one write after another, and a state
// between two of them may not read. What is: a killed file never reads as rows of neither
// flush (a FormatError names it instead, and `rocprof-merge --skip-bad` leaves it out), it
// always opens in stock HDF5, and the states before and after the flush's writes read
// exactly. The counts are printed (docs/RECORDER.md gives them).
TEST_P(KillInFlush, NeverReadsAsRowsOfNeitherFlush) {
  Compression compression;
  std::string error;
  ASSERT_TRUE(Compression::parse(GetParam(), compression, error)) << error;
  ASSERT_TRUE(register_zstd_filter());
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // states HDF5 refuses are counted below
  const std::string file = path("live.h5");
  const std::string state_file = path("killed.h5");
  auto writer = RankFileWriter::create(file, rocprof::test::sample_metadata(), compression, error);
  ASSERT_NE(writer, nullptr) << error;
  g_file = writer->file_descriptor();
  std::mt19937_64 random(20261127);
  std::vector<MarkerRow> appended;
  std::vector<std::string> texts{""};  // by string id
  std::size_t flushed = 0;
  std::size_t counts[4] = {};
  std::size_t stock_refused = 0;
  for (int flush = 0; flush < 12; ++flush) {
    // A few rows (a tail rewritten), or enough to fill chunks; now and then a new text.
    const std::size_t count = random() % 3 == 0 ? random() % (2 * kChunkRows) : 1 + random() % 300;
    for (std::size_t i = 0; i < count; ++i) {
      MarkerRow row{};
      row.timestamp_ns = 1000 + appended.size() * 7 + random() % 5;
      row.id = appended.size();
      row.thread_id = 77;
      row.op = MarkerOp::kMark;
      if (random() % 400 == 0) {
        const std::string text = fmt::format("message {}", texts.size());
        row.message = writer->intern(text);
        if (row.message == texts.size()) texts.push_back(text);
      }
      appended.push_back(row);
    }
    ASSERT_TRUE(writer->append(std::span<const MarkerRow>(appended.end() - count, appended.end())));
    if (flush % 5 == 3) {  // other tables begin and grow between flushes
      MpiCallRow call{};
      call.begin_ns = flush;
      ASSERT_TRUE(writer->append(call));
    }
    const std::vector<char> before = read_bytes(file);
    std::vector<FileChange> changes;
    g_changes = &changes;
    const bool ok = writer->flush(RankFileStatus{});
    g_changes = nullptr;
    ASSERT_TRUE(ok) << writer->error();
    ASSERT_FALSE(changes.empty()) << "no write recorded: pwrite is not interposed";
    write_bytes(state_file, before);
    std::size_t state = 0;
    Outcome last;
    replay(state_file, changes, [&] {
      last = check_state_apart(state_file, appended, texts, flushed, appended.size(), 5000);
      EXPECT_NE(last.kind, Outcome::kWrong)
          << "flush " << flush << ", state " << state << ": " << last.detail;
      if (state == 0) {
        EXPECT_EQ(last.kind, Outcome::kOlder) << last.detail;
      }
      // The writer records the new end of allocation before HDF5's flush: no state points
      // past the end its superblock records.
      EXPECT_EQ(last.detail.find("addr overflow"), std::string::npos)
          << "flush " << flush << ", state " << state << ": " << last.detail;
      ++counts[last.kind];
      if (!last.stock_reads) ++stock_refused;
      ++state;
    });
    EXPECT_EQ(last.kind, Outcome::kNewer) << "after flush " << flush << ": " << last.detail;
    EXPECT_TRUE(last.stock_reads) << "after flush " << flush;
    if (HasFailure()) return;
    flushed = appended.size();
  }
  ASSERT_TRUE(writer->close(RankFileStatus{}));
  const std::size_t states = counts[0] + counts[1] + counts[2];
  EXPECT_GT(states, 12U * 3);
  std::printf(
      "%zu states a kill in a flush may leave: %zu as the flush before, %zu as the flush, "
      "%zu refused by our reader (named), %zu whose markers stock HDF5 cannot read\n",
      states, counts[Outcome::kOlder], counts[Outcome::kNewer], counts[Outcome::kRefused],
      stock_refused);
}

INSTANTIATE_TEST_SUITE_P(Codecs, KillInFlush, ::testing::Values("zstd", "none"));

}  // namespace
