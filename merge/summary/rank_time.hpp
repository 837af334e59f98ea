// Where one rank's time went, for the report: its span (first to last record), its MPI time,
// the time its GPU ran something, and its MPI time over the run in bins (for the heatmap of
// ranks over time). Gathered from the rows the summary watches, in any order.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {

class RankTime {
 public:
  static constexpr std::size_t kMaxBins = 2048;
  static constexpr std::uint64_t kFirstBinNs = 100'000;

  RankTime() = default;
  explicit RankTime(std::int32_t rank) : rank_(rank) {}

  // A drawn MPI call (not a per-request row) of thread `thread`. A call nested in another of
  // its thread (the tool's clock synchronisation inside MPI_Finalize) counts once. `polling`:
  // a call that only asks whether communication progressed (MPI_Test, MPI_Iprobe and kin).
  void mpi_call(std::uint32_t thread, std::uint64_t begin_ns, std::uint64_t end_ns,
                bool polling = false);
  // Payload bytes an MPI row (a call's or a request's) sent.
  void sent(std::uint64_t bytes) { bytes_sent_ += bytes; }
  void gpu_work(std::uint64_t begin_ns, std::uint64_t end_ns);
  void record(std::uint64_t begin_ns, std::uint64_t end_ns);  // any other record
  void finish();                                              // after the last row

  std::int32_t rank() const noexcept { return rank_; }
  std::uint64_t first_ns() const noexcept { return first_ns_; }
  std::uint64_t last_ns() const noexcept { return last_ns_; }
  double wall_ns() const noexcept {
    return last_ns_ > first_ns_ ? static_cast<double>(last_ns_ - first_ns_) : 0.0;
  }
  double mpi_ns() const noexcept { return mpi_ns_; }
  // The part of mpi_ns() in polling calls.
  double polling_ns() const noexcept { return polling_ns_; }
  std::uint64_t bytes_sent() const noexcept { return bytes_sent_; }
  double gpu_busy_ns() const noexcept { return gpu_busy_ns_; }
  // MPI time in [from, to) (from the bins, spread evenly within each).
  double mpi_ns_between(std::uint64_t from, std::uint64_t to) const;

  void put(ByteWriter& out) const;
  static RankTime get(ByteReader& in);

 private:
  void add_to_bins(std::uint64_t begin_ns, std::uint64_t end_ns);

  std::int32_t rank_ = -1;
  std::uint64_t first_ns_ = ~std::uint64_t{0};
  std::uint64_t last_ns_ = 0;
  double mpi_ns_ = 0;
  double polling_ns_ = 0;
  std::uint64_t bytes_sent_ = 0;
  double gpu_busy_ns_ = 0;
  // The GPU's busy interval being grown (work comes roughly in order; overlaps count once).
  std::uint64_t busy_begin_ = 0;
  std::uint64_t busy_end_ = 0;
  // MPI time per bin of bin_ns_ from bin_origin_ (set by the first MPI call; a bin is
  // widened by pairs when the run outgrows kMaxBins bins).
  std::uint64_t bin_origin_ = 0;
  std::uint64_t bin_ns_ = 0;
  std::vector<double> bins_;
  // Per thread, the latest of its MPI time as disjoint intervals in time order (a few: calls
  // nest only a level or two), so that a call overlapping those counted is counted once.
  static constexpr std::size_t kCountedKept = 8;
  std::unordered_map<std::uint32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> counted_;
};

}  // namespace rocprof::merge
