// .db: a rocpd database (rocprofiler-sdk's SQLite format). In parallel every process writes its
// block of ranks as a database of its own and the first adds them to the output.
#include <memory>

#include "merge/export/rocpd_analysis.hpp"
#include "merge/export/rocpd_export.hpp"
#include "merge/export/sink_registry.hpp"

namespace rocprof::merge {
namespace {

class RocpdSink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kTogether; }
  std::uint64_t write(const SinkJob& job) override {
    return export_rocpd(*job.ranks, job.first_rank, job.last_rank, *job.job_id, job.path,
                        job.progress, job.share);
  }
  bool add_analysis(const std::string& path, const JobAnalysis& analysis,
                    std::string& error) const override {
    return add_analysis_to_rocpd(path, analysis, error);
  }
};

}  // namespace

std::unique_ptr<Sink> make_rocpd_sink() { return std::make_unique<RocpdSink>(); }

}  // namespace rocprof::merge
