// The device counters' part of the merge summary: per device and counter the samples' min,
// mean and max, and for GPU utilisation the share of the sampling rank's MPI time in which
// the GPU ran nothing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/format/records.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {

class CounterSummary {
 public:
  // A device's counter, where it was sampled: host name, device name, counter name.
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Values {
    std::int32_t rank = -1;  // the rank that sampled it (the lowest, if several did)
    std::uint64_t count = 0;
    double min = 0;
    double max = 0;
    double sum = 0;
    // GPU_UTIL only: the sampling rank's MPI time within the sampled span, and the part of
    // it the GPU was idle, weighting each sample interval by (100 - utilisation) %.
    double mpi_ns = 0;
    double idle_mpi_ns = 0;
    void add(double value);
    void merge(const Values& other);
    double mean() const { return count > 0 ? sum / static_cast<double>(count) : 0.0; }
  };

  // What one rank's rows add up to, gathered while they are read (MpiCallRow, then or before
  // CounterSampleRow, in any order) and added up by finish().
  class RankPart {
   public:
    explicit RankPart(const AlignedRank& rank);
    // Whether the rank sampled anything (others need no watching).
    bool sampled() const noexcept { return !sessions_.empty(); }
    void mpi_call(const format::MpiCallRow& row, bool per_request);
    void sample(const format::CounterSampleRow& row);
    void finish(CounterSummary& into);

   private:
    struct Session {
      std::string device;
      std::vector<std::pair<std::uint64_t, double>> utilisation;  // GPU_UTIL samples
    };
    const format::RankFileReader& reader_;
    std::int32_t rank_;
    std::string host_;
    std::map<std::uint32_t, Session> sessions_;
    std::map<std::pair<std::uint32_t, format::StringId>, Values> values_;
    format::StringId gpu_util_ = 0;  // the rank's string id of "GPU_UTIL", 0 if none
    std::vector<std::pair<std::uint64_t, std::uint64_t>> mpi_;  // calls' begin, end
  };

  const std::map<Key, Values>& values() const noexcept { return values_; }
  bool empty() const noexcept { return values_.empty(); }
  void merge(const CounterSummary& other);
  void put(ByteWriter& out) const;
  void get(ByteReader& in);
  void print(std::FILE* out) const;
  // <prefix>_counters.csv; false with `error`.
  bool write_csv(const std::string& prefix, std::string& error) const;

 private:
  std::map<Key, Values> values_;
};

}  // namespace rocprof::merge
