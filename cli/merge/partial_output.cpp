#include "cli/merge/partial_output.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace rocprof::cli {

namespace fs = std::filesystem;

PartialOutput::PartialOutput(std::string output, bool leader, std::size_t process_index)
    : output_(std::move(output)), leader_(leader), process_index_(process_index) {}

namespace {
std::string part_path(const std::string& output, std::size_t index) {
  return fmt::format("{}.part{}", output, index);
}
}  // namespace

void PartialOutput::arm() {
  armed_ = true;
  on_signal_.push_back(std::make_unique<merge::RemoveOnSignal>(part_path(output_, process_index_)));
  if (!leader_) return;
  on_signal_.push_back(std::make_unique<merge::RemoveOnSignal>(output_));
  const fs::path path(output_);
  if (path.extension() == ".otf2") {
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    on_signal_.push_back(std::make_unique<merge::RemoveOnSignal>(
        (parent / (path.stem().string() + ".def")).string()));
    // The archive's directory of event and local definition files.
    on_signal_.push_back(
        std::make_unique<merge::RemoveOnSignal>((parent / path.stem()).string(), true));
  }
}

void PartialOutput::keep() noexcept {
  armed_ = false;
  on_signal_.clear();
}

PartialOutput::~PartialOutput() { discard(); }

void PartialOutput::discard() noexcept {
  if (!armed_) return;
  armed_ = false;
  std::error_code ignored;
  // This process's part of a parallel .pftrace/.json (the first writes in place).
  fs::remove(part_path(output_, process_index_), ignored);
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
