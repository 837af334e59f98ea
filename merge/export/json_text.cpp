#include "merge/export/json_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "lib/format/text.hpp"

namespace rocprof::merge {

std::string json_escaped(std::string_view raw) {
  const std::string text = format::valid_utf8(raw);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else
          out += c;
    }
  }
  return out;
}

std::string json_number(double value) {
  if (std::isnan(value)) return "\"NaN\"";
  if (std::isinf(value)) return value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  return fmt::format("{}", value);
}

}  // namespace rocprof::merge
