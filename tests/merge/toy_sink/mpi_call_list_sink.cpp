// A toy output format, as a newcomer would add one: every MPI call of the merged job as a line
// of tab-separated text (rank, thread, function, begin and end on the reference clock).
// One sink file; registered with one line (toy_merge_main.cpp, or for a built-in format
// merge/export/sink_registry.cpp).
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "merge/export/sink.hpp"
#include "tests/merge/toy_sink/mpi_call_list_sink.hpp"

namespace rocprof::test {
namespace {

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
      rank->for_each_mpi_call([&](const format::MpiCallRow& row) {
        fmt::print(out.get(), "{}\t{}\t{}\t{}\t{}\n", rank->rank(), row.thread_id,
                   rank->reader().string(row.function), row.begin_ns, row.end_ns);
        ++lines;
      });
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
