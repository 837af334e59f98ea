#pragma once
// A yes/no environment variable, as every library of the project reads one.

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

namespace rocprof::util {

// 1, true, yes, on: yes; 0, false, no, off: no (any case); unset or anything else: nullopt.
inline std::optional<bool> environment_flag(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): nothing here sets it
  if (value == nullptr) return std::nullopt;
  std::string text(value);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  return std::nullopt;
}

}  // namespace rocprof::util
