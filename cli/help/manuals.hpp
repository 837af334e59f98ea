// Where the manuals are, for --help: the installed tree's documentation directory
// (PREFIX/share/doc/rocprof-mpi, beside the binary's bin/), else the source tree's docs/.
#pragma once

#include <unistd.h>

#include <array>
#include <filesystem>
#include <string>

namespace rocprof::cli {

// "/opt/rocprof-mpi/share/doc/rocprof-mpi/ROCPROF_MERGE.md", or "docs/ROCPROF_MERGE.md".
inline std::string manual_path(const std::string& name) {
  std::array<char, 4096> self{};
  const ssize_t length = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (length > 0) {
    const std::filesystem::path installed =
        std::filesystem::path(std::string(self.data(), length)).parent_path().parent_path() /
        ROCPROF_INSTALL_DOCDIR / name;
    std::error_code ignored;
    if (std::filesystem::exists(installed, ignored)) return installed.lexically_normal().string();
  }
  return "docs/" + name + " (in the source tree)";
}

}  // namespace rocprof::cli
