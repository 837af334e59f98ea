#pragma once
// The merged file's string table: every rank's strings, rank by rank, in one table with one id
// per text, and each rank's ids mapped to it.
// Internal to the merged .h5 output (merged_hdf5.cpp); in namespace merged_hdf5.

#include <string>
#include <unordered_map>
#include <vector>

#include "lib/format/rank_file_reader.hpp"
#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge::merged_hdf5 {

using namespace rocprof::format;

// Global string ids: every rank's string table, rank by rank, in one table (the same on every
// merge process, since each has every rank's string table).
class Strings {
 public:
  explicit Strings(const std::vector<const AlignedRank*>& ranks) {
    std::unordered_map<std::string, StringId> ids{{"", 0}};
    texts_.emplace_back();
    for (const AlignedRank* rank : ranks) {
      const RankFileReader& reader = rank->reader();
      std::vector<StringId>& remap = remaps_.emplace_back(reader.string_count());
      for (StringId id = 0; id < remap.size(); ++id) {
        const auto [it, added] =
            ids.emplace(reader.string(id), static_cast<StringId>(texts_.size()));
        if (added) texts_.push_back(reader.string(id));
        remap[id] = it->second;
      }
    }
  }
  const std::vector<StringId>& remap(std::size_t rank_index) const { return remaps_[rank_index]; }
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  std::vector<std::string> texts_;
  std::vector<std::vector<StringId>> remaps_;
};

}  // namespace rocprof::merge::merged_hdf5
