#include "merge/pipeline/output_checks.hpp"

#include <unistd.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "merge/files/staged_output.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/summary/summary.hpp"

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

// Why `written` (the output, or a summary CSV file) could not be written, or empty. It must
// not be one of `rank_files` either (an input named again as the output: merging would
// truncate it before reading it).
std::string file_problem(const std::string& written, const std::vector<std::string>& rank_files) {
  const bool an_input = std::any_of(rank_files.begin(), rank_files.end(), [&](const auto& file) {
    std::error_code ignored;
    return fs::equivalent(written, file, ignored);
  });
  if (an_input)
    return fmt::format("cannot write {}: it is one of the rank files to merge", written);
  const fs::path path(written);
  const fs::path directory = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code code;
  if (!fs::is_directory(directory, code))
    return fmt::format("cannot write {}: directory {} does not exist", written, directory.string());
  if (::access(directory.c_str(), W_OK) != 0)
    return fmt::format("cannot write {}: directory {} is not writable", written,
                       directory.string());
  if (fs::is_directory(path, code))
    return fmt::format("cannot write {}: a directory has that name", written);
  if (fs::exists(path, code) && ::access(path.c_str(), W_OK) != 0)
    return fmt::format("cannot write {}: the file is not writable", written);
  return {};
}

// --h5-parts replaces OUTPUT.parts/ as a whole: only a directory of an earlier merge's parts
// (INDEX.h5 files) may be there, never one holding anything else.
std::string parts_directory_problem(const std::string& output) {
  const fs::path directory(parts_directory(output));
  std::error_code code;
  if (!fs::exists(directory, code)) return {};
  if (!fs::is_directory(directory, code))
    return fmt::format("cannot write {}: its parts need the directory {}, and a file has that name",
                       output, directory.string());
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, code)) {
    const std::string name = entry.path().filename().string();
    const std::string stem = entry.path().stem().string();
    const bool a_part =
        entry.is_regular_file(code) && entry.path().extension() == ".h5" && !stem.empty() &&
        std::all_of(stem.begin(), stem.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!a_part)
      return fmt::format(
          "cannot write {}: it would replace the directory {}, which holds other files than "
          "a merge's parts ({}); choose another name",
          output, directory.string(), name);
  }
  return {};
}

}  // namespace

std::string output_problem(const MergeOptions& options, const Sink& sink) {
  std::vector<std::string> written = {options.output};
  if (!options.csv_prefix.empty())
    for (const std::string_view table : Summary::kCsvFiles)
      written.push_back(options.csv_prefix + std::string(table));
  if (!options.report.empty()) written.push_back(options.report);
  // The rank files, listed only if one of those exists already (missing inputs are told later).
  std::vector<std::string> rank_files;
  if (std::any_of(written.begin(), written.end(), [](const std::string& path) {
        std::error_code ignored;
        return fs::exists(path, ignored);
      })) {
    try {
      rank_files = RankSet::list(options.inputs);
    } catch (const std::exception&) {
    }
  }
  if (!options.scratch.empty()) {
    // Checked by every process, each on its own node.
    std::error_code code;
    if (!fs::is_directory(options.scratch, code))
      return fmt::format("cannot use --scratch {}: no such directory", options.scratch);
    if (::access(options.scratch.c_str(), W_OK | X_OK) != 0)
      return fmt::format("cannot use --scratch {}: the directory is not writable", options.scratch);
  }
  // Two outputs under one name: the later would silently replace the earlier.
  for (std::size_t i = 0; i < written.size(); ++i)
    for (std::size_t j = i + 1; j < written.size(); ++j) {
      std::error_code ignored;
      if (fs::weakly_canonical(written[i], ignored) == fs::weakly_canonical(written[j], ignored))
        return fmt::format(
            "cannot write {} twice: two outputs (-o, --report, --summary-csv) "
            "name the same file",
            written[i]);
    }
  // Only a parallel merge writes parts (whose processes the launcher already placed).
  const std::optional<LaunchPlace> place = launch_place_from_environment();
  if (options.h5_parts && place && place->processes > 1)
    if (std::string problem = parts_directory_problem(options.output); !problem.empty())
      return problem;
  for (const std::string& path : written) {
    if (std::string problem = file_problem(path, rank_files); !problem.empty()) return problem;
    if (path == options.output)
      if (std::string problem = sink.target_problem(path); !problem.empty()) return problem;
  }
  return {};
}

}  // namespace rocprof::merge
