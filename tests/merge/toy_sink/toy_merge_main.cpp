// rocprof-merge with one more output format, the toy sink's ".calls": what a program that
// adds a format does. Usage: toy_merge DIR -o OUTPUT.calls (serially, or under mpirun).
#include <cstdio>
#include <string>
#include <string_view>

#include "merge/export/sink_registry.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/pipeline/merge_pipeline.hpp"
#include "tests/merge/toy_sink/mpi_call_list_sink.hpp"

namespace {

// No bar, no timings: the pipeline's phases go nowhere.
class Silent final : public rocprof::merge::PhaseReport {
 public:
  void phase(std::string /*label*/) override {}
  void update(std::size_t /*done*/, std::size_t /*total*/) override {}
  void clear() override {}
  const rocprof::merge::PhaseTimes& timings() const noexcept override { return none_; }

 private:
  rocprof::merge::PhaseTimes none_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || std::string_view(argv[2]) != "-o") {
    std::fprintf(stderr, "usage: %s DIR -o OUTPUT.calls\n", argv[0]);
    return 2;
  }
  rocprof::merge::sinks().add({".calls", "MPI call list", rocprof::test::make_mpi_call_list_sink});
  rocprof::merge::MergeOptions options;
  options.inputs = {argv[1]};
  options.output = argv[3];
  options.quiet = true;
  rocprof::merge::MergePipeline pipeline(options, true);
  rocprof::merge::MergeGroup group(&argc, &argv);
  Silent report;
  return pipeline.run(group, report);
}
