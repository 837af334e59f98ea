// .json: written in parts, times in microseconds from the job's first record.
#include <memory>

#include <fmt/format.h>

#include "merge/export/chrome_json.hpp"
#include "merge/export/job_origin.hpp"
#include "merge/export/sink_registry.hpp"

namespace rocprof::merge {
namespace {

class ChromeJsonSink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kParts; }

  std::uint64_t write(const SinkJob& job) override {
    const std::vector<const AlignedRank*> block = job.block();
    // Viewers want small times: the job's earliest record is 0.
    return export_chrome_json(block, job_origin_ns(job), job.path, job.progress,
                              {job.first_part(), job.last_part()});
  }

  // Said before the work: a trace of one event per record, at least.
  std::string advice_before(const std::string& output, std::uint64_t records) const override {
    if (records <= kLargeJsonEvents) return {};
    return fmt::format(
        "warning: {} will hold {:.1f} M events or more: JSON this large loads slowly or not at "
        "all in a browser; a .pftrace of the job opens in Perfetto's UI",
        output, static_cast<double>(records) / 1e6);
  }
};

}  // namespace

std::unique_ptr<Sink> make_chrome_json_sink() { return std::make_unique<ChromeJsonSink>(); }

}  // namespace rocprof::merge
