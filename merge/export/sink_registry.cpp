#include "merge/export/sink_registry.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

namespace rocprof::merge {

bool SinkRegistry::add(SinkEntry entry) {
  const bool taken = std::any_of(entries_.begin(), entries_.end(), [&](const SinkEntry& known) {
    return known.extension == entry.extension;
  });
  if (taken || entry.extension.empty() || entry.make == nullptr) return false;
  entries_.push_back(std::move(entry));
  return true;
}

const SinkEntry* SinkRegistry::find(const std::string& path) const {
  const std::string extension = std::filesystem::path(path).extension().string();
  for (const SinkEntry& entry : entries_)
    if (entry.extension == extension) return &entry;
  return nullptr;
}

std::string SinkRegistry::known() const {
  std::string text;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (i > 0) text += i + 1 == entries_.size() ? " and " : ", ";
    text += entries_[i].extension + " (" + entries_[i].description + ")";
  }
  return text;
}

SinkRegistry& sinks() {
  // A new format: its sink file, and one line here.
  static SinkRegistry registry = [] {
    SinkRegistry built_in;
    built_in.add({".pftrace", "Perfetto", make_perfetto_sink});
    built_in.add({".otf2", "OTF2 archive", make_otf2_sink});
    built_in.add({".h5", "merged tables", make_merged_hdf5_sink});
    built_in.add({".json", "Chrome trace events", make_chrome_json_sink});
    built_in.add({".db", "rocpd database", make_rocpd_sink});
    built_in.add({".hta", "per-rank Kineto JSON for HTA", make_kineto_sink});
    return built_in;
  }();
  return registry;
}

}  // namespace rocprof::merge
