// .otf2: an archive the processes write together (OTF2's collective mode), each its ranks'
// event files.
#include <memory>

#include "merge/export/otf2_archive.hpp"
#include "merge/export/sink_registry.hpp"

namespace rocprof::merge {
namespace {

class Otf2Sink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kTogether; }
  bool archive() const noexcept override { return true; }
  std::string target_problem(const std::string& path) const override {
    return otf2_archive_conflict(path);
  }
  std::uint64_t write(const SinkJob& job) override {
    return export_otf2(*job.ranks, job.path, job.progress, job.share).events;
  }
};

}  // namespace

std::unique_ptr<Sink> make_otf2_sink() { return std::make_unique<Otf2Sink>(); }

}  // namespace rocprof::merge
