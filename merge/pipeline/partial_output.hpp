// What a merge that fails while writing leaves behind: nothing. A truncated timeline opens in
// a viewer as if whole (Perfetto and Chrome show what they can), so the output is removed
// rather than left half-written. Armed only once writing starts: a failure before that never
// touches a file the user already had.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "merge/files/remove_on_signal.hpp"

namespace rocprof::merge {

class PartialOutput {
 public:
  // `leader`: this process writes the output itself (the others write only their parts).
  // `archive`: the output is an anchor file with NAME.def and the directory NAME/ beside it.
  // `scratch`: where the parts are (MergeOptions::scratch).
  // `linked_parts`: each process writes OUTPUT.parts/INDEX.h5 (SinkJob::linked_parts), the
  // first one the output and that directory.
  PartialOutput(std::string output, bool archive, bool leader, std::size_t process_index,
                std::string scratch = {}, bool linked_parts = false);
  ~PartialOutput();
  PartialOutput(const PartialOutput&) = delete;
  PartialOutput& operator=(const PartialOutput&) = delete;

  // From here on, a failure, or SIGINT/SIGTERM/SIGHUP, removes what was written.
  void arm();
  void keep() noexcept;  // the merge succeeded
  // Removes what was written now (if armed): before MPI_Abort, which runs no destructors.
  void discard() noexcept;
  // After the output is written and closed: what of it is no longer at its path (its
  // directory removed or renamed meanwhile, say: the writes then went to a file nobody can
  // open), or "" if all of it is there.
  std::string missing() const;

 private:
  // What this process writes: files, and an OTF2 archive's directory.
  struct Written {
    std::string path;
    bool directory;
    bool optional = false;  // an archive's NAME.def: OTF2 writes one, per-rank JSON none
  };
  std::vector<Written> written() const;

  std::string output_;
  bool archive_;
  bool leader_;
  std::size_t process_index_;
  std::string scratch_;
  bool linked_parts_;
  bool armed_ = false;
  std::vector<std::unique_ptr<RemoveOnSignal>> on_signal_;
};

}  // namespace rocprof::merge
