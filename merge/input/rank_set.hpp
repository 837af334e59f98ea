// The rank files of one traced job, opened and checked together before any merging: each is a
// readable rank file of a supported version, no rank appears twice, all belong to one job,
// and every rank of the job is there (unless told to go on without some).
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/format/rank_file_reader.hpp"

namespace rocprof::merge {

// Check helpers (merge/input/check_helpers.hpp): this program's path, and at most how many
// to start; none if empty or 0. What the check finds is the same either way.
struct CheckHelperSetting {
  std::string executable;
  std::size_t count = 0;
  // A helper that spends longer on one file is stopped: HDF5 loops for ever on some damaged
  // files, and the file is then reported damaged.
  std::chrono::milliseconds file_timeout{60'000};
  // Read every chunk of each file too (RankFileReader::verify_every_chunk), so that a
  // damaged chunk is found at the check, where --skip-bad can leave its file out, and not
  // halfway through the merge.
  bool every_chunk = false;
};

struct RankSetOptions {
  bool allow_missing = false;  // go on when ranks of the job have no file
  bool skip_bad = false;       // go on without files that cannot be read
  CheckHelperSetting check_helpers;
};

// What stops a merge before it starts; what() says which file and why.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RankSet {
 public:
  struct Rank {
    std::int32_t rank = -1;
    std::string path;
    std::unique_ptr<format::RankFileReader> reader;
    bool checked_here = true;  // false: another merge process checked it (and spills it)
  };
  // Called for each file that passed its checks (its reader released), in file order, while
  // the next ones are checked: work on it may start early. The set as a whole may still be
  // refused afterwards.
  using Checked = std::function<void(std::int32_t rank, const format::RankFileReader& reader)>;
  // Called when the set is refused (InputError), before the readers `checked` saw go: work
  // started on them must end there.
  using Refused = std::function<void()>;
  // Calls a Refused if it goes while an exception leaves its scope: declare it after the
  // readers, so that it goes (and calls) before them.
  class OnRefusal {
   public:
    explicit OnRefusal(Refused refused)
        : refused_(std::move(refused)), exceptions_(std::uncaught_exceptions()) {}
    ~OnRefusal();
    OnRefusal(const OnRefusal&) = delete;
    OnRefusal& operator=(const OnRefusal&) = delete;

   private:
    Refused refused_;
    int exceptions_;
  };

  // `inputs`: directories (their *.h5 files) and files. Throws InputError.
  static RankSet open(const std::vector<std::string>& inputs, const RankSetOptions& options,
                      const Checked& checked = {}, const Refused& refused = {});

  // For a parallel merge, whose processes check a share of the files each and exchange what
  // they found. Every input file, in the order open() checks them (throws InputError):
  static std::vector<std::string> list(const std::vector<std::string>& inputs);
  // The same files in the order their names number them ("2.h5" before "10.h5"): rank order
  // for the recorder's names, so that a process checks the files it will read.
  static std::vector<std::size_t> numbered_order(const std::vector<std::string>& paths);
  // One file's check: a reader (of the file, or of another process's digest of it), or the
  // problem found (FormatError::what()).
  struct CheckedFile {
    std::unique_ptr<format::RankFileReader> reader;
    std::string problem;
    bool elsewhere = false;  // checked by another merge process
  };
  // The set from every file's check, `files[i]` for `paths[i]`: the same set, or the same
  // InputError, as open() on those files.
  static RankSet assemble(const std::vector<std::string>& paths, std::vector<CheckedFile> files,
                          const RankSetOptions& options, const Refused& refused = {});
  // Replaces the reader of ranks()[index], if made from a digest, by one of the file itself
  // (checked again): for the ranks this process reads. Throws FormatError.
  void open_here(std::size_t index);
  // In rank order.
  const std::vector<Rank>& ranks() const noexcept { return ranks_; }
  // What merging each rank costs, roughly, in the order of ranks(): its rows, an MPI call, API
  // call or device activity counting three (a slice with its flows and requests), any other
  // row one (two markers make one range). Parallel merges cut their blocks of ranks by it.
  std::vector<std::uint64_t> weights() const;
  // Every rank's rows (records) together.
  std::uint64_t records() const;
  const std::string& job_id() const noexcept { return job_id_; }
  std::int32_t job_size() const noexcept { return job_size_; }
  // One line each: what was left out and why (with --skip-bad / --allow-missing).
  const std::vector<std::string>& skipped() const noexcept { return skipped_; }
  // The ranks the run chose not to trace (rocprof-mpi --mpi-ranks), said in a line; "" if none.
  const std::string& untraced() const noexcept { return untraced_; }
  // Traced ranks of the job that have no file (let go with --allow-missing or --skip-bad).
  std::size_t missing_ranks() const noexcept { return missing_ranks_; }

 private:
  // Takes one checked file (in list order) into the set, or throws InputError; finish()
  // sorts by rank and looks for missing ranks.
  void admit(const std::string& path, CheckedFile file, const RankSetOptions& options,
             std::size_t file_count, std::map<std::int32_t, std::string>& seen,
             const Checked& checked);
  void finish(const RankSetOptions& options, std::map<std::int32_t, std::string>& seen,
              const Checked& checked);
  // Takes a rank's file whose rank is not yet in `seen`.
  void accept(Rank rank, std::map<std::int32_t, std::string>& seen, const Checked& checked);

  std::vector<Rank> ranks_;
  std::string job_id_;
  std::int32_t job_size_ = -1;
  std::vector<std::string> skipped_;
  std::size_t unreadable_skipped_ = 0;  // files left out with --skip-bad
  std::size_t missing_ranks_ = 0;
  // Files of programs a rank started (parent_pid set): taken after the others, only for a
  // rank that has no file of its own.
  std::vector<Rank> descendants_;
  std::string untraced_;
};

}  // namespace rocprof::merge
