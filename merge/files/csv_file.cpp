#include "merge/files/csv_file.hpp"

namespace rocprof::merge {

std::string csv_text(std::string_view text) {
  std::string field = "\"";
  for (const char c : text) {
    if (c == '"') field += '"';
    field += c;
  }
  return field + '"';
}

CsvFile::CsvFile(std::string path, std::string_view header) : path_(std::move(path)), file_(path_) {
  file_ << header << '\n';
}

bool CsvFile::close(std::string& error) {
  file_.flush();
  if (file_) return true;
  error = fmt::format("cannot write {}", path_);
  return false;
}

}  // namespace rocprof::merge
