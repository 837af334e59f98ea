#include "merge/files/exclusive_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace rocprof::merge {

std::string unique_name(const std::string& prefix, const std::string& suffix) {
  constexpr std::string_view kLetters =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::array<std::uint8_t, 12> random{};
  std::size_t got = 0;
  while (got < random.size()) {
    const ssize_t read = ::getrandom(random.data() + got, random.size() - got, 0);
    if (read > 0)
      got += static_cast<std::size_t>(read);
    else if (errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "getrandom");
  }
  std::string name = prefix + '.';
  for (const std::uint8_t byte : random) name += kLetters[byte % kLetters.size()];
  return name + suffix;
}

int create_exclusive(const std::string& path, int flags) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | flags, 0666);
}

void create_empty(const std::string& path) {
  const int fd = create_exclusive(path);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot create {}: {}", path, std::generic_category().message(errno)));
  ::close(fd);
}

int create_unique(const std::string& prefix, const std::string& suffix, std::string& path,
                  int flags) {
  for (int attempt = 0;; ++attempt) {
    path = unique_name(prefix, suffix);
    const int fd = create_exclusive(path, flags);
    if (fd >= 0) return fd;
    if (errno != EEXIST || attempt == 8)
      throw std::runtime_error(
          fmt::format("cannot create {}: {}", path, std::generic_category().message(errno)));
  }
}

std::FILE* open_for_writing(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "w");
  if (file == nullptr) {
    const int error = errno;
    ::close(fd);
    errno = error;
  }
  return file;
}

}  // namespace rocprof::merge
