#include "merge/files/output_format.hpp"

#include <array>
#include <filesystem>
#include <string_view>

namespace rocprof::merge {
namespace {

struct Known {
  OutputFormat format;
  std::string_view extension;
  std::string_view description;
  bool in_parts;
};

constexpr std::array<Known, 4> kFormats{{
    {OutputFormat::kPerfetto, ".pftrace", "Perfetto", true},
    {OutputFormat::kOtf2, ".otf2", "OTF2 archive", false},
    {OutputFormat::kHdf5, ".h5", "merged tables", false},
    {OutputFormat::kChromeJson, ".json", "Chrome trace events", true},
}};

const Known& known(OutputFormat format) {
  for (const Known& entry : kFormats)
    if (entry.format == format) return entry;
  return kFormats.front();  // not reached: every format is listed
}

}  // namespace

std::optional<OutputFormat> output_format_of(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  for (const Known& entry : kFormats)
    if (entry.extension == extension) return entry.format;
  return std::nullopt;
}

bool written_in_parts(OutputFormat format) { return known(format).in_parts; }

std::string known_formats() {
  std::string text;
  for (std::size_t i = 0; i < kFormats.size(); ++i) {
    if (i > 0) text += i + 1 == kFormats.size() ? " and " : ", ";
    text += std::string(kFormats[i].extension) + " (" + std::string(kFormats[i].description) + ")";
  }
  return text;
}

}  // namespace rocprof::merge
