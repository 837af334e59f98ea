// .pftrace: written in parts (each rank is a packet sequence of its own), with the first
// ranks encoded while the messages are matched.
#include <memory>
#include <optional>

#include "merge/export/perfetto_analysis.hpp"
#include "merge/export/perfetto_trace.hpp"
#include "merge/export/sink_registry.hpp"

namespace rocprof::merge {
namespace {

class PerfettoSink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kParts; }

  bool add_analysis(const std::string& path, const JobAnalysis& analysis,
                    std::string& error) const override {
    if (analysis.waits == nullptr || analysis.critical_path == nullptr) return true;
    return append_analysis_to_perfetto(path, *analysis.waits, *analysis.critical_path, error);
  }

  void begin_early(const std::vector<const AlignedRank*>& block, std::size_t threads) override {
    if (threads > 0) head_start_.emplace(block, threads);
  }

  void stop_early() noexcept override {
    if (head_start_) head_start_->stop();
  }

  std::vector<std::size_t> drop_early(const std::function<bool(std::size_t)>& stale) override {
    return head_start_ ? head_start_->drop(stale) : std::vector<std::size_t>{};
  }

  std::uint64_t write(const SinkJob& job) override {
    using DirectIo = BlockFile::DirectIo;
    const DirectIo direct_io =
        job.part_copied_after && job.direct_io == DirectIo::kAuto ? DirectIo::kOff : job.direct_io;
    const PerfettoStats stats = export_perfetto(job.block(), job.path, job.progress, job.helpers,
                                                direct_io, head_start_ ? &*head_start_ : nullptr);
    return stats.slices + stats.instants + stats.counters;
  }

 private:
  std::optional<PerfettoHeadStart> head_start_;
};

}  // namespace

std::unique_ptr<Sink> make_perfetto_sink() { return std::make_unique<PerfettoSink>(); }

}  // namespace rocprof::merge
