// The ranges open at a point of a pass over one rank's markers, by their key (thread and level,
// or a start/stop range's id). Pairing markers into ranges opens and closes one per range, and
// most ranges close soon after they open, the newest first (they nest): a few entries searched
// from the newest do, with no allocation per range (a std::map allocated and freed a node for
// each). Many open at once (ranges started and never stopped) would make that search long: past
// kFew the entries move to a hash map, which then takes them all.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace rocprof::merge {

template <typename Value>
class OpenRanges {
 public:
  using Key = std::pair<std::uint32_t, std::uint64_t>;
  static constexpr std::size_t kFew = 32;

  // Opens `key` with `value`. A range open under that key already is replaced when `replace`,
  // kept otherwise.
  void open(const Key& key, const Value& value, bool replace) {
    if (!many_.empty() || few_.size() == kFew) {
      spill();
      if (replace)
        many_.insert_or_assign(key, value);
      else
        many_.try_emplace(key, value);
      return;
    }
    if (Value* open = find_few(key)) {
      if (replace) *open = value;
      return;
    }
    few_.emplace_back(key, value);
  }

  // Closes `key`: the value it was opened with, or nullopt if no range is open under it.
  std::optional<Value> close(const Key& key) {
    if (!many_.empty()) {
      const auto found = many_.find(key);
      if (found == many_.end()) return std::nullopt;
      std::optional<Value> value(std::move(found->second));
      many_.erase(found);
      return value;
    }
    for (std::size_t i = few_.size(); i-- > 0;)
      if (few_[i].first == key) {
        std::optional<Value> value(std::move(few_[i].second));
        few_.erase(few_.begin() + static_cast<std::ptrdiff_t>(i));
        return value;
      }
    return std::nullopt;
  }

  std::size_t size() const noexcept { return few_.size() + many_.size(); }

 private:
  Value* find_few(const Key& key) {
    for (std::size_t i = few_.size(); i-- > 0;)
      if (few_[i].first == key) return &few_[i].second;
    return nullptr;
  }
  // Moves the few entries into the hash map (once they would pass kFew).
  void spill() {
    for (auto& [key, value] : few_) many_.try_emplace(key, std::move(value));
    few_.clear();
  }

  std::vector<std::pair<Key, Value>> few_;  // oldest first
  absl::flat_hash_map<Key, Value> many_;    // all of them, once used
};

}  // namespace rocprof::merge
