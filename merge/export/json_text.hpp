// Text for JSON outputs: strings as the inside of a JSON string, numbers as JSON has them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rocprof::merge {

// `raw` as valid UTF-8 with quotes, backslashes and control characters escaped.
std::string json_escaped(std::string_view raw);

// JSON has no NaN or infinity: those become the strings "NaN", "Infinity" and "-Infinity" (as
// JavaScript's JSON readers name them); other values are plain numbers.
std::string json_number(double value);

// A trace-event time: microseconds of `t_ns` since `origin_ns` (negative before it).
inline double microseconds_since(std::uint64_t t_ns, std::uint64_t origin_ns) {
  return static_cast<double>(static_cast<std::int64_t>(t_ns - origin_ns)) / 1000.0;
}

// A trace-event duration in microseconds; 0 for an end before its begin.
inline double duration_us(std::uint64_t begin_ns, std::uint64_t end_ns) {
  return static_cast<double>(end_ns > begin_ns ? end_ns - begin_ns : 0) / 1000.0;
}

}  // namespace rocprof::merge
