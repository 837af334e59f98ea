// One rank's records with timestamps moved to the reference rank's clock, read a block at a
// time (never the whole file), for summaries and exporters.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lib/format/prefetch_cursor.hpp"
#include "lib/format/rank_file_reader.hpp"
#include "merge/clock/clock_model.hpp"
#include "merge/clock/step_function.hpp"
#include "merge/events/open_ranges.hpp"

namespace rocprof::merge {

class StreamTable;

// A ROC-TX push/pop (or start/stop) range with aligned times.
struct Range {
  std::uint32_t thread_id;
  std::uint32_t level;
  format::StringId name;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  bool nested;  // push/pop and user regions nest by level; start/stop ranges do not
  bool region;  // a user region (rocprofsys_user_push_region)
  std::uint64_t id;
};

// Counts the ranges that a rank's markers pair into, by the pairing rule of
// AlignedRank::for_each_marker, from their kind, thread and id alone: fed every marker row in
// the order of the table, by a pass that reads the markers for something else.
class RangeCounter {
 public:
  void add(const format::MarkerRow& row);
  std::uint64_t count() const noexcept { return count_; }

 private:
  OpenRanges<bool> open_;  // by range_key
  std::uint64_t count_ = 0;
};

class AlignedRank {
 public:
  AlignedRank(std::int32_t rank, const format::RankFileReader& reader);
  ~AlignedRank();
  AlignedRank(AlignedRank&& other) noexcept;  // while no read-ahead is under way
  AlignedRank& operator=(AlignedRank&&) = delete;
  AlignedRank(const AlignedRank&) = delete;
  AlignedRank& operator=(const AlignedRank&) = delete;

  std::int32_t rank() const noexcept { return rank_; }
  const format::RankFileReader& reader() const noexcept { return reader_; }
  const ClockModel& clock() const noexcept { return clock_; }

  // Times are aligned and corrected on the reference clock moved kInternalBase later, so that
  // a rank whose offsets put it hours before the reference clock's zero (a wrong sample)
  // stays positive while the causality correction moves it; outputs then move every rank
  // back by the job's time base (set_time_base): kInternalBase unless some corrected time
  // would still be negative, the earliest time otherwise.
  static constexpr std::uint64_t kInternalBase = std::uint64_t{1} << 62;
  // Local time -> reference clock, plus the causality correction in force at that time.
  std::uint64_t align(std::uint64_t local_ns) const noexcept {
    const std::uint64_t corrected = align_corrected(clock_.to_reference(local_ns));
    return corrected > time_base_ ? corrected - time_base_ : 0;
  }
  // align() for one pass over the rank's rows, whose times come mostly in order: the same
  // results without a search per time, and uncorrected (the internal reference clock only,
  // what the causality correction works on). One per thread.
  class Aligner {
   public:
    explicit Aligner(const AlignedRank& rank) noexcept
        : clock_(rank.clock_), correction_(*rank.correction_), time_base_(rank.time_base_) {}
    std::uint64_t align(std::uint64_t local_ns) noexcept {
      const std::uint64_t aligned = align_uncorrected(local_ns);
      const std::uint64_t corrected = aligned + correction_.at(aligned);
      return corrected > time_base_ ? corrected - time_base_ : 0;
    }
    std::uint64_t align_uncorrected(std::uint64_t local_ns) noexcept {
      // Unsigned arithmetic: a time before the reference clock's zero wraps, and adding the
      // base brings it back, exactly.
      return clock_.to_reference(local_ns) + kInternalBase;
    }

   private:
    ClockModel::Lookup clock_;
    StepFunction::Lookup correction_;
    std::uint64_t time_base_;
  };
  // Shared with the matching's report (a large job's corrections are not copied per rank).
  void set_correction(std::shared_ptr<const StepFunction> correction) {
    if (correction) correction_ = std::move(correction);
  }
  // What outputs subtract from the internal times (the same for every rank of a job).
  void set_time_base(std::uint64_t base) noexcept { time_base_ = base; }
  std::uint64_t time_base() const noexcept { return time_base_; }
  // Earliest corrected internal time of any record (as first_time_ns), UINT64_MAX if none.
  std::uint64_t first_internal_ns() const;
  // The corrected internal time of the rank's start (no record is earlier, and aligning
  // keeps order): what the job's time base is chosen from, without reading a row.
  std::uint64_t start_internal_ns() const noexcept {
    return align_corrected(clock_.to_reference(reader_.metadata().start_clock_ns));
  }

  // The job's message streams (set by the merge after matching): exporters number each
  // rank's messages by stream to draw one flow per matched message.
  void set_streams(std::shared_ptr<const StreamTable> streams) { streams_ = std::move(streams); }
  const StreamTable* streams() const noexcept { return streams_.get(); }
  // Set by the merge for a rank whose calls came from several threads (its spill said so):
  // its messages are numbered in each stream in the order they were posted.
  void set_threaded(bool threaded) noexcept { threaded_ = threaded; }
  bool threaded() const noexcept { return threaded_; }
  const StepFunction& correction() const noexcept { return *correction_; }

  // Each visitor gets rows with begin/end (or timestamp) already aligned. The rank's file
  // stays open between visits (opening costs more than a small rank's reading): call
  // done() when finished with the rank.
  void for_each_mpi_call(const std::function<void(const format::MpiCallRow&)>& visit) const;
  void for_each_api_call(const std::function<void(const format::ApiCallRow&)>& visit) const;
  void for_each_activity(const std::function<void(const format::ActivityRow&)>& visit) const;
  // Device counter samples (every session's, in the order recorded), times aligned.
  void for_each_counter_sample(
      const std::function<void(const format::CounterSampleRow&)>& visit) const;
  // Marks (instants) and completed ranges, in the order their end is recorded.
  void for_each_marker(const std::function<void(const format::MarkerRow&)>& mark,
                       const std::function<void(const Range&)>& range) const;

  // How many ranges for_each_marker hands out, from the markers' kind, thread and id only (no
  // timestamps aligned, no read-ahead block used, nothing watched). Reads without HDF5, on any
  // thread, when the reader reads the marker table so; else on the thread that calls HDF5.
  std::uint64_t range_count() const;

  // Something that sees every MPI call, completed range and device activity the visitors
  // above hand out, whoever asked for them: a summary gathered while an exporter reads the
  // rank, instead of in a pass of its own. Rows come a block at a time (what the reader
  // decoded at once), before they are visited. Empty functions: nothing watches.
  struct Watcher {
    std::function<void(std::span<const format::MpiCallRow>)> mpi_calls;
    std::function<void(std::span<const Range>)> ranges;
    std::function<void(std::span<const format::ActivityRow>)> activities;
    std::function<void(std::span<const format::CounterSampleRow>)> counter_samples;
    std::function<void(std::span<const format::ApiCallRow>)> api_calls;
    // The function for rows of type Row; null for a type nothing watches (markers).
    template <typename Row>
    const std::function<void(std::span<const Row>)>* for_rows() const {
      if constexpr (std::is_same_v<Row, format::MpiCallRow>) return &mpi_calls;
      if constexpr (std::is_same_v<Row, Range>) return &ranges;
      if constexpr (std::is_same_v<Row, format::ActivityRow>) return &activities;
      if constexpr (std::is_same_v<Row, format::CounterSampleRow>) return &counter_samples;
      if constexpr (std::is_same_v<Row, format::ApiCallRow>) return &api_calls;
      return nullptr;
    }
  };
  void watch(Watcher watcher) const { watcher_ = std::move(watcher); }
  // For exporters that read the rank's tables themselves: they hand the watcher what the
  // visitors above would (aligned rows, the rank's own string ids).
  const Watcher& watcher() const noexcept { return watcher_; }

  // Reads the first chunk of each table the visitors above read, on a helper thread, for
  // the visits that follow: an exporter calls it for the next rank while it writes this one.
  // A small rank's tables are one chunk each, read on the merge's thread otherwise. Only
  // tables that read without HDF5 are read ahead (so any thread may call it, one at a time
  // for a rank); a damaged chunk, or a file that cannot be opened again, is reported by the
  // visit.
  void read_ahead() const noexcept;

  void done() const noexcept;

  // Earliest aligned time of any record (for a common origin), or UINT64_MAX if none.
  std::uint64_t first_time_ns() const;

 private:
  template <typename Row>
  typename format::PrefetchCursor<Row>::Prepare aligner() const;
  struct FirstBlocks;
  // The first block read ahead for Row's table, or nullptr (waits for the helper first).
  template <typename Row>
  std::vector<Row>* first_block() const;

  std::int32_t rank_;
  const format::RankFileReader& reader_;
  // The internal reference time (kInternalBase later), plus the correction in force then.
  std::uint64_t align_corrected(std::uint64_t reference_ns) const noexcept {
    const std::uint64_t aligned = reference_ns + kInternalBase;
    return aligned + correction_->at(aligned);
  }

  ClockModel clock_;
  std::shared_ptr<const StepFunction> correction_ = std::make_shared<const StepFunction>();
  std::uint64_t time_base_ = kInternalBase;
  bool threaded_ = false;
  std::shared_ptr<const StreamTable> streams_;
  mutable std::unique_ptr<FirstBlocks> first_;  // while read ahead, until done()
  mutable Watcher watcher_;
};

}  // namespace rocprof::merge
