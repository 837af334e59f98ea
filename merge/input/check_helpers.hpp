// Rank files checked in other processes. HDF5 may crash on a damaged file (a corrupt global
// heap under the string table, a corrupt chunk index), and a crash must cost that file, not
// the merge: every file is checked by a check helper, this program run again (with
// kCheckHelperArgument), which sends back each file's digest with its layout
// (RankFileReader::Layout: every table's chunks located) or its problem. A reader made from
// that reads the file with pread(), never through HDF5 in the merge process (except a table
// whose filters the merge's decoder does not know). Helpers also spread the checking, HDF5's
// own work on each file, over several processes.
//
// A helper that greeted and then ended abnormally before its finding on a file died reading
// that file: the file is damaged (its problem says so) and a new helper takes the files after
// it. So does one that spends longer than the setting's file_timeout on a file (stopped: HDF5
// loops for ever on some damaged files). A helper that cannot start, or ends cleanly or says
// something no helper says before it sent every finding, costs nothing but time: the files it did
// not send are checked here.
#pragma once

#include <sys/types.h>

#include <chrono>
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
// After it: check every chunk of each file (CheckHelperSetting::every_chunk).
inline constexpr const char* kEveryChunkArgument = "every-chunk";

// A check helper's work: reads its list of files from standard input, checks them in order
// (`every_chunk`: each chunk read too) and writes each finding to standard output. Returns
// the exit code.
int run_check_helper(bool every_chunk);

// Helpers for the files of one list, which the caller takes in order.
class CheckHelpers {
 public:
  // Starts up to setting.count helpers for `paths`, at least one (none if setting.executable
  // is empty: every file is then checked here, by take()); file i goes to helper i % count.
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
    std::size_t first = 0;           // files[first] is the first of its process's list
  };
  // Starts a process for helper.files[first...]; false if it cannot start.
  bool spawn(Helper& helper, std::size_t first) const;
  void send_list(const Helper& helper) const;
  void receive();  // the reading thread: every helper's findings, as they come
  std::size_t helper_of(std::size_t i) const;

  std::vector<std::string> paths_;
  std::string executable_;
  std::chrono::milliseconds file_timeout_;
  bool every_chunk_ = false;
  std::size_t started_ = 0;  // helpers started by the constructor
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
