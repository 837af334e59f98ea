#include "lib/settings/mpi_exclude.hpp"

#include <fnmatch.h>

#include <fstream>

#include <fmt/format.h>

namespace rocprof::settings {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

bool name_character(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '*' || c == '?' || c == '[' || c == ']' || c == '!' || c == '-';
}

}  // namespace

bool parse_mpi_exclude(std::string_view text, std::vector<std::string>& patterns,
                       std::string& error) {
  patterns.clear();
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = trimmed(text.substr(at, comma - at));
    at = comma + 1;
    if (item.empty()) {
      error = fmt::format(
          "'{}' has an empty item: give MPI function names or patterns "
          "separated by commas (MPI_Comm_rank,MPI_Test*)",
          text);
      return false;
    }
    for (const char c : item)
      if (!name_character(c)) {
        error = fmt::format(
            "'{}' is not an MPI function name or pattern (letters, digits, _ "
            "and the wildcards * ? [])",
            item);
        return false;
      }
    patterns.emplace_back(item);
  }
  return true;
}

bool read_mpi_exclude_file(const std::string& path, std::string& list, std::string& error) {
  std::ifstream file(path);
  if (!file) {
    error = fmt::format("cannot read the filter file {}", path);
    return false;
  }
  list.clear();
  for (std::string line; std::getline(file, line);) {
    std::string_view item = line;
    item = trimmed(item.substr(0, item.find('#')));
    if (item.empty()) continue;
    list += (list.empty() ? "" : ",") + std::string(item);
  }
  if (file.bad()) {
    error = fmt::format("cannot read the filter file {}", path);
    return false;
  }
  if (list.empty()) {
    error = fmt::format("the filter file {} names no MPI function", path);
    return false;
  }
  return true;
}

bool mpi_pattern_matches(const std::string& pattern, const char* function) {
  return ::fnmatch(pattern.c_str(), function, 0) == 0;
}

}  // namespace rocprof::settings
