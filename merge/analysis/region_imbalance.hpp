// Load imbalance per region across ranks, in total and over the run: for a region every rank
// runs the same number of times (an iteration-like region: "step", "halo exchange"), the
// k-th instances of the ranks are compared, max / mean, so that imbalance that comes and
// goes (a rank slow for a while) shows where it happened.
//
// A rank's instances of a region on one thread are kept in at most kMaxBuckets buckets of
// consecutive instances (a bucket's width doubles as the count grows), so memory stays
// bounded whatever the run's length; ranks are compared bucket by bucket at the widest width.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {

// One region's instances on one thread of one rank, in the order they ended.
struct InstanceSeries {
  static constexpr std::size_t kMaxBuckets = 1024;
  std::uint64_t count = 0;
  std::uint64_t width = 1;   // instances per bucket
  std::vector<double> sums;  // time per bucket
  void add(double duration_ns);
  void widen_to(std::uint64_t wider);  // a power of two times width
};

// What the ranks gathered: per rank, per region name, its busiest thread's series.
class RegionImbalanceInput {
 public:
  // A rank's series of `name` on `thread`; the thread with the most instances is kept.
  void add(std::int32_t rank, const std::string& name, const InstanceSeries& series);
  void merge(const RegionImbalanceInput& other);
  void put(ByteWriter& out) const;
  void get(ByteReader& in);
  const std::map<std::string, std::map<std::int32_t, InstanceSeries>>& regions() const {
    return regions_;
  }

 private:
  std::map<std::string, std::map<std::int32_t, InstanceSeries>> regions_;
};

struct RegionImbalance {
  std::string name;
  std::size_t ranks = 0;
  std::uint64_t instances = 0;  // per rank, when every rank ran it as often; else 0
  double mean_total_ns = 0;     // of the ranks
  double max_total_ns = 0;
  std::int32_t max_rank = -1;
  // Over the run (iteration-like regions only): per bucket of `width` instances, the ranks'
  // max / mean of their time in it.
  std::uint64_t width = 0;
  std::vector<double> over_time;
  double worst = 0;               // the largest of over_time
  std::uint64_t worst_first = 0;  // its first instance (from 0)
  double imbalance() const { return mean_total_ns > 0 ? max_total_ns / mean_total_ns : 0.0; }
  // The first and last instance (from 0) of bucket `b` of over_time.
  std::pair<std::uint64_t, std::uint64_t> bucket_instances(std::size_t b) const {
    return {b * width, std::min((b + 1) * width, instances) - 1};
  }
};

// By total time, largest first; regions run by a single rank are left out.
std::vector<RegionImbalance> region_imbalance(const RegionImbalanceInput& input);

void print_region_imbalance(std::FILE* out, const std::vector<RegionImbalance>& regions,
                            std::size_t top);
// <prefix>_imbalance.csv: a row per region and bucket; false with `error`.
bool write_region_imbalance_csv(const std::string& prefix,
                                const std::vector<RegionImbalance>& regions, std::string& error);

}  // namespace rocprof::merge
