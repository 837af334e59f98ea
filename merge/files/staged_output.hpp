// A merge's output is written under a staging name beside it (created exclusively, named at
// random) and moved into place once whole: a merge that exits 0 leaves a complete file, and
// two merges writing one output each leave a complete one (the last to finish) instead of
// one file both wrote into. An archive (an OTF2 archive: NAME.otf2, NAME.def, NAME/) is staged
// as .NAME.XXXXXXXXXXXX.otf2 etc. and moved piece by piece, its anchor file last. An output
// with parts (a linked .h5: OUT.h5 and the directory OUT.h5.parts/) is staged as STAGED and
// STAGED.parts/, its directory moved first.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "merge/files/remove_on_signal.hpp"

namespace rocprof::merge {

// The directory of an output's parts (OUTPUT.parts), and part `index` in it (INDEX.h5): for
// `output` a path, or a file name (how the output names its parts, relative to itself).
std::string parts_directory(const std::string& output);
std::string linked_part_path(const std::string& output, std::size_t index);

class StagedOutput {
 public:
  // Creates the staging file beside `output` (removed on SIGINT/SIGTERM/SIGHUP, and when this
  // goes uncommitted). Throws std::runtime_error naming it and the reason.
  // `archive`: the output is an anchor file with NAME.def and the directory NAME/ beside it.
  // `parts`: the output has the directory parts_directory(OUTPUT) beside it.
  StagedOutput(std::string output, bool archive, bool parts = false);
  // Another merge process's view of the staging file the first one created: it writes there
  // (or beside it) but neither moves nor removes it.
  StagedOutput(std::string output, bool archive, std::string staged, bool parts = false);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  // Where the output is written (for .otf2: the archive's anchor file).
  const std::string& path() const noexcept { return staged_; }
  // Moves what was written into place: "" once done, or why not (what was staged is then
  // removed).
  std::string commit();
  // `text` with staging names replaced by the output's: messages name what the user gave.
  std::string tell(std::string text) const;

 private:
  void remove_staged() const noexcept;
  void set_stems(bool archive);

  std::string output_;
  std::string staged_;
  std::string staged_stem_;  // .otf2: the staged archive's path without .otf2
  std::string output_stem_;
  bool parts_ = false;  // the stems are the parts' directories
  bool owner_ = false;
  bool committed_ = false;
  std::unique_ptr<RemoveOnSignal> on_signal_;
};

}  // namespace rocprof::merge
