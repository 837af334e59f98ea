// A toy output format, as a newcomer would add one: every MPI call of the merged job as a line
// of tab-separated text (rank, thread, function, begin and end on the reference clock), read
// from the timeline model (merge/timeline/rank_timeline.hpp) as the drawing sinks read it.
// One sink file; registered with one line (toy_merge_main.cpp, or for a built-in format
// merge/export/sink_registry.cpp).
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "merge/export/sink.hpp"
#include "merge/timeline/rank_timeline.hpp"
#include "tests/merge/toy_sink/mpi_call_list_sink.hpp"

namespace rocprof::test {
namespace {

// One rank's lines: the timeline's MPI calls (per-request rows too: `drawn` says which a
// viewer would draw); nothing else of the timeline.
class MpiCallLines {
 public:
  MpiCallLines(std::FILE* out, const merge::AlignedRank& rank) : out_(out), rank_(rank) {}
  std::uint64_t lines() const noexcept { return lines_; }

  void mpi_call(const merge::TimelineMpiCall& call) {
    fmt::print(out_, "{}\t{}\t{}\t{}\t{}\n", rank_.rank(), call.row.thread_id,
               rank_.reader().string(call.row.function), call.row.begin_ns, call.row.end_ns);
    ++lines_;
  }
  void process(const merge::TimelineProcess& /*process*/) {}
  void thread(std::uint32_t /*tid*/, const std::string& /*name*/) {}
  void mark(const merge::TimelineMark& /*mark*/) {}
  void range(const merge::TimelineRange& /*range*/) {}
  void api_call(const merge::TimelineApiCall& /*call*/) {}
  void gpu_work(const merge::TimelineGpuWork& /*work*/) {}
  void counter(const merge::TimelineCounter& /*counter*/) {}

 private:
  std::FILE* out_;
  const merge::AlignedRank& rank_;
  std::uint64_t lines_ = 0;
};

class MpiCallListSink final : public merge::Sink {
 public:
  // Each rank's lines stand alone: a parallel merge writes parts and joins them.
  Parallel parallel() const noexcept override { return Parallel::kParts; }

  std::uint64_t write(const merge::SinkJob& job) override {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(job.path.c_str(), "w"),
                                                        &std::fclose);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", job.path));
    std::uint64_t lines = 0;
    for (const merge::AlignedRank* rank : job.block()) {
      MpiCallLines calls(out.get(), *rank);
      merge::walk_rank_timeline(*rank, calls, merge::TimelineFlows::kNone);
      lines += calls.lines();
      rank->done();
    }
    if (std::fflush(out.get()) != 0 || std::ferror(out.get()) != 0)
      throw std::runtime_error(fmt::format("cannot write {}", job.path));
    return lines;
  }
};

}  // namespace

std::unique_ptr<merge::Sink> make_mpi_call_list_sink() {
  return std::make_unique<MpiCallListSink>();
}

}  // namespace rocprof::test
