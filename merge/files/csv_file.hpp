// The summary's CSV files: a header line, then a row per line; text fields quoted with their
// quotes doubled (RFC 4180), so that names with commas or quotes stay one field. A file that
// could not be written is told by its name.
#pragma once

#include <fstream>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace rocprof::merge {

// `text` as one quoted CSV field.
std::string csv_text(std::string_view text);

class CsvFile {
 public:
  CsvFile(std::string path, std::string_view header);
  // One row, formatted (`format` without the line's end).
  template <typename... Args>
  void row(fmt::format_string<Args...> format, Args&&... args) {
    file_ << fmt::format(format, std::forward<Args>(args)...) << '\n';
  }
  // Flushes; false with `error` ("cannot write PATH") if opening or any write failed.
  bool close(std::string& error);

 private:
  std::string path_;
  std::ofstream file_;
};

}  // namespace rocprof::merge
