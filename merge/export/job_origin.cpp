#include "merge/export/job_origin.hpp"

#include <algorithm>
#include <exception>
#include <limits>

namespace rocprof::merge {
namespace {

// No aligned time comes this near the top of the clock.
constexpr std::uint64_t kFailed = std::numeric_limits<std::uint64_t>::max() - 1;

}  // namespace

std::uint64_t job_origin_ns(const SinkJob& job) {
  std::uint64_t earliest = std::numeric_limits<std::uint64_t>::max();
  std::exception_ptr failure;
  try {
    for (const AlignedRank* rank : job.block())
      earliest = std::min(earliest, rank->first_time_ns());
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

}  // namespace rocprof::merge
