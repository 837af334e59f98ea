#include "merge/files/staged_output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "merge/files/exclusive_file.hpp"

namespace rocprof::merge {

namespace fs = std::filesystem;

namespace {

// The output's path without its extension: an archive's stem (NAME of NAME.otf2).
std::string stem_path(const std::string& path) {
  const fs::path p(path);
  return (p.parent_path() / p.stem()).string();
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

std::string parts_directory(const std::string& output) { return output + ".parts"; }

std::string linked_part_path(const std::string& output, std::size_t index) {
  return fmt::format("{}/{}.h5", parts_directory(output), index);
}

StagedOutput::StagedOutput(std::string output, bool archive, bool parts)
    : output_(std::move(output)), parts_(parts), owner_(true) {
  const fs::path path(output_);
  // Hidden, and not named *.h5: a directory of rank files merged meanwhile leaves it out. An
  // archive keeps its extension (its anchor file names its directory).
  const std::string prefix =
      (path.parent_path() / ("." + (archive ? path.stem() : path.filename()).string())).string();
  const std::string suffix = archive ? path.extension().string() : ".tmp";
  for (int attempt = 0;; ++attempt) {
    staged_ = unique_name(prefix, suffix);
    // Named for removal before it exists: a signal in between must not leave it.
    on_signal_ = std::make_unique<RemoveOnSignal>(staged_);
    const int fd = create_exclusive(staged_);
    if (fd >= 0) {
      ::close(fd);
      break;
    }
    if (errno != EEXIST || attempt == 8)
      throw std::runtime_error(fmt::format("cannot create {} beside {}: {}", staged_, output_,
                                           std::generic_category().message(errno)));
  }
  set_stems(archive);
}

StagedOutput::StagedOutput(std::string output, bool archive, std::string staged, bool parts)
    : output_(std::move(output)), staged_(std::move(staged)), parts_(parts) {
  set_stems(archive);
}

void StagedOutput::set_stems(bool archive) {
  if (parts_) {
    staged_stem_ = parts_directory(staged_);
    output_stem_ = parts_directory(output_);
  } else if (archive) {
    staged_stem_ = stem_path(staged_);
    output_stem_ = stem_path(output_);
  }
}

StagedOutput::~StagedOutput() {
  if (owner_ && !committed_) remove_staged();
}

void StagedOutput::remove_staged() const noexcept {
  std::error_code ignored;
  fs::remove(staged_, ignored);
  if (!staged_stem_.empty()) {
    fs::remove(staged_stem_ + ".def", ignored);
    fs::remove_all(staged_stem_, ignored);
  }
}

std::string StagedOutput::commit() {
  if (!owner_ || committed_) return "";
  auto move = [](const std::string& from, const std::string& to) -> std::string {
    if (std::rename(from.c_str(), to.c_str()) == 0) return "";
    const int error = errno;
    return fmt::format(
        "cannot move {} into place: {}{}", to, std::generic_category().message(error),
        error == ENOTEMPTY || error == EEXIST ? " (another merge wrote it meanwhile?)" : "");
  };
  std::string problem;
  if (staged_stem_.empty()) {
    problem = move(staged_, output_);
  } else {
    // Three renames: merges that finish at once take turns (a lock on the directory), so
    // that the pieces in place are one merge's.
    const fs::path parent = fs::path(output_).parent_path();
    const int directory =
        ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory >= 0) ::flock(directory, LOCK_EX);
    // An archive already there (the merge was told to replace it) goes aside first: a
    // directory is not renamed over one that holds files.
    std::error_code code;
    std::string aside;
    if (fs::is_directory(output_stem_, code)) {
      aside = unique_name(staged_stem_, ".old");
      problem = move(output_stem_, aside);
    }
    // The archive's directory and definitions first, its anchor file last: an archive
    // that opens is whole.
    if (problem.empty() && fs::is_directory(staged_stem_, code))
      problem = move(staged_stem_, output_stem_);
    if (problem.empty() && fs::exists(staged_stem_ + ".def", code))
      problem = move(staged_stem_ + ".def", output_stem_ + ".def");
    if (problem.empty()) problem = move(staged_, output_);
    // Failed: the archive that was there goes back, if nothing took its place.
    if (!problem.empty() && !aside.empty() && std::rename(aside.c_str(), output_stem_.c_str()) == 0)
      aside.clear();
    if (!aside.empty()) fs::remove_all(aside, code);
    if (directory >= 0) ::close(directory);  // and its lock
  }
  if (!problem.empty()) {
    remove_staged();
    committed_ = true;  // nothing left to remove
    return problem;
  }
  committed_ = true;
  on_signal_.reset();
  return "";
}

std::string StagedOutput::tell(std::string text) const {
  if (!staged_stem_.empty() && !parts_)
    return replace_all(std::move(text), staged_stem_, output_stem_);
  return replace_all(std::move(text), staged_, output_);
}

}  // namespace rocprof::merge
