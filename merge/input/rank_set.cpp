#include "merge/input/rank_set.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> expand(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code code;
    if (fs::is_directory(input, code)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(input, code))
        if (entry.path().extension() == ".h5") found.push_back(entry.path().string());
      if (found.empty())
        throw InputError(fmt::format("{}: no rank files (*.h5) in this directory", input));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(input, code)) {
      files.push_back(input);
    } else {
      throw InputError(fmt::format("{}: no such file or directory", input));
    }
  }
  if (files.empty()) throw InputError("no input: give a directory of rank files or the files");
  return files;
}

}  // namespace

RankSet RankSet::open(const std::vector<std::string>& inputs, const RankSetOptions& options,
                      const Checked& checked) {
  RankSet set;
  std::map<std::int32_t, std::string> seen;
  const std::vector<std::string> paths = expand(inputs);
  for (const std::string& path : paths) {
    Rank rank;
    rank.path = path;
    try {
      rank.reader = std::make_unique<format::RankFileReader>(path);
    } catch (const format::FormatError& error) {
      if (!options.skip_bad)
        throw InputError(fmt::format("{} (use --skip-bad to merge the other files)", error.what()));
      set.skipped_.push_back(fmt::format("skipped {}", error.what()));
      continue;
    }
    const auto& metadata = rank.reader->metadata();
    rank.rank = metadata.rank;
    // A process outside a parallel job merges on its own, as rank 0 of a job of one.
    const bool alone = rank.rank < 0 && paths.size() == 1;
    if (alone) rank.rank = 0;
    if (rank.rank < 0)
      throw InputError(
          fmt::format("{}: the file has no rank (a process outside a parallel job); "
                      "merge it on its own (the only input)",
                      path));
    if (const auto previous = seen.find(rank.rank); previous != seen.end())
      throw InputError(fmt::format("{}: rank {} is also in {} (two runs in one directory?)", path,
                                   rank.rank, previous->second));
    seen.emplace(rank.rank, path);
    rank.reader->release();  // checked: reopened when read
    if (set.ranks_.empty()) {
      set.job_id_ = metadata.job_id;
      set.job_size_ = alone ? 1 : metadata.size;
    } else if (metadata.job_id != set.job_id_ || metadata.size != set.job_size_) {
      throw InputError(
          fmt::format("{}: job '{}' of {} ranks, but {} is job '{}' of {} ranks "
                      "(files of different runs)",
                      path, metadata.job_id, metadata.size, set.ranks_.front().path, set.job_id_,
                      set.job_size_));
    }
    set.ranks_.push_back(std::move(rank));
    if (checked) checked(set.ranks_.back());
  }
  if (set.ranks_.empty())
    throw InputError("none of the input files could be read: nothing to merge");
  std::sort(set.ranks_.begin(), set.ranks_.end(),
            [](const Rank& a, const Rank& b) { return a.rank < b.rank; });
  std::vector<std::int32_t> missing;
  for (std::int32_t r = 0; r < set.job_size_; ++r)
    if (!seen.contains(r)) missing.push_back(r);
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 16; ++i)
      list += (i == 0 ? "" : ",") + std::to_string(missing[i]);
    if (missing.size() > 16) list += ",...";
    const std::string what = fmt::format("{} of the job's {} ranks have no file (ranks {})",
                                         missing.size(), set.job_size_, list);
    if (!options.allow_missing)
      throw InputError(what + " (use --allow-missing to merge the others)");
    set.skipped_.push_back(what);
  }
  return set;
}

}  // namespace rocprof::merge
