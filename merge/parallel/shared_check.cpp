#include "merge/parallel/shared_check.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "merge/exchange/bytes.hpp"
#include "merge/input/check_helpers.hpp"
#include "merge/input/rank_digest.hpp"

namespace rocprof::merge {

CheckedShare check_share(const std::vector<std::string>& inputs, std::size_t index,
                         std::size_t processes, const RankSet::Checked& checked,
                         const RankSet::Refused& refused, const std::atomic<bool>* stop,
                         const CheckHelperSetting& helpers) {
  CheckedShare share;
  share.index = index;
  share.processes = processes;
  try {
    share.paths = RankSet::list(inputs);
  } catch (const InputError& error) {
    share.list_problem = error.what();
    return share;
  }
  const std::vector<std::size_t> order = RankSet::numbered_order(share.paths);
  const auto [first, last] = block_of(order.size(), index, processes);
  share.files.resize(share.paths.size());
  // Work `checked` started must end before the readers go, should anything throw here.
  const RankSet::OnRefusal on_refusal(refused);
  // The share's files, in the order they are checked.
  std::vector<std::string> mine;
  for (std::size_t i = first; i < last; ++i) mine.push_back(share.paths[order[i]]);
  CheckHelpers checking(helpers, mine);
  // Per file checked here: its index, then a digest (1), or its path and problem (0).
  ByteWriter found;
  for (std::size_t i = first; i < last; ++i) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
    const std::size_t file_index = order[i];
    RankSet::CheckedFile& file = share.files[file_index];
    found.put<std::uint64_t>(file_index);
    try {
      file = checking.take(i - first);  // a file's FormatError is its problem already
      if (file.reader) {
        ByteWriter digest;
        // With its layout: the process that reads it then needs no HDF5 for it (a helper
        // checked it; this process may not have).
        put_digest(digest, file.reader->digest(true));
        found.put<std::uint8_t>(1);
        const std::vector<std::byte> bytes = digest.take();
        found.put_bytes(bytes);
      }
    } catch (const std::exception& error) {
      // Any other failure becomes that file's problem too.
      file.reader.reset();
      file.problem = error.what();
    }
    if (!file.reader) {
      found.put<std::uint8_t>(0);
      found.put_string(share.paths[file_index]);
      found.put_string(file.problem);
    }
    // A rank of its own (-1 only in a merge of one file) is known here: work may start.
    if (checked && file.reader && file.reader->metadata().rank >= 0)
      checked(file.reader->metadata().rank, *file.reader);
  }
  share.found = found.take();
  return share;
}

RankSet join_shares(const MergeGroup& group, CheckedShare share, const RankSetOptions& options,
                    const RankSet::Refused& refused) {
  std::vector<RankSet::CheckedFile> files = std::move(share.files);
  std::optional<RankSet::OnRefusal> on_refusal(std::in_place, refused);  // goes before `files`
  if (share.index != static_cast<std::size_t>(group.index()) ||
      share.processes != static_cast<std::size_t>(group.size()))
    throw std::logic_error("a share of the rank files checked for another merge process");
  // Every step that may fail on one process only ends in a decision all of them take
  // together: a process that gave up alone would leave the others waiting for it.
  std::string problem = share.list_problem;
  if (group.any(!problem.empty()))
    throw InputError(!problem.empty() ? problem
                                      : "another merge process cannot list the input files");
  const std::vector<std::string>& paths = share.paths;
  const std::vector<std::vector<std::byte>> everyone = group.all_gather(share.found);
  try {
    for (std::size_t process = 0; process < everyone.size(); ++process) {
      if (process == static_cast<std::size_t>(group.index())) continue;
      ByteReader in(everyone[process]);
      while (!in.done()) {
        const auto index = in.get<std::uint64_t>();
        std::string path;
        std::unique_ptr<format::RankFileReader> reader;
        std::string file_problem;
        if (in.get<std::uint8_t>() != 0) {
          ByteReader digest(in.get_bytes());
          reader = std::make_unique<format::RankFileReader>(get_digest(digest));
          path = reader->path();
        } else {
          path = in.get_string();
          file_problem = in.get_string();
        }
        // Processes on different nodes may list a directory differently (a file still being
        // copied, a stale network file system cache): their findings must not be mixed up.
        if (index >= paths.size() || path != paths[index])
          throw InputError(fmt::format(
              "the merge processes see different input files ({} on process {}, not here): "
              "merge when every node sees the same files",
              path, process));
        files[index].reader = std::move(reader);
        files[index].problem = std::move(file_problem);
        files[index].elsewhere = true;
      }
    }
  } catch (const std::exception& error) {
    problem = error.what();
  }
  if (group.any(!problem.empty()))
    throw InputError(!problem.empty() ? problem : "the merge processes see different input files");
  on_refusal.reset();  // from here on, the set's own
  return RankSet::assemble(paths, std::move(files), options, refused);
}

RankSet check_shared(const MergeGroup& group, const std::vector<std::string>& inputs,
                     const RankSetOptions& options, const RankSet::Checked& checked,
                     const RankSet::Refused& refused) {
  return join_shares(group,
                     check_share(inputs, static_cast<std::size_t>(group.index()),
                                 static_cast<std::size_t>(group.size()), checked, refused, nullptr,
                                 options.check_helpers),
                     options, refused);
}

}  // namespace rocprof::merge
