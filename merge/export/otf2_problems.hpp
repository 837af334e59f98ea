// What libotf2 says went wrong while an archive is written. Left to itself it prints each
// problem to stderr as it meets it (a full file system: a few lines per location file, more
// than a thousand for a big job) and, for some of them, still returns success: an archive
// whose definitions were never stored read as written. While an Otf2Problems is alive the
// problems are kept instead, so that the export can fail with the first one, the cause.
#pragma once

#include <string>

#include <otf2/OTF2_ErrorCodes.h>

namespace rocprof::merge {

class Otf2Problems {
 public:
  // libotf2 has one error handler per process: one Otf2Problems at a time, on the thread
  // that writes the archive.
  Otf2Problems() noexcept;
  ~Otf2Problems();  // the handler before it is back
  Otf2Problems(const Otf2Problems&) = delete;
  Otf2Problems& operator=(const Otf2Problems&) = delete;

  // The first problem met ("No space left on device: POSIX: DIR/0.evt"), or empty.
  const std::string& first() const noexcept { return first_; }
  // Throws std::runtime_error naming `path` and the first problem, if there was one.
  void throw_if_any(const std::string& path) const;

 private:
  static OTF2_ErrorCode keep(void* self, const char* file, uint64_t line, const char* function,
                             OTF2_ErrorCode code, const char* format, va_list arguments);
  OTF2_ErrorCallback previous_;
  std::string first_;
};

}  // namespace rocprof::merge
