#include "merge/analysis/region_imbalance.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "merge/files/csv_file.hpp"

namespace rocprof::merge {

void InstanceSeries::add(double duration_ns) {
  const std::uint64_t bucket = count / width;
  if (bucket >= kMaxBuckets) {
    widen_to(width * 2);
    add(duration_ns);
    return;
  }
  if (bucket >= sums.size()) sums.resize(bucket + 1, 0.0);
  sums[bucket] += duration_ns;
  ++count;
}

void InstanceSeries::widen_to(std::uint64_t wider) {
  while (width < wider) {
    std::vector<double> merged((sums.size() + 1) / 2, 0.0);
    for (std::size_t i = 0; i < sums.size(); ++i) merged[i / 2] += sums[i];
    sums = std::move(merged);
    width *= 2;
  }
}

void RegionImbalanceInput::add(std::int32_t rank, const std::string& name,
                               const InstanceSeries& series) {
  auto [entry, added] = regions_[name].try_emplace(rank, series);
  if (!added && series.count > entry->second.count) entry->second = series;
}

void RegionImbalanceInput::merge(const RegionImbalanceInput& other) {
  for (const auto& [name, ranks] : other.regions_)
    for (const auto& [rank, series] : ranks) add(rank, name, series);
}

void RegionImbalanceInput::put(ByteWriter& out) const {
  out.put<std::uint64_t>(regions_.size());
  for (const auto& [name, ranks] : regions_) {
    out.put_string(name);
    out.put<std::uint64_t>(ranks.size());
    for (const auto& [rank, series] : ranks) {
      out.put(rank);
      out.put(series.count);
      out.put(series.width);
      out.put_vector(series.sums);
    }
  }
}

void RegionImbalanceInput::get(ByteReader& in) {
  const auto names = in.get<std::uint64_t>();
  for (std::uint64_t n = 0; n < names; ++n) {
    const std::string name = in.get_string();
    const auto ranks = in.get<std::uint64_t>();
    for (std::uint64_t r = 0; r < ranks; ++r) {
      const auto rank = in.get<std::int32_t>();
      InstanceSeries series;
      series.count = in.get<std::uint64_t>();
      series.width = in.get<std::uint64_t>();
      series.sums = in.get_vector<double>();
      if (series.width == 0 || series.sums.size() > InstanceSeries::kMaxBuckets)
        throw std::runtime_error("a merge process sent a damaged summary");
      add(rank, name, series);
    }
  }
}

std::vector<RegionImbalance> region_imbalance(const RegionImbalanceInput& input) {
  std::vector<RegionImbalance> out;
  for (const auto& [name, ranks] : input.regions()) {
    if (ranks.size() < 2) continue;
    RegionImbalance region;
    region.name = name;
    region.ranks = ranks.size();
    std::uint64_t width = 1;
    bool same_count = true;
    for (const auto& [rank, series] : ranks) {
      double total = 0;
      for (const double sum : series.sums) total += sum;
      region.mean_total_ns += total;
      if (total > region.max_total_ns || region.max_rank < 0) {
        region.max_total_ns = total;
        region.max_rank = rank;
      }
      width = std::max(width, series.width);
      same_count = same_count && series.count == ranks.begin()->second.count;
    }
    region.mean_total_ns /= static_cast<double>(ranks.size());
    if (same_count && ranks.begin()->second.count > 1) {
      region.instances = ranks.begin()->second.count;
      region.width = width;
      std::vector<double> max;
      std::vector<double> sum;
      for (const auto& [rank, original] : ranks) {
        InstanceSeries series = original;
        series.widen_to(width);
        max.resize(std::max(max.size(), series.sums.size()), 0.0);
        sum.resize(max.size(), 0.0);
        for (std::size_t b = 0; b < series.sums.size(); ++b) {
          max[b] = std::max(max[b], series.sums[b]);
          sum[b] += series.sums[b];
        }
      }
      for (std::size_t b = 0; b < max.size(); ++b) {
        const double mean = sum[b] / static_cast<double>(ranks.size());
        region.over_time.push_back(mean > 0 ? max[b] / mean : 1.0);
        if (region.over_time.back() > region.worst) {
          region.worst = region.over_time.back();
          region.worst_first = b * width;
        }
      }
    }
    out.push_back(std::move(region));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.mean_total_ns > b.mean_total_ns; });
  return out;
}

void print_region_imbalance(std::FILE* out, const std::vector<RegionImbalance>& regions,
                            std::size_t top) {
  if (regions.empty()) return;
  fmt::print(out,
             "Region imbalance across ranks (ms; imbalance = max / mean of the ranks; over "
             "the run: per instance, for regions every rank ran as often)\n  {:<24} {:>5} {:>9} "
             "{:>10} {:>10} {:>8} {:>9} {:>10} {:>14}\n",
             "region", "ranks", "instances", "mean/rank", "max rank", "(rank)", "imbalance",
             "worst inst", "at instance");
  for (std::size_t i = 0; i < regions.size() && i < top; ++i) {
    const RegionImbalance& r = regions[i];
    const std::string at =
        r.over_time.empty()
            ? std::string("-")
            : (r.width == 1 ? fmt::format("{}", r.worst_first)
                            : fmt::format("{}-{}", r.worst_first, r.worst_first + r.width - 1));
    fmt::print(out, "  {:<24} {:>5} {:>9} {:>10.3f} {:>10.3f} {:>8} {:>9.2f} {:>10} {:>14}\n",
               r.name, r.ranks,
               r.instances == 0 ? std::string("-") : fmt::format("{}", r.instances),
               r.mean_total_ns / 1e6, r.max_total_ns / 1e6, r.max_rank, r.imbalance(),
               r.over_time.empty() ? std::string("-") : fmt::format("{:.2f}", r.worst), at);
  }
}

bool write_region_imbalance_csv(const std::string& prefix,
                                const std::vector<RegionImbalance>& regions, std::string& error) {
  CsvFile file(prefix + "_imbalance.csv", "region,first_instance,last_instance,imbalance");
  for (const RegionImbalance& r : regions) {
    const std::string name = csv_text(r.name);
    // The region's whole run first (instances left empty), then each bucket.
    file.row("{},,,{:.6f}", name, r.imbalance());
    for (std::size_t b = 0; b < r.over_time.size(); ++b) {
      const auto [first, last] = r.bucket_instances(b);
      file.row("{},{},{},{:.6f}", name, first, last, r.over_time[b]);
    }
  }
  return file.close(error);
}

}  // namespace rocprof::merge
