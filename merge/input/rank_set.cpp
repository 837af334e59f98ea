#include "merge/input/rank_set.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "lib/format/rank_list.hpp"
#include "merge/input/check_helpers.hpp"

namespace rocprof::merge {

namespace fs = std::filesystem;

RankSet::OnRefusal::~OnRefusal() {
  if (refused_ && std::uncaught_exceptions() > exceptions_) refused_();
}

std::vector<std::string> RankSet::list(const std::vector<std::string>& inputs) {
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
  // A file named twice (its directory and itself, or by two names) is one rank file.
  std::vector<std::string> once;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (std::string& file : files) {
    struct stat about {};
    if (::stat(file.c_str(), &about) == 0 && !seen.insert({about.st_dev, about.st_ino}).second)
      continue;
    once.push_back(std::move(file));
  }
  return once;
}

namespace {

// A rank file's rows, of every table.
std::uint64_t rows_of(const format::RankFileReader& reader) {
  std::uint64_t rows = 0;
  for (const format::Table* table : format::all_tables()) rows += reader.row_count(*table);
  return rows;
}

}  // namespace

std::vector<std::uint64_t> RankSet::weights() const {
  // Writing a .pftrace, an MPI call row costs about three marker rows (a rank of markers and
  // calls timed against one with many more markers).
  constexpr std::uint64_t kSliceRow = 3;
  std::vector<std::uint64_t> all;
  all.reserve(ranks_.size());
  for (const Rank& rank : ranks_) {
    const format::RankFileReader& reader = *rank.reader;
    std::uint64_t weight = rows_of(reader);
    weight += (kSliceRow - 1) *
              (reader.row_count<format::MpiCallRow>() + reader.row_count<format::ApiCallRow>() +
               reader.row_count<format::ActivityRow>());
    all.push_back(weight);
  }
  return all;
}

std::uint64_t RankSet::records() const {
  std::uint64_t total = 0;
  for (const Rank& rank : ranks_) total += rows_of(*rank.reader);
  return total;
}

std::vector<std::size_t> RankSet::numbered_order(const std::vector<std::string>& paths) {
  // By directory, then the number a name's stem ends in, then the name.
  auto key = [&paths](std::size_t i) {
    const fs::path path(paths[i]);
    const std::string stem = path.stem().string();
    std::size_t digits = stem.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(stem[digits - 1])) != 0) --digits;
    const std::string number = stem.substr(digits);
    const std::string trimmed =
        number.substr(std::min(number.find_first_not_of('0'), number.size()));
    return std::tuple(path.parent_path().string(), stem.substr(0, digits), trimmed.size(), trimmed,
                      paths[i]);
  };
  std::vector<std::size_t> order(paths.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&key](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

void RankSet::admit(const std::string& path, CheckedFile file, const RankSetOptions& options,
                    std::size_t file_count, std::map<std::int32_t, std::string>& seen,
                    const Checked& checked) {
  if (!file.reader) {
    // rocprof-merge's own .h5 output, written next to the rank files: not a rank file, and
    // not a bad one either (merging the directory again must not need --skip-bad).
    if (file.problem == format::merged_trace_problem(path)) {
      skipped_.push_back(fmt::format("left out {}, not a rank file", file.problem));
      return;
    }
    if (!options.skip_bad)
      throw InputError(fmt::format("{} (use --skip-bad to merge the other files)", file.problem));
    skipped_.push_back(fmt::format("skipped {}", file.problem));
    ++unreadable_skipped_;
    return;
  }
  Rank rank;
  rank.path = path;
  rank.reader = std::move(file.reader);
  rank.checked_here = !file.elsewhere;
  const auto& metadata = rank.reader->metadata();
  rank.rank = metadata.rank;
  // A process outside a parallel job merges on its own, as rank 0 of a job of one.
  const bool alone = rank.rank < 0 && file_count == 1;
  if (alone) rank.rank = 0;
  if (metadata.parent_pid != 0 && !alone) {
    descendants_.push_back(std::move(rank));
    return;
  }
  if (rank.rank < 0)
    throw InputError(
        fmt::format("{}: the file has no rank (a process outside a parallel job); "
                    "merge it on its own (the only input)",
                    path));
  if (const auto previous = seen.find(rank.rank); previous != seen.end()) {
    // Two runs' files in one directory, or the same run given twice (a copy elsewhere).
    const bool one_directory =
        fs::path(path).parent_path() == fs::path(previous->second).parent_path();
    throw InputError(fmt::format(
        "{}: rank {} is also in {} ({})", path, rank.rank, previous->second,
        one_directory ? "two runs in one directory?" : "a copy? give each rank's file once"));
  }
  accept(std::move(rank), seen, checked);
}

void RankSet::accept(Rank rank, std::map<std::int32_t, std::string>& seen, const Checked& checked) {
  const auto& metadata = rank.reader->metadata();
  const bool alone = metadata.rank < 0;
  seen.emplace(rank.rank, rank.path);
  // Checked: reopened when read. Only if still open: a parallel merge's process may already
  // be reading a released file on a helper (its message endpoints).
  if (rank.reader->open_in_hdf5()) rank.reader->release();
  if (ranks_.empty()) {
    job_id_ = metadata.job_id;
    job_size_ = alone ? 1 : metadata.size;
  } else if (metadata.job_id != job_id_ || metadata.size != job_size_) {
    throw InputError(fmt::format(
        "{}: job '{}' of {} ranks, but {} is job '{}' of {} ranks "
        "(files of different runs)",
        rank.path, metadata.job_id, metadata.size, ranks_.front().path, job_id_, job_size_));
  }
  ranks_.push_back(std::move(rank));
  if (checked) checked(ranks_.back().rank, *ranks_.back().reader);
}

void RankSet::finish(const RankSetOptions& options, std::map<std::int32_t, std::string>& seen,
                     const Checked& checked) {
  for (Rank& descendant : descendants_) {
    const std::uint32_t parent = descendant.reader->metadata().parent_pid;
    if (descendant.rank >= 0 && !seen.contains(descendant.rank)) {
      accept(std::move(descendant), seen, checked);
      continue;
    }
    skipped_.push_back(
        fmt::format("left out {}, a program that process {} started (rank {}); merge it on its own",
                    descendant.path, parent, descendant.rank));
  }
  descendants_.clear();
  if (ranks_.empty())
    throw InputError(skipped_.empty()
                         ? std::string("none of the input files could be read: nothing to merge")
                         : fmt::format("nothing to merge: {}{}", skipped_.front(),
                                       skipped_.size() > 1 ? ", and others" : ""));
  std::sort(ranks_.begin(), ranks_.end(),
            [](const Rank& a, const Rank& b) { return a.rank < b.rank; });
  // Ranks the run left out on purpose (rocprof-mpi --mpi-ranks, recorded in every file it
  // wrote) have no file and are not missing.
  format::RankList traced;
  std::string traced_text;
  std::string unreadable;  // a list that does not parse (a damaged file): every rank counts
  for (const Rank& rank : ranks_) {
    const std::string& text = rank.reader->metadata().traced_ranks;
    std::string ignored;
    if (text.empty()) continue;
    if (format::parse_rank_list(text, traced, ignored)) {
      traced_text = text;
      break;
    }
    if (unreadable.empty())
      unreadable =
          fmt::format("; {}'s traced_ranks '{}' is not a rank list, so every rank counts as traced",
                      rank.path, text);
  }
  if (!traced_text.empty()) unreadable.clear();
  auto listed = [](const std::vector<std::int32_t>& ranks) {
    std::string list;
    for (std::size_t i = 0; i < ranks.size() && i < 16; ++i)
      list += (i == 0 ? "" : ",") + std::to_string(ranks[i]);
    if (ranks.size() > 16) list += ",...";
    return list;
  };
  std::vector<std::int32_t> missing;
  std::vector<std::int32_t> untraced;
  for (std::int32_t r = 0; r < job_size_; ++r)
    if (!seen.contains(r)) (traced.contains(r) ? missing : untraced).push_back(r);
  if (!untraced.empty())
    untraced_ = fmt::format("{} of the job's {} ranks not traced ({} {}: the run traced {})",
                            untraced.size(), job_size_, untraced.size() == 1 ? "rank" : "ranks",
                            listed(untraced), traced_text);
  missing_ranks_ = missing.size();
  if (!missing.empty()) {
    const std::string list = listed(missing);
    const bool one = missing.size() == 1;
    const std::string what =
        fmt::format("{} of the job's {} ranks {} no file ({} {}{})", missing.size(), job_size_,
                    one ? "has" : "have", one ? "rank" : "ranks", list, unreadable);
    // Files left out as unreadable (--skip-bad) are ranks' files too: as many missing ranks
    // as those are theirs, and were let go with them.
    if (!options.allow_missing && missing.size() > unreadable_skipped_)
      throw InputError(what + " (use --allow-missing to merge the others)");
    skipped_.push_back(missing.size() <= unreadable_skipped_ && !options.allow_missing
                           ? what + ": the files left out as unreadable"
                           : what);
  }
}

RankSet RankSet::open(const std::vector<std::string>& inputs, const RankSetOptions& options,
                      const Checked& checked, const Refused& refused) {
  RankSet set;
  const OnRefusal on_refusal(refused);  // declared after the set: runs before its readers go
  std::map<std::int32_t, std::string> seen;
  const std::vector<std::string> paths = list(inputs);
  CheckHelpers helpers(options.check_helpers, paths);
  for (std::size_t i = 0; i < paths.size(); ++i)
    set.admit(paths[i], helpers.take(i), options, paths.size(), seen, checked);
  set.finish(options, seen, checked);
  return set;
}

RankSet RankSet::assemble(const std::vector<std::string>& paths, std::vector<CheckedFile> files,
                          const RankSetOptions& options, const Refused& refused) {
  RankSet set;
  const OnRefusal on_refusal(refused);  // after the set and `files`: runs before they go
  std::map<std::int32_t, std::string> seen;
  for (std::size_t i = 0; i < paths.size(); ++i)
    set.admit(paths[i], std::move(files.at(i)), options, paths.size(), seen, {});
  set.finish(options, seen, {});
  return set;
}

void RankSet::open_here(std::size_t index) {
  Rank& rank = ranks_.at(index);
  if (!rank.reader->from_digest()) return;
  rank.reader = std::make_unique<format::RankFileReader>(rank.path);
  rank.reader->release();
}

}  // namespace rocprof::merge
