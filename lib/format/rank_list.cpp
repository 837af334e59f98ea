#include "lib/format/rank_list.hpp"

#include <charconv>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

namespace rocprof::format {

bool RankList::contains(std::int32_t rank) const noexcept {
  if (ranges.empty()) return true;
  for (const auto& [first, last] : ranges)
    if (rank >= first && rank <= last) return true;
  return false;
}

bool parse_rank_list(const std::string& text, RankList& out, std::string& error) {
  RankList list;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const std::size_t dash = item.find('-');
    std::int32_t first = -1;
    std::int32_t last = -1;
    const std::string_view low = item.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : item.substr(dash + 1);
    const auto [end_low, code_low] = std::from_chars(low.data(), low.data() + low.size(), first);
    const auto [end_high, code_high] =
        std::from_chars(high.data(), high.data() + high.size(), last);
    if (item.empty() || code_low != std::errc{} || end_low != low.data() + low.size() ||
        code_high != std::errc{} || end_high != high.data() + high.size() || first < 0 ||
        last < first) {
      error =
          fmt::format("'{}' in '{}' is not a rank or a range of ranks (e.g. 0,4-7)", item, text);
      return false;
    }
    list.ranges.emplace_back(first, last);
  }
  if (list.ranges.empty()) {
    error = "no rank given (e.g. 0,4-7)";
    return false;
  }
  out = std::move(list);
  return true;
}

}  // namespace rocprof::format
