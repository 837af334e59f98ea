#include "merge/export/otf2_metrics.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "lib/device/counter_listing.hpp"

namespace rocprof::merge {

std::uint32_t Otf2MetricNames::metric(const std::string& counter) {
  const auto [found, added] = ids_.emplace(counter, static_cast<std::uint32_t>(names_.size()));
  if (added) names_.push_back(counter);
  return found->second;
}

void RankMetrics::add(const TimelineCounter& counter, const std::string& counter_name) {
  Session& session = sessions_[counter.row.session];
  if (session.samples.empty()) session.device = *counter.device;
  session.samples.push_back(
      {counter.row.timestamp_ns, names_.metric(counter_name), counter.row.value});
}

void check_metric_write(OTF2_ErrorCode code, const char* what, const std::string& path) {
  if (code != OTF2_SUCCESS)
    throw std::runtime_error(
        fmt::format("{}: {} failed: {}", path, what, OTF2_Error_GetDescription(code)));
}

void write_metric_events(OTF2_EvtWriter* writer, std::vector<Otf2MetricSample>& samples,
                         std::vector<std::uint32_t>& used, const std::string& path) {
  std::stable_sort(
      samples.begin(), samples.end(),
      [](const Otf2MetricSample& a, const Otf2MetricSample& b) { return a.time < b.time; });
  const OTF2_Type type = OTF2_TYPE_DOUBLE;
  for (const Otf2MetricSample& sample : samples) {
    OTF2_MetricValue value{};
    value.floating_point = sample.value;
    check_metric_write(
        OTF2_EvtWriter_Metric(writer, nullptr, sample.time, sample.metric, 1, &type, &value),
        "write a metric event", path);
    if (std::find(used.begin(), used.end(), sample.metric) == used.end())
      used.push_back(sample.metric);
  }
}

Otf2MetricText metric_text(const std::string& counter) {
  if (const device::CounterInfo* info = device::find_counter(counter))
    return {counter, info->description, info->unit};
  return {counter, "device counter", ""};
}

}  // namespace rocprof::merge
