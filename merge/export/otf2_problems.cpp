#include "merge/export/otf2_problems.hpp"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

namespace rocprof::merge {

Otf2Problems::Otf2Problems() noexcept
    : previous_(OTF2_Error_RegisterCallback(&Otf2Problems::keep, this)) {}

// libotf2 keeps no user data of the handler before: none was given to it (nullptr).
Otf2Problems::~Otf2Problems() { OTF2_Error_RegisterCallback(previous_, nullptr); }

void Otf2Problems::throw_if_any(const std::string& path) const {
  if (!first_.empty()) throw std::runtime_error(fmt::format("cannot write {}: {}", path, first_));
}

OTF2_ErrorCode Otf2Problems::keep(void* self, const char* /*file*/, uint64_t /*line*/,
                                  const char* /*function*/, OTF2_ErrorCode code, const char* format,
                                  va_list arguments) {
  auto& problems = *static_cast<Otf2Problems*>(self);
  if (problems.first_.empty()) {
    std::array<char, 1024> text{};
    std::vsnprintf(text.data(), text.size(), format == nullptr ? "" : format, arguments);
    problems.first_ = text[0] == '\0'
                          ? std::string(OTF2_Error_GetDescription(code))
                          : fmt::format("{}: {}", OTF2_Error_GetDescription(code), text.data());
  }
  return code;
}

}  // namespace rocprof::merge
