#include "merge/files/scratch_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

std::string error_text(int code) { return std::system_category().message(code); }

}  // namespace

ScratchFile::ScratchFile(const std::string& directory) {
  std::string path =
      (directory.empty() ? std::string(".") : directory) + "/.rocprof-merge-analysis-XXXXXX";
  fd_ = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("cannot make the analysis's spill file in {}: {}",
                                         directory, error_text(errno)));
  ::unlink(path.c_str());  // gone with its descriptor, however the merge ends
}

ScratchFile::~ScratchFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t ScratchFile::append(std::span<const std::byte> bytes) {
  const std::uint64_t offset = claim(bytes.size());
  write_at(offset, bytes);
  return offset;
}

void ScratchFile::write_at(std::uint64_t offset, std::span<const std::byte> bytes) const {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote =
        ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0)
      throw std::runtime_error(fmt::format("cannot write the analysis's spill file: {}",
                                           error_text(wrote < 0 ? errno : ENOSPC)));
    done += static_cast<std::size_t>(wrote);
  }
}

void ScratchFile::read(std::uint64_t offset, std::span<std::byte> bytes) const {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got =
        ::pread(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw std::runtime_error(fmt::format("cannot read the analysis's spill file: {}",
                                           got < 0 ? error_text(errno) : "it is shorter"));
    done += static_cast<std::size_t>(got);
  }
}

}  // namespace rocprof::merge
