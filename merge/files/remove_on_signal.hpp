// Files a merge removes if it is stopped by SIGINT, SIGTERM or SIGHUP (Ctrl-C, scancel, a lost
// terminal): the message spill, the parts of a parallel merge, an output being written, an
// OTF2 archive's directory. Each RemoveOnSignal names one file (or directory) for as long as
// it lives; the signal handler removes every named one, then lets the signal take its course
// (the handler that was there before, or the default action: the process ends by that signal).
#pragma once

#include <memory>
#include <string>

namespace rocprof::merge {

class RemoveOnSignal {
 public:
  // At most kSlots files at once; past that, a file is simply not removed on a signal.
  static constexpr int kSlots = 16;

  // A file; or, with `directory`, a directory of files (an OTF2 archive's): its files are
  // unlinked, then the directory (one level: a subdirectory stops it).
  explicit RemoveOnSignal(const std::string& path, bool directory = false);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  std::unique_ptr<char[]> path_;  // a stable C string for the handler
  int slot_ = -1;
};

}  // namespace rocprof::merge
