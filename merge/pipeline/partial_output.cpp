#include "merge/pipeline/partial_output.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "merge/files/staged_output.hpp"
#include "merge/parallel/merge_group.hpp"

namespace rocprof::merge {

namespace fs = std::filesystem;

PartialOutput::PartialOutput(std::string output, bool archive, bool leader,
                             std::size_t process_index, std::string scratch, bool linked_parts)
    : output_(std::move(output)),
      archive_(archive),
      leader_(leader),
      process_index_(process_index),
      scratch_(std::move(scratch)),
      linked_parts_(linked_parts) {}

std::vector<PartialOutput::Written> PartialOutput::written() const {
  // Only its part of a parallel .pftrace/.json (the first writes its part as the output), or
  // of a linked .h5 (the first writes the output and makes the parts' directory).
  if (linked_parts_ && !leader_) return {{linked_part_path(output_, process_index_), false}};
  if (!leader_) return {{part_path(output_, static_cast<int>(process_index_), scratch_), false}};
  std::vector<Written> paths = {{output_, false}};
  if (linked_parts_) paths.push_back({parts_directory(output_), true});
  const fs::path path(output_);
  if (archive_) {
    // The rest of the archive: its definitions (if any) and its directory of files (the
    // directory held nothing else, or the merge would have refused to start).
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    paths.push_back({(parent / (path.stem().string() + ".def")).string(), false, true});
    paths.push_back({(parent / path.stem()).string(), true});
  }
  return paths;
}

void PartialOutput::arm() {
  armed_ = true;
  for (const Written& file : written())
    on_signal_.push_back(std::make_unique<RemoveOnSignal>(file.path, file.directory));
}

void PartialOutput::keep() noexcept {
  armed_ = false;
  on_signal_.clear();
}

std::string PartialOutput::missing() const {
  std::error_code code;
  for (const Written& file : written())
    if (!file.optional && !fs::exists(file.path, code))
      return fmt::format(
          "{} was written but is no longer there (removed, or its directory removed or "
          "renamed, during the merge)",
          file.path);
  return "";
}

PartialOutput::~PartialOutput() { discard(); }

void PartialOutput::discard() noexcept {
  if (!armed_) return;
  armed_ = false;
  std::error_code ignored;
  for (const Written& file : written()) {
    if (file.directory)
      fs::remove_all(file.path, ignored);
    else
      fs::remove(file.path, ignored);
  }
}

}  // namespace rocprof::merge
