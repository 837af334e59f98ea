#include "merge/summary/counter_summary.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "merge/files/csv_file.hpp"

namespace rocprof::merge {
namespace {

using format::CounterSampleRow;
using format::CounterSessionRow;
using format::MpiCallRow;

constexpr const char* kUtilisation = "GPU_UTIL";

// The union of `calls` (sorted by begin): time inside at least one MPI call.
std::vector<std::pair<std::uint64_t, std::uint64_t>> union_of(
    std::vector<std::pair<std::uint64_t, std::uint64_t>> calls) {
  std::sort(calls.begin(), calls.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& call : calls) {
    if (!merged.empty() && call.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, call.second);
    else
      merged.push_back(call);
  }
  return merged;
}

}  // namespace

void CounterSummary::Values::add(double value) {
  min = count == 0 ? value : std::min(min, value);
  max = count == 0 ? value : std::max(max, value);
  sum += value;
  ++count;
}

void CounterSummary::Values::merge(const Values& other) {
  if (other.count == 0) return;
  if (count == 0) {
    *this = other;
    return;
  }
  rank = std::min(rank, other.rank);
  min = std::min(min, other.min);
  max = std::max(max, other.max);
  sum += other.sum;
  count += other.count;
  mpi_ns += other.mpi_ns;
  idle_mpi_ns += other.idle_mpi_ns;
}

CounterSummary::RankPart::RankPart(const AlignedRank& rank)
    : reader_(rank.reader()), rank_(rank.rank()), host_(rank.reader().metadata().hostname) {
  if (reader_.row_count<CounterSampleRow>() == 0) return;
  for (const CounterSessionRow& session : reader_.read_all<CounterSessionRow>())
    sessions_[session.session].device = reader_.string(session.name);
}

void CounterSummary::RankPart::mpi_call(const MpiCallRow& row, bool per_request) {
  if (!per_request && row.end_ns > row.begin_ns) mpi_.emplace_back(row.begin_ns, row.end_ns);
}

void CounterSummary::RankPart::sample(const CounterSampleRow& row) {
  if (!std::isfinite(row.value)) return;
  values_[{row.session, row.counter}].add(row.value);
  if (gpu_util_ == 0 && reader_.string(row.counter) == kUtilisation) gpu_util_ = row.counter;
  if (row.counter == gpu_util_)
    sessions_[row.session].utilisation.emplace_back(row.timestamp_ns, row.value);
}

void CounterSummary::RankPart::finish(CounterSummary& into) {
  const auto calls = union_of(std::move(mpi_));
  for (auto& [key, values] : values_) {
    const auto& [session, counter] = key;
    Session& sampled = sessions_[session];
    values.rank = rank_;
    if (counter == gpu_util_ && !calls.empty()) {
      // Each sample covers the time since the one before it.
      auto& samples = sampled.utilisation;
      std::sort(samples.begin(), samples.end());
      std::size_t call = 0;
      for (std::size_t i = 1; i < samples.size(); ++i) {
        const std::uint64_t from = samples[i - 1].first;
        const std::uint64_t to = samples[i].first;
        const double idle = 1.0 - std::clamp(samples[i].second, 0.0, 100.0) / 100.0;
        while (call < calls.size() && calls[call].second <= from) ++call;
        for (std::size_t c = call; c < calls.size() && calls[c].first < to; ++c) {
          const std::uint64_t overlap =
              std::min(to, calls[c].second) - std::max(from, calls[c].first);
          values.mpi_ns += static_cast<double>(overlap);
          values.idle_mpi_ns += static_cast<double>(overlap) * idle;
        }
      }
    }
    const std::string device =
        sampled.device.empty() ? fmt::format("session {}", session) : sampled.device;
    into.values_[{host_, device, reader_.string(counter)}].merge(values);
  }
}

void CounterSummary::merge(const CounterSummary& other) {
  for (const auto& [key, values] : other.values_) values_[key].merge(values);
}

void CounterSummary::put(ByteWriter& out) const {
  out.put<std::uint64_t>(values_.size());
  for (const auto& [key, values] : values_) {
    out.put_string(std::get<0>(key));
    out.put_string(std::get<1>(key));
    out.put_string(std::get<2>(key));
    out.put(values);
  }
}

void CounterSummary::get(ByteReader& in) {
  const auto count = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string host = in.get_string();
    std::string device = in.get_string();
    std::string counter = in.get_string();
    values_[{std::move(host), std::move(device), std::move(counter)}].merge(in.get<Values>());
  }
}

void CounterSummary::print(std::FILE* out) const {
  if (values_.empty()) return;
  std::size_t host = 4;
  std::size_t device = 6;
  for (const auto& [key, v] : values_) {
    host = std::max(host, std::get<0>(key).size());
    device = std::max(device, std::get<1>(key).size());
  }
  fmt::print(out, "Device counters per device (sampled by the rank shown)\n");
  fmt::print(out, "  {:<{}} {:>4} {:<{}} {:<16} {:>8} {:>12} {:>12} {:>12}\n", "host", host, "rank",
             "device", device, "counter", "samples", "min", "mean", "max");
  for (const auto& [key, v] : values_)
    fmt::print(out, "  {:<{}} {:>4} {:<{}} {:<16} {:>8} {:>12.6g} {:>12.6g} {:>12.6g}\n",
               std::get<0>(key), host, v.rank, std::get<1>(key), device, std::get<2>(key), v.count,
               v.min, v.mean(), v.max);
  bool header = false;
  for (const auto& [key, v] : values_) {
    if (v.mpi_ns <= 0) continue;
    if (!header)
      fmt::print(out,
                 "GPU idle during MPI (share of the sampling rank's MPI time the GPU ran no "
                 "kernel, from GPU_UTIL)\n  {:<{}} {:>4} {:<{}} {:>12} {:>10}\n",
                 "host", host, "rank", "device", device, "MPI ms", "GPU idle");
    header = true;
    fmt::print(out, "  {:<{}} {:>4} {:<{}} {:>12.3f} {:>9.1f}%\n", std::get<0>(key), host, v.rank,
               std::get<1>(key), device, v.mpi_ns / 1e6, 100.0 * v.idle_mpi_ns / v.mpi_ns);
  }
}

bool CounterSummary::write_csv(const std::string& prefix, std::string& error) const {
  CsvFile csv(prefix + "_counters.csv",
              "host,rank,device,counter,samples,min,mean,max,mpi_ns,gpu_idle_mpi_ns");
  for (const auto& [key, v] : values_)
    csv.row("{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.0f},{:.0f}", csv_text(std::get<0>(key)), v.rank,
            csv_text(std::get<1>(key)), std::get<2>(key), v.count, v.min, v.mean(), v.max, v.mpi_ns,
            v.idle_mpi_ns);
  return csv.close(error);
}

}  // namespace rocprof::merge
