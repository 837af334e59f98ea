// One rank's records with timestamps moved to the reference rank's clock, read a block at a
// time (never the whole file), for summaries and exporters.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lib/format/rank_file_reader.hpp"
#include "merge/clock/clock_model.hpp"

namespace rocprof::merge {

// A ROC-TX push/pop (or start/stop) range with aligned times.
struct Range {
  std::uint32_t thread_id;
  std::uint32_t level;
  format::StringId name;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  bool nested;  // push/pop and user regions nest by level; start/stop ranges do not
};

class AlignedRank {
 public:
  AlignedRank(std::int32_t rank, const format::RankFileReader& reader);

  std::int32_t rank() const noexcept { return rank_; }
  const format::RankFileReader& reader() const noexcept { return reader_; }
  const ClockModel& clock() const noexcept { return clock_; }
  // Local time -> reference clock, plus the causality correction in force at that time.
  std::uint64_t align(std::uint64_t local_ns) const noexcept {
    const std::uint64_t aligned = clock_.to_reference(local_ns);
    return aligned + correction_at(aligned);
  }
  // From reference time `at_ns` (aligned, corrected) on, add `shift_ns` more.
  void add_correction_step(std::uint64_t at_ns, std::uint64_t shift_ns);
  std::uint64_t correction_at(std::uint64_t aligned_ns) const noexcept;
  std::uint64_t max_correction() const noexcept {
    return steps_.empty() ? 0 : steps_.back().second;
  }

  // Each visitor gets rows with begin/end (or timestamp) already aligned.
  void for_each_mpi_call(const std::function<void(const format::MpiCallRow&)>& visit) const;
  void for_each_api_call(const std::function<void(const format::ApiCallRow&)>& visit) const;
  void for_each_activity(const std::function<void(const format::ActivityRow&)>& visit) const;
  // Marks (instants) and completed ranges, in the order their end is recorded.
  void for_each_marker(const std::function<void(const format::MarkerRow&)>& mark,
                       const std::function<void(const Range&)>& range) const;

  // Earliest aligned time of any record (for a common origin), or UINT64_MAX if none.
  std::uint64_t first_time_ns() const;

 private:
  std::int32_t rank_;
  const format::RankFileReader& reader_;
  ClockModel clock_;
  // Non-decreasing steps (reference time, cumulative shift), sorted by time.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> steps_;
};

}  // namespace rocprof::merge
