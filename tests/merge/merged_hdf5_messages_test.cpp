// The writing process of a parallel .h5 merge fed damaged messages, as if from another merge
// process (the share's receive is forged; no MPI): each is refused with a clear error, never
// read past its end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "merge/events/aligned_rank.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/export/merged_hdf5.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_share.hpp"
#include "tests/tools/synthetic_job.hpp"

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

// The message header, as the senders lay it out (merge/parallel/chunk_messages.cpp).
struct Header {
  std::uint32_t kind;  // 0 encoded chunk, 1 partial rows, 2 tables done, 3 done
  std::uint32_t table;
  std::uint64_t chunk;
  std::uint64_t first;
  std::uint64_t count;
};

class MergedHdf5Messages : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("merged_hdf5_messages_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    rocprof::test::SyntheticJob job;
    job.directory = (dir_ / "job").string();
    job.ranks = 2;
    job.events_per_rank = 200;
    rocprof::test::write_synthetic_job(job);
    set_ = std::make_unique<RankSet>(RankSet::open({job.directory}, {}));
    for (const auto& rank : set_->ranks()) ranks_.emplace_back(rank.rank, *rank.reader);
    for (const AlignedRank& rank : ranks_) pointers_.push_back(&rank);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the leader's side of a 2-process merge whose other process sends `forged`; returns
  // the error it stopped with.
  std::string error_for(const std::vector<std::byte>& forged) {
    MergeShare share;
    share.first_rank = 0;
    share.last_rank = 1;
    share.index = 0;
    share.processes = 2;
    share.gather = [](std::uint64_t mine) { return std::vector<std::uint64_t>{mine, 0}; };
    bool delivered = false;
    share.receive = [&](std::vector<std::byte>& message, bool) {
      if (delivered) return false;
      message = forged;
      delivered = true;
      return true;
    };
    try {
      export_merged_hdf5(pointers_, "job", (dir_ / "out.h5").string(), {}, &share);
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "";
  }

  static std::vector<std::byte> message(const Header& header,
                                        const std::vector<std::vector<std::byte>>& parts) {
    ByteWriter out;
    out.put(header);
    for (const auto& part : parts) out.put_bytes(part);
    return out.take();
  }

  fs::path dir_;
  std::unique_ptr<RankSet> set_;
  std::vector<AlignedRank> ranks_;
  std::vector<const AlignedRank*> pointers_;
};

TEST_F(MergedHdf5Messages, DamagedMessagesAreRefused) {
  // Shorter than a header.
  EXPECT_NE(error_for(std::vector<std::byte>(3)).find("damaged message"), std::string::npos);
  // A table that does not exist.
  EXPECT_NE(error_for(message({1, 99, 0, 0, 1}, {})).find("unknown table"), std::string::npos);
  // Partial rows whose bytes do not hold the rows the header counts.
  EXPECT_NE(
      error_for(message({1, 0, 0, 0, 2}, {std::vector<std::byte>(5)})).find("bad block of rows"),
      std::string::npos);
  // Partial rows past the end of their chunk.
  EXPECT_NE(error_for(message({1, 0, 0, 16380, 10}, {std::vector<std::byte>(10)}))
                .find("bad block of rows"),
            std::string::npos);
  // An encoded chunk whose columns stop short: the length of the next is cut off.
  auto cut = message({0, 0, 0, 0, 1}, {std::vector<std::byte>(4)});
  EXPECT_NE(error_for(cut).find("damaged message"), std::string::npos);
  // A column that claims more bytes than the message has.
  cut.resize(cut.size() - 2);
  EXPECT_NE(error_for(cut).find("damaged message"), std::string::npos);
}

}  // namespace
}  // namespace rocprof::merge
