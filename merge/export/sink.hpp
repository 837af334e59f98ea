// An output format of the merge: what the pipeline (merge/pipeline/) hands the aligned,
// corrected ranks to once the messages are matched. A sink decides nothing about the merge
// itself; it says how a parallel merge divides its work, and writes what it is given.
// Formats are found by the output's extension (merge/export/sink_registry.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "merge/analysis/job_analysis.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/files/block_file.hpp"
#include "merge/parallel/active_processes.hpp"
#include "merge/parallel/merge_share.hpp"

namespace rocprof::merge {

// What one merge process writes.
struct SinkJob {
  // Every rank of the job, in rank order, aligned and corrected.
  const std::vector<const AlignedRank*>* ranks = nullptr;
  // This process's block of them: [first_rank, last_rank) (all of them in a serial merge).
  std::size_t first_rank = 0;
  std::size_t last_rank = 0;
  const std::string* job_id = nullptr;
  // Where to write: the output's staging name, or, for a sink written in parts, this
  // process's part (the first part is the output itself).
  std::string path;
  ProgressReport progress;
  // The parallel merge's group operations and this process's place; nullptr when serial.
  const MergeShare* share = nullptr;
  // Threads the sink may run beside the calling one (0: none); its output is the same.
  std::size_t helpers = 0;
  // Direct I/O for large outputs (BlockFile). A part joined into the output right after is
  // read back from the page cache, so it is written through the cache.
  BlockFile::DirectIo direct_io = BlockFile::DirectIo::kAuto;
  bool part_copied_after = false;
  // A parallel merge whose processes each write a file of their own, which the output links
  // (links_parts(), --h5-parts): written to parts_directory(`path`), named by the output
  // relative to its own name once in place (merge/files/staged_output.hpp).
  bool linked_parts = false;
  // The output's file name once in place (`path` is its staging name).
  std::string output_name;

  std::vector<const AlignedRank*> block() const {
    return {ranks->begin() + static_cast<std::ptrdiff_t>(first_rank),
            ranks->begin() + static_cast<std::ptrdiff_t>(last_rank)};
  }
  bool first_part() const noexcept { return share == nullptr || share->leader(); }
  bool last_part() const noexcept {
    return share == nullptr || share->index + 1 == static_cast<std::size_t>(share->processes);
  }
};

// Thrown by a sink in a parallel merge when another process failed in a step they take
// together (that process tells why): this one stops without a word of its own.
struct OtherProcessFailed : std::runtime_error {
  OtherProcessFailed() : std::runtime_error("another merge process failed") {}
};

class Sink {
 public:
  // How a parallel merge writes the output.
  enum class Parallel {
    // Each process writes its block of ranks as a part; the parts, concatenated in process
    // order, are the serial output.
    kParts,
    // The processes write one output together (through the share's group operations).
    kTogether,
  };

  Sink() = default;
  virtual ~Sink() = default;
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  virtual Parallel parallel() const noexcept = 0;
  // The output is an archive: an anchor file NAME.ext with NAME.def and the directory NAME/
  // beside it, staged, committed and removed together.
  virtual bool archive() const noexcept { return false; }
  // In parallel, the sink can write each process's block as a file of its own, which the
  // output links (OUTPUT.parts/ beside it, staged and committed with it): SinkJob::linked_parts.
  virtual bool links_parts() const noexcept { return false; }
  // Why the output cannot be written at `path` safely, beyond what holds for every file (a
  // writable directory), or "" if it can. Asked before any work.
  virtual std::string target_problem(const std::string& path) const {
    static_cast<void>(path);
    return {};
  }

  // Optional work while the processes match the messages: `block` (this process's
  // ranks, times not yet corrected) on up to `threads` threads.
  virtual void begin_early(const std::vector<const AlignedRank*>& block, std::size_t threads) {
    static_cast<void>(block);
    static_cast<void>(threads);
  }
  // The matching is done: early work stops (before the ranks' corrections change).
  virtual void stop_early() noexcept {}
  // Drops the early work on the ranks `stale` names (by index in the block: those the
  // matching changed). Returns the indices of those dropped after they were read (whatever
  // watched their rows saw them once already).
  virtual std::vector<std::size_t> drop_early(const std::function<bool(std::size_t)>& stale) {
    static_cast<void>(stale);
    return {};
  }

  // Writes this process's share; returns the events it wrote (the processes' counts add up
  // to the output's). Throws std::runtime_error naming the file on errors.
  virtual std::uint64_t write(const SinkJob& job) = 0;

  // The first process's share of the ranks in a parallel merge of `processes`, of an equal
  // share (MergeGroup::set_first_share): below 1 for a format whose first process also
  // writes what the others encode (`linked_parts`: SinkJob::linked_parts).
  virtual double first_process_share(int processes, bool linked_parts) const noexcept {
    static_cast<void>(processes);
    static_cast<void>(linked_parts);
    return 1.0;
  }

  // CPUs each merging process should have where a node's processes share their CPUs
  // (merge/parallel/active_processes.hpp): a format whose parts are written side by side
  // gains from more processes than one whose first process writes what the others encode.
  virtual std::uint32_t cpus_per_merging_process(bool linked_parts) const noexcept {
    static_cast<void>(linked_parts);
    return kCpusPerMergingProcess;
  }

  // Adds the analysis to the finished output at `path` (the first merge process, after the
  // summary), for a format that stores it; false with `error`.
  virtual bool add_analysis(const std::string& path, const JobAnalysis& analysis,
                            std::string& error) const {
    static_cast<void>(path);
    static_cast<void>(analysis);
    static_cast<void>(error);
    return true;
  }

  // A word to the user before the output is written, from the job's `records` (all ranks),
  // or "": what the output will be like, while there is still time to choose another.
  virtual std::string advice_before(const std::string& output, std::uint64_t records) const {
    static_cast<void>(output);
    static_cast<void>(records);
    return {};
  }
};

}  // namespace rocprof::merge
