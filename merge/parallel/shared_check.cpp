#include "merge/parallel/shared_check.hpp"

#include <memory>
#include <utility>

#include "merge/input/rank_digest.hpp"
#include "merge/parallel/bytes.hpp"

namespace rocprof::merge {

RankSet check_shared(const MergeGroup& group, const std::vector<std::string>& inputs,
                     const RankSetOptions& options) {
  const std::vector<std::string> paths = RankSet::list(inputs);
  const std::vector<std::size_t> order = RankSet::numbered_order(paths);
  const auto [first, last] = group.block(order.size());
  std::vector<RankSet::CheckedFile> files(paths.size());
  // Per file checked here: its index, then a digest (1) or the problem (0).
  ByteWriter found;
  for (std::size_t i = first; i < last; ++i) {
    const std::size_t index = order[i];
    RankSet::CheckedFile& file = files[index];
    found.put<std::uint64_t>(index);
    try {
      file.reader = std::make_unique<format::RankFileReader>(paths[index]);
      found.put<std::uint8_t>(1);
      put_digest(found, file.reader->digest());
    } catch (const format::FormatError& error) {
      file.reader.reset();
      file.problem = error.what();
      found.put<std::uint8_t>(0);
      found.put_string(file.problem);
    }
  }
  const std::vector<std::vector<std::byte>> everyone = group.all_gather(found.take());
  for (std::size_t process = 0; process < everyone.size(); ++process) {
    if (process == static_cast<std::size_t>(group.index())) continue;
    ByteReader in(everyone[process]);
    while (!in.done()) {
      const auto index = in.get<std::uint64_t>();
      if (index >= files.size()) throw std::runtime_error("a merge process sent a damaged message");
      RankSet::CheckedFile& file = files[index];
      if (in.get<std::uint8_t>() != 0)
        file.reader = std::make_unique<format::RankFileReader>(get_digest(in));
      else
        file.problem = in.get_string();
    }
  }
  return RankSet::assemble(paths, std::move(files), options);
}

}  // namespace rocprof::merge
