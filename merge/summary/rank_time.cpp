#include "merge/summary/rank_time.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace rocprof::merge {

void RankTime::record(std::uint64_t begin_ns, std::uint64_t end_ns) {
  if (end_ns < begin_ns) return;
  first_ns_ = std::min(first_ns_, begin_ns);
  last_ns_ = std::max(last_ns_, end_ns);
}

void RankTime::mpi_call(std::uint32_t thread, std::uint64_t begin_ns, std::uint64_t end_ns,
                        bool polling) {
  if (end_ns < begin_ns) return;
  record(begin_ns, end_ns);
  // Rows come as the calls end, so a nested call comes before the call around it: the
  // counted intervals this one overlaps are among the last ones; [first, last) of them.
  auto& counted = counted_[thread];
  std::size_t last = counted.size();
  while (last > 0 && counted[last - 1].first >= end_ns) --last;  // wholly after it
  std::size_t first = last;
  while (first > 0 && counted[first - 1].second > begin_ns) --first;
  std::uint64_t from = begin_ns;
  for (std::size_t i = first; i < last; ++i) {
    const auto [counted_begin, counted_end] = counted[i];
    if (counted_begin > from) {
      mpi_ns_ += static_cast<double>(counted_begin - from);
      if (polling) polling_ns_ += static_cast<double>(counted_begin - from);
      add_to_bins(from, counted_begin);
    }
    from = std::max(from, counted_end);
  }
  if (end_ns > from) {
    mpi_ns_ += static_cast<double>(end_ns - from);
    if (polling) polling_ns_ += static_cast<double>(end_ns - from);
    add_to_bins(from, end_ns);
  }
  std::pair<std::uint64_t, std::uint64_t> joined{begin_ns, end_ns};
  if (first < last) {
    joined.first = std::min(joined.first, counted[first].first);
    joined.second = std::max(joined.second, counted[last - 1].second);
  }
  const auto at = counted.begin() + static_cast<std::ptrdiff_t>(first);
  counted.insert(counted.erase(at, counted.begin() + static_cast<std::ptrdiff_t>(last)), joined);
  if (counted.size() > kCountedKept) counted.erase(counted.begin());
}

void RankTime::gpu_work(std::uint64_t begin_ns, std::uint64_t end_ns) {
  if (end_ns < begin_ns) return;
  record(begin_ns, end_ns);
  if (busy_end_ > busy_begin_ && begin_ns <= busy_end_ && end_ns >= busy_begin_) {
    busy_begin_ = std::min(busy_begin_, begin_ns);
    busy_end_ = std::max(busy_end_, end_ns);
    return;
  }
  gpu_busy_ns_ += static_cast<double>(busy_end_ - busy_begin_);
  busy_begin_ = begin_ns;
  busy_end_ = end_ns;
}

void RankTime::finish() {
  gpu_busy_ns_ += static_cast<double>(busy_end_ - busy_begin_);
  busy_begin_ = busy_end_ = 0;
  counted_.clear();
}

void RankTime::add_to_bins(std::uint64_t begin_ns, std::uint64_t end_ns) {
  if (bins_.empty()) {
    bin_ns_ = kFirstBinNs;
    bin_origin_ = begin_ns - begin_ns % bin_ns_;
    bins_.assign(1, 0.0);
  }
  // Wide enough bins for the span so far and this call (calls of several threads come in
  // blocks, so an earlier one may come later): pairs of bins become one.
  const std::uint64_t lowest = std::min(begin_ns, bin_origin_);
  const std::uint64_t highest = std::max(end_ns, bin_origin_ + bins_.size() * bin_ns_);
  while ((highest - (lowest - lowest % bin_ns_)) / bin_ns_ >= kMaxBins) {
    if ((bin_origin_ / bin_ns_) % 2 != 0) {
      bins_.insert(bins_.begin(), 0.0);
      bin_origin_ -= bin_ns_;
    }
    std::vector<double> wider((bins_.size() + 1) / 2, 0.0);
    for (std::size_t i = 0; i < bins_.size(); ++i) wider[i / 2] += bins_[i];
    bins_ = std::move(wider);
    bin_ns_ *= 2;
  }
  if (begin_ns < bin_origin_) {
    const std::uint64_t origin = begin_ns - begin_ns % bin_ns_;
    bins_.insert(bins_.begin(), static_cast<std::size_t>((bin_origin_ - origin) / bin_ns_), 0.0);
    bin_origin_ = origin;
  }
  const auto last_bin = static_cast<std::size_t>((end_ns - bin_origin_) / bin_ns_);
  if (last_bin >= bins_.size()) bins_.resize(last_bin + 1, 0.0);
  for (auto bin = static_cast<std::size_t>((begin_ns - bin_origin_) / bin_ns_); bin <= last_bin;
       ++bin) {
    const std::uint64_t from = std::max(begin_ns, bin_origin_ + bin * bin_ns_);
    const std::uint64_t to = std::min(end_ns, bin_origin_ + (bin + 1) * bin_ns_);
    if (to > from) bins_[bin] += static_cast<double>(to - from);
  }
}

double RankTime::mpi_ns_between(std::uint64_t from, std::uint64_t to) const {
  double total = 0;
  for (std::size_t bin = 0; bin < bins_.size(); ++bin) {
    const std::uint64_t bin_begin = bin_origin_ + bin * bin_ns_;
    const std::uint64_t bin_end = bin_begin + bin_ns_;
    const std::uint64_t overlap_begin = std::max(from, bin_begin);
    const std::uint64_t overlap_end = std::min(to, bin_end);
    if (overlap_end > overlap_begin)
      total += bins_[bin] * static_cast<double>(overlap_end - overlap_begin) /
               static_cast<double>(bin_ns_);
  }
  return total;
}

void RankTime::put(ByteWriter& out) const {
  out.put(rank_);
  out.put(first_ns_);
  out.put(last_ns_);
  out.put(mpi_ns_);
  out.put(polling_ns_);
  out.put(bytes_sent_);
  out.put(gpu_busy_ns_);
  out.put(bin_origin_);
  out.put(bin_ns_);
  out.put_vector(bins_);
}

RankTime RankTime::get(ByteReader& in) {
  RankTime time;
  time.rank_ = in.get<std::int32_t>();
  time.first_ns_ = in.get<std::uint64_t>();
  time.last_ns_ = in.get<std::uint64_t>();
  time.mpi_ns_ = in.get<double>();
  time.polling_ns_ = in.get<double>();
  time.bytes_sent_ = in.get<std::uint64_t>();
  time.gpu_busy_ns_ = in.get<double>();
  time.bin_origin_ = in.get<std::uint64_t>();
  time.bin_ns_ = in.get<std::uint64_t>();
  time.bins_ = in.get_vector<double>();
  if (time.bins_.size() > kMaxBins || (!time.bins_.empty() && time.bin_ns_ == 0))
    throw std::runtime_error("a merge process sent a damaged summary");
  return time;
}

}  // namespace rocprof::merge
