// Device counters in an OTF2 archive: a metric per counter name (a metric class of one
// member, asynchronous), recorded on a location of type METRIC per sampling session of a
// rank, named after the device ("rank 0 GPU 0 (NVIDIA H200)").
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "merge/timeline/rank_timeline.hpp"

namespace rocprof::merge {

// Counter names numbered as first met (a merge process's own numbering; the archive's is the
// first-met order over the processes, mapped like regions).
class Otf2MetricNames {
 public:
  std::uint32_t metric(const std::string& counter);
  const std::vector<std::string>& names() const noexcept { return names_; }

 private:
  std::map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

struct Otf2MetricSample {
  std::uint64_t time;
  std::uint32_t metric;
  double value;
};

// A rank's samples per session, gathered from its timeline's counter visits.
class RankMetrics {
 public:
  explicit RankMetrics(Otf2MetricNames& names) : names_(names) {}
  void add(const TimelineCounter& counter, const std::string& counter_name);

  struct Session {
    std::string device;
    std::vector<Otf2MetricSample> samples;
  };
  std::map<std::uint32_t, Session>& sessions() noexcept { return sessions_; }

 private:
  Otf2MetricNames& names_;
  std::map<std::uint32_t, Session> sessions_;
};

// Writes a session's samples on its location in time order; throws on a write error naming
// `path`. The metrics used go into `used` (local numbers).
void write_metric_events(OTF2_EvtWriter* writer, std::vector<Otf2MetricSample>& samples,
                         std::vector<std::uint32_t>& used, const std::string& path);

// The strings a metric's definition needs: its name, description and unit.
struct Otf2MetricText {
  std::string name;
  std::string description;
  std::string unit;
};
Otf2MetricText metric_text(const std::string& counter);

void check_metric_write(OTF2_ErrorCode code, const char* what, const std::string& path);

// The global definitions of `metrics` (archive numbers = index) and which locations recorded
// which ((metric, location) pairs); `string` gives each text's interned reference.
template <typename StringRef>
void write_metric_definitions(
    OTF2_GlobalDefWriter* writer, const std::vector<std::string>& metrics,
    const std::vector<std::pair<std::uint32_t, OTF2_LocationRef>>& recorders, StringRef&& string,
    const std::string& path) {
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const Otf2MetricText text = metric_text(metrics[i]);
    const auto id = static_cast<OTF2_MetricMemberRef>(i);
    check_metric_write(
        OTF2_GlobalDefWriter_WriteMetricMember(
            writer, id, string(text.name), string(text.description), OTF2_METRIC_TYPE_OTHER,
            OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, string(text.unit)),
        "write a metric member", path);
    check_metric_write(
        OTF2_GlobalDefWriter_WriteMetricClass(writer, id, 1, &id, OTF2_METRIC_ASYNCHRONOUS,
                                              OTF2_RECORDER_KIND_ABSTRACT),
        "write a metric class", path);
  }
  for (const auto& [metric, location] : recorders)
    check_metric_write(OTF2_GlobalDefWriter_WriteMetricClassRecorder(writer, metric, location),
                       "write a metric recorder", path);
}

}  // namespace rocprof::merge
