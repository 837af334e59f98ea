// Per-thread text of the last failed API call (what roctracer_error_string returns).
#pragma once

#include <fmt/format.h>

#include <roctracer/roctracer.h>

namespace rocprof::core {

void set_last_error_text(std::string text);
const char* last_error_text() noexcept;

// Records the message for this thread and returns `status`, so shims can write
// `return fail(STATUS, "...", args...)`.
template <typename... Args>
roctracer_status_t fail(roctracer_status_t status, fmt::format_string<Args...> format,
                        Args&&... args) {
  set_last_error_text(fmt::format(format, std::forward<Args>(args)...));
  return status;
}

}  // namespace rocprof::core
