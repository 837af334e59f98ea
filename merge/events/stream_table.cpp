#include "merge/events/stream_table.hpp"

#include <algorithm>

namespace rocprof::merge {

StreamTable::StreamTable(const std::vector<StreamCount>& counts,
                         std::vector<InvisibleTarget> invisible) {
  absl::flat_hash_map<StreamKey, StreamCount> merged;
  for (const StreamCount& count : counts) {
    StreamCount& total = merged.try_emplace(count.key, StreamCount{count.key, 0, 0}).first->second;
    total.sends += count.sends;
    total.receives += count.receives;
  }
  streams_.reserve(merged.size());
  for (const auto& [key, count] : merged) streams_.push_back(count);
  std::sort(streams_.begin(), streams_.end(),
            [](const StreamCount& a, const StreamCount& b) { return a.key < b.key; });
  std::sort(invisible.begin(), invisible.end());
  matched_.resize(streams_.size());
  unknown_source_.resize(streams_.size());
  index_.reserve(streams_.size());
  for (std::uint32_t i = 0; i < streams_.size(); ++i) {
    const StreamCount& stream = streams_[i];
    const bool broken =
        std::binary_search(invisible.begin(), invisible.end(),
                           InvisibleTarget{stream.key.communicator, stream.key.destination});
    matched_[i] = !broken && stream.sends == stream.receives ? 1 : 0;
    unknown_source_[i] = broken ? 1 : 0;
    index_.emplace(stream.key, i);
  }
}

std::optional<std::uint32_t> StreamTable::find(const StreamKey& key) const {
  const auto found = index_.find(key);
  if (found == index_.end()) return std::nullopt;
  return found->second;
}

std::uint64_t StreamTable::matched_messages() const {
  std::uint64_t messages = 0;
  for (std::size_t i = 0; i < streams_.size(); ++i)
    if (matched_[i] != 0) messages += streams_[i].sends;
  return messages;
}

StreamTable::Unmatched StreamTable::unmatched(const std::vector<std::uint32_t>& given_up) const {
  Unmatched out;
  for (std::uint32_t i = 0; i < streams_.size(); ++i) {
    if (matched_[i] != 0) continue;
    const StreamCount& stream = streams_[i];
    const std::uint64_t messages = std::max(stream.sends, stream.receives);
    if (unknown_source_[i] != 0)
      out.unknown_source += messages;
    else if (stream.sends != stream.receives)
      out.uneven += messages;
    else if (std::find(given_up.begin(), given_up.end(), i) != given_up.end())
      out.given_up += messages;
  }
  return out;
}

std::optional<std::uint64_t> StreamTable::flow(const MessageEndpoint& endpoint) const {
  if (endpoint.kind == MessageEndpoint::Kind::kInvisibleReceive) return std::nullopt;
  const auto index = find(endpoint.stream);
  if (!index) return std::nullopt;
  return flow(*index, endpoint.ordinal);
}

}  // namespace rocprof::merge
