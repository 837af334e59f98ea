#include "merge/pipeline/failure_text.hpp"

#include "lib/format/rank_file_reader.hpp"

namespace rocprof::merge {

std::string failure_text(const std::exception& error) {
  std::string text = error.what();
  // A file whose damage the check found is refused before merging, with its own hint; one
  // found now lies in a chunk the check did not read.
  if (dynamic_cast<const format::FormatError*>(&error) != nullptr)
    text +=
        " (with --skip-bad every chunk is read at the check, and a file with a damaged one "
        "is left out)";
  return text;
}

}  // namespace rocprof::merge
