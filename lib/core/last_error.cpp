#include "lib/core/last_error.hpp"

#include <string>

namespace rocprof::core {
namespace {
// A string per thread: written only on failures (the cold path), read by the same thread.
thread_local std::string tl_last_error;
}  // namespace

void set_last_error_text(std::string text) { tl_last_error = std::move(text); }

const char* last_error_text() noexcept { return tl_last_error.c_str(); }

}  // namespace rocprof::core
