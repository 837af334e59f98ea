#include "cli/merge/partial_output.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace rocprof::cli {

namespace fs = std::filesystem;

PartialOutput::PartialOutput(std::string output, bool leader, std::size_t process_index)
    : output_(std::move(output)), leader_(leader), process_index_(process_index) {}

PartialOutput::~PartialOutput() {
  if (!armed_) return;
  std::error_code ignored;
  // This process's part of a parallel .pftrace/.json (the first writes in place).
  fs::remove(fmt::format("{}.part{}", output_, process_index_), ignored);
  if (!leader_) return;
  const fs::path path(output_);
  fs::remove(path, ignored);
  if (path.extension() == ".otf2") {
    // The rest of the archive: its definitions and its directory of .evt/.def files (the
    // directory held nothing else, or the merge would have refused to start).
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    fs::remove(parent / (path.stem().string() + ".def"), ignored);
    fs::remove_all(parent / path.stem(), ignored);
  }
}

}  // namespace rocprof::cli
