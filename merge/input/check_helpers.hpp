// Rank files checked in other processes. HDF5 serves one thread per process, and checking a
// small rank's file is mostly HDF5's own work (open, validate every table, close): 0.2-0.5 ms
// a file, so a job of thousands of ranks spends most of a merge there. Check helpers are this
// program run again (with kCheckHelperArgument), each checking every few files of the list,
// as RankFileReader does here, and sending back each file's digest with its layout
// (RankFileReader::Layout) or its problem. A reader made from that reads the file with
// pread(), as one made here would after the check: the file is not opened again.
//
// A helper that cannot start, or stops before it sent every file's finding, costs nothing
// but time: the files it did not send are checked here.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "merge/input/rank_set.hpp"

namespace rocprof::merge {

// The argument that makes rocprof-merge a check helper (not for users: --help leaves it out).
inline constexpr const char* kCheckHelperArgument = "--internal-rank-file-check-helper";

// A check helper's work: reads its list of files from standard input, checks them in order
// and writes each finding to standard output. Returns the exit code.
int run_check_helper();

// Helpers for the files of one list, which the caller takes in order.
class CheckHelpers {
 public:
  // Starts setting.count helpers for `paths` (none if setting.executable is empty): file i goes to
  // helper i % (count + 1)
  // - 1, and every (count + 1)-th file (i % (count + 1) == 0) is checked here, by take().
  // Fewer are started for few files: each is given at least kFilesPerHelper.
  static constexpr std::size_t kFilesPerHelper = 16;
  CheckHelpers(const CheckHelperSetting& setting, const std::vector<std::string>& paths);
  // Stops the helpers still running and waits for them. (They also end with the thread that
  // started them, PR_SET_PDEATHSIG's unit: construct and destroy on one thread.)
  ~CheckHelpers();
  CheckHelpers(const CheckHelpers&) = delete;
  CheckHelpers& operator=(const CheckHelpers&) = delete;

  // The check of paths[i]: a helper's finding, or checked here (this file is the caller's,
  // or its helper failed). Waits for the helper.
  RankSet::CheckedFile take(std::size_t i);
  // Helpers that started.
  std::size_t running() const noexcept;

 private:
  struct Helper {
    pid_t pid = -1;
    int from = -1;                   // its standard output
    std::vector<std::size_t> files;  // indexes into paths_, in the order it checks them
  };
  void receive();  // the reading thread: every helper's findings, as they come
  std::size_t helper_of(std::size_t i) const;  // helpers_.size() for the caller's files

  std::vector<std::string> paths_;
  std::size_t slots_ = 1;  // helpers asked for, plus the caller
  std::vector<Helper> helpers_;
  int wake_ = -1;  // the destructor writes here to end receive() early
  int wake_reader_ = -1;
  std::mutex mutex_;  // guards what follows
  std::condition_variable arrived_;
  std::vector<std::optional<RankSet::CheckedFile>> found_;
  std::vector<bool> helper_done_;
  std::thread reader_;
};

}  // namespace rocprof::merge
