#include "merge/parallel/shared_check.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "merge/input/rank_digest.hpp"
#include "merge/parallel/bytes.hpp"

namespace rocprof::merge {

RankSet check_shared(const MergeGroup& group, const std::vector<std::string>& inputs,
                     const RankSetOptions& options, const RankSet::Checked& checked,
                     const RankSet::Refused& refused) {
  // Every step that may fail on one process only ends in a decision all of them take
  // together: a process that gave up alone would leave the others waiting for it.
  std::vector<std::string> paths;
  std::string problem;
  try {
    paths = RankSet::list(inputs);
  } catch (const InputError& error) {
    problem = error.what();
  }
  if (group.any(!problem.empty()))
    throw InputError(!problem.empty() ? problem
                                      : "another merge process cannot list the input files");
  const std::vector<std::size_t> order = RankSet::numbered_order(paths);
  const auto [first, last] = group.block(order.size());
  std::vector<RankSet::CheckedFile> files(paths.size());
  std::optional<RankSet::OnRefusal> on_refusal(std::in_place, refused);  // goes before `files`
  // Per file checked here: its index, then a digest (1), or its path and problem (0).
  ByteWriter found;
  for (std::size_t i = first; i < last; ++i) {
    const std::size_t index = order[i];
    RankSet::CheckedFile& file = files[index];
    found.put<std::uint64_t>(index);
    try {
      file.reader = std::make_unique<format::RankFileReader>(paths[index]);
      ByteWriter digest;
      put_digest(digest, file.reader->digest());
      found.put<std::uint8_t>(1);
      const std::vector<std::byte> bytes = digest.take();
      found.put_bytes(bytes);
    } catch (const std::exception& error) {
      // Any failure becomes that file's problem.
      file.reader.reset();
      file.problem = error.what();
      found.put<std::uint8_t>(0);
      found.put_string(paths[index]);
      found.put_string(file.problem);
    }
    // A rank of its own (-1 only in a merge of one file) is known here: work may start.
    if (checked && file.reader && file.reader->metadata().rank >= 0)
      checked(file.reader->metadata().rank, *file.reader);
  }
  const std::vector<std::vector<std::byte>> everyone = group.all_gather(found.take());
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

}  // namespace rocprof::merge
