// .h5: every process encodes its block's chunks, the first writes them all, and adds the
// analysis at the end; or (--h5-parts) each process writes its block as a file of its own,
// which the output links.
#include <algorithm>
#include <memory>

#include "merge/export/merged_hdf5.hpp"
#include "merge/export/merged_hdf5_analysis.hpp"
#include "merge/export/sink_registry.hpp"

namespace rocprof::merge {
namespace {

constexpr double kWriteCost = 1.0 / 30;

class MergedHdf5Sink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kTogether; }
  bool links_parts() const noexcept override { return true; }
  std::uint64_t write(const SinkJob& job) override {
    // Chunks compressed at once: one helper at least; the next ranks' rows made ready on the
    // rest.
    const std::size_t encoders = std::max<std::size_t>(job.helpers, 1);
    if (job.linked_parts && job.share != nullptr)
      return export_linked_merged_hdf5(*job.ranks, *job.job_id, job.path, job.output_name,
                                       job.progress, *job.share, encoders, job.helpers);
    return export_merged_hdf5(*job.ranks, *job.job_id, job.path, job.progress, job.share, encoders,
                              job.helpers);
  }
  // The first process writes every chunk the others encode, and takes that much less of
  // the ranks (writing a chunk against making it: kWriteCost, measured in
  // docs/PERFORMANCE.md); linked parts are each written by their own process.
  double first_process_share(int processes, bool linked_parts) const noexcept override {
    if (linked_parts) return 1.0;
    return std::clamp(1.0 - (processes - 1) * kWriteCost, 0.0, 1.0);
  }
  // The first process writes every chunk: more encoders than a few per node only queue for it
  // (docs/PERFORMANCE.md, the merge by process count).
  std::uint32_t cpus_per_merging_process(bool linked_parts) const noexcept override {
    return linked_parts ? kCpusPerMergingProcess : kCpusPerSingleWriterProcess;
  }
  bool add_analysis(const std::string& path, const JobAnalysis& analysis,
                    std::string& error) const override {
    return add_analysis_to_merged_hdf5(path, analysis, error);
  }
};

}  // namespace

std::unique_ptr<Sink> make_merged_hdf5_sink() { return std::make_unique<MergedHdf5Sink>(); }

}  // namespace rocprof::merge
