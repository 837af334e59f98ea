// A rank's time for the report: span, MPI time, GPU busy time (overlaps once) and the MPI
// time per bin as the run outgrows the bins.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "merge/summary/rank_time.hpp"

namespace rocprof::merge {
namespace {

TEST(RankTime, SpanMpiAndGpuBusyTime) {
  RankTime time(3);
  time.record(500, 900);
  time.mpi_call(1, 1'000, 3'000);
  time.mpi_call(1, 10'000, 11'000);
  time.gpu_work(2'000, 6'000);
  time.gpu_work(5'000, 8'000);    // overlaps the first: counted once
  time.gpu_work(20'000, 21'000);  // apart
  time.finish();
  EXPECT_EQ(time.rank(), 3);
  EXPECT_EQ(time.first_ns(), 500U);
  EXPECT_EQ(time.last_ns(), 21'000U);
  EXPECT_EQ(time.wall_ns(), 20'500);
  EXPECT_EQ(time.mpi_ns(), 3'000);
  EXPECT_EQ(time.gpu_busy_ns(), 6'000 + 1'000);
}

TEST(RankTime, ACallNestedInAnotherOfItsThreadCountsOnce) {
  RankTime time(0);
  // The tool's clock synchronisation inside MPI_Finalize: its row comes first (rows are
  // written as calls end), then MPI_Finalize's around it.
  time.mpi_call(1, 1'000, 2'000);
  time.mpi_call(1, 5'000, 6'000);
  time.mpi_call(1, 4'000, 9'000);
  // Another thread's call at the same time counts (the rank's threads each spent it in MPI).
  time.mpi_call(2, 4'500, 5'500);
  // A call overlapping the end of the last one of its thread: only the part after it.
  time.mpi_call(1, 8'000, 10'000);
  // One that came late (it ended before the last began): counted whole, kept in order.
  time.mpi_call(1, 3'000, 3'500);
  time.mpi_call(1, 2'500, 3'600);  // around that one: only what it adds
  time.finish();
  EXPECT_EQ(time.mpi_ns(), 1'000 + 5'000 + 1'000 + 1'000 + 500 + 600);
  EXPECT_DOUBLE_EQ(time.mpi_ns_between(0, ~std::uint64_t{0}), time.mpi_ns());
  EXPECT_DOUBLE_EQ(time.mpi_ns_between(0, RankTime::kFirstBinNs), time.mpi_ns());  // one bin
}

TEST(RankTime, BinsWidenAsTheRunGrowsAndKeepTheMpiTime) {
  RankTime time(0);
  const std::uint64_t start = 70 * RankTime::kFirstBinNs + 123;
  // A call of 10 us every 1 ms for 1 s: 10 ms of MPI over 10,000 first-size bins.
  for (std::uint64_t i = 0; i < 1000; ++i)
    time.mpi_call(1, start + i * 1'000'000, start + i * 1'000'000 + 10'000);
  // One of another thread, earlier than all: bins are added in front.
  time.mpi_call(2, start - 5'000'000, start - 4'000'000);
  time.finish();
  const double all = time.mpi_ns_between(0, ~std::uint64_t{0});
  EXPECT_DOUBLE_EQ(all, 10'000'000 + 1'000'000);
  EXPECT_DOUBLE_EQ(time.mpi_ns(), all);
  // Half the run holds about half the calls' time (bins are spread evenly within).
  const double first_half = time.mpi_ns_between(start, start + 500'000'000);
  EXPECT_NEAR(first_half, 5'000'000, 100'000);
  EXPECT_NEAR(time.mpi_ns_between(start - 5'000'000, start - 4'000'000), 1'000'000, 400'000);
}

TEST(RankTime, PollingCallsAndBytesSentAreCountedApart) {
  RankTime time(0);
  time.mpi_call(1, 1'000, 2'000, true);  // an MPI_Test
  time.mpi_call(1, 2'000, 2'500, true);
  time.mpi_call(1, 3'000, 7'000);  // an MPI_Wait
  // A polling call nested in a counted one (its thread spent that time in MPI once): the
  // time goes to the call counted first.
  time.mpi_call(1, 4'000, 5'000, true);
  time.sent(64);
  time.sent(1'000);
  time.finish();
  EXPECT_EQ(time.mpi_ns(), 1'000 + 500 + 4'000);
  EXPECT_EQ(time.polling_ns(), 1'000 + 500);
  EXPECT_EQ(time.bytes_sent(), 1'064U);
}

TEST(RankTime, CrossesMergeProcessesUnchanged) {
  RankTime time(5);
  time.mpi_call(1, 1'000'000, 1'200'000);
  time.mpi_call(1, 1'300'000, 1'350'000, true);
  time.sent(77);
  time.gpu_work(0, 10);
  time.finish();
  ByteWriter out;
  time.put(out);
  const std::vector<std::byte> bytes = out.take();
  ByteReader in(bytes);
  const RankTime copy = RankTime::get(in);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(copy.rank(), 5);
  EXPECT_EQ(copy.wall_ns(), time.wall_ns());
  EXPECT_EQ(copy.gpu_busy_ns(), 10);
  EXPECT_DOUBLE_EQ(copy.mpi_ns_between(0, 2'000'000), 250'000);
  EXPECT_EQ(copy.polling_ns(), 50'000);
  EXPECT_EQ(copy.bytes_sent(), 77U);
  ByteReader cut(std::span<const std::byte>(bytes).first(bytes.size() - 3));
  EXPECT_THROW(RankTime::get(cut), std::runtime_error);
}

}  // namespace
}  // namespace rocprof::merge
