// Text for JSON outputs: strings as the inside of a JSON string, numbers as JSON has them.
#pragma once

#include <string>
#include <string_view>

namespace rocprof::merge {

// `raw` as valid UTF-8 with quotes, backslashes and control characters escaped.
std::string json_escaped(std::string_view raw);

// JSON has no NaN or infinity: those become the strings "NaN", "Infinity" and "-Infinity" (as
// JavaScript's JSON readers name them); other values are plain numbers.
std::string json_number(double value);

}  // namespace rocprof::merge
