// What a merge that fails while writing leaves behind: nothing. A truncated timeline opens in
// a viewer as if whole (Perfetto and Chrome show what they can), so the output is removed
// rather than left half-written. Armed only once writing starts: a failure before that never
// touches a file the user already had.
#pragma once

#include <cstddef>
#include <string>

namespace rocprof::cli {

class PartialOutput {
 public:
  // `leader`: this process writes the output itself (the others write only their parts).
  PartialOutput(std::string output, bool leader, std::size_t process_index);
  ~PartialOutput();
  PartialOutput(const PartialOutput&) = delete;
  PartialOutput& operator=(const PartialOutput&) = delete;

  void arm() noexcept { armed_ = true; }
  void keep() noexcept { armed_ = false; }  // the merge succeeded

 private:
  std::string output_;
  bool leader_;
  std::size_t process_index_;
  bool armed_ = false;
};

}  // namespace rocprof::cli
