// A serial merge: this process checks every file and writes the whole output.
#include <memory>

#include "merge/pipeline/merge_strategy.hpp"

namespace rocprof::merge {
namespace {

class SerialStrategy final : public MergeStrategy {
 public:
  explicit SerialStrategy(const MergeGroup& group) : group_(group) {}

  RankSet check(const MergeOptions& options, const RankSetOptions& set_options,
                EarlyStart& early) override {
    early.make_spill(group_, options.output);
    return RankSet::open(options.inputs, set_options, early.on_checked(), early.on_refused());
  }

  std::optional<std::uint64_t> emit(Sink& sink, SinkJob job,
                                    const std::vector<std::uint64_t>& /*weights*/,
                                    EmitContext /*context*/) override {
    // Errors go up to the pipeline, which tells them.
    return sink.write(job);
  }

 private:
  const MergeGroup& group_;
};

}  // namespace

std::unique_ptr<MergeStrategy> serial_strategy(const MergeGroup& group) {
  return std::make_unique<SerialStrategy>(group);
}

}  // namespace rocprof::merge
