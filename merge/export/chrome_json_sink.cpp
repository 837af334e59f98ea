// .json: written in parts, times in microseconds from the job's first record.
#include <algorithm>
#include <exception>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "merge/export/chrome_json.hpp"
#include "merge/export/sink_registry.hpp"

namespace rocprof::merge {
namespace {

class ChromeJsonSink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kParts; }

  std::uint64_t write(const SinkJob& job) override {
    const std::vector<const AlignedRank*> block = job.block();
    return export_chrome_json(block, origin(job, block), job.path, job.progress,
                              {job.first_part(), job.last_part()});
  }

  std::string advice(const std::string& output, std::uint64_t events) const override {
    if (events <= kLargeJsonEvents) return {};
    return fmt::format("{} holds {} events: JSON this large loads slowly in viewers", output,
                       events);
  }

 private:
  // Viewers want small times: the job's earliest record is 0. Each process looks at its own
  // ranks, and they agree on the earliest. Reading a rank's first rows may fail (a damaged
  // chunk): every process still takes part in the gather, so none waits for ever, and all
  // stop (the one that failed says why).
  static std::uint64_t origin(const SinkJob& job, const std::vector<const AlignedRank*>& block) {
    std::uint64_t earliest = std::numeric_limits<std::uint64_t>::max();
    std::exception_ptr failure;
    try {
      for (const AlignedRank* rank : block) earliest = std::min(earliest, rank->first_time_ns());
    } catch (const std::exception&) {
      failure = std::current_exception();
      earliest = kFailed;
    }
    if (job.share != nullptr && job.share->processes > 1)
      for (const std::uint64_t other : job.share->gather(earliest)) {
        if (other == kFailed && failure == nullptr) throw OtherProcessFailed();
        earliest = std::min(earliest, other);
      }
    if (failure != nullptr) std::rethrow_exception(failure);
    return earliest;
  }

  // No aligned time comes this near the top of the clock.
  static constexpr std::uint64_t kFailed = std::numeric_limits<std::uint64_t>::max() - 1;
};

}  // namespace

std::unique_ptr<Sink> make_chrome_json_sink() { return std::make_unique<ChromeJsonSink>(); }

}  // namespace rocprof::merge
