#include "merge/export/otf2_archive.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/rank_progress.hpp"

#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

OTF2_FlushType pre_flush(void* /*data*/, OTF2_FileType /*type*/, OTF2_LocationRef /*location*/,
                         void* /*callee*/, bool /*final*/) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void* /*data*/, OTF2_FileType /*type*/, OTF2_LocationRef /*location*/) {
  return 0;
}
const OTF2_FlushCallbacks kFlush = {pre_flush, post_flush};

// One enter or leave on a location; sorted so that regions nest (at equal times: leaves
// before enters, and the longer region outside).
struct Event {
  std::uint64_t time;
  std::uint64_t other_end;  // the leave time of an enter, the enter time of a leave
  std::uint32_t region;
  bool enter;
};
bool before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.enter != b.enter) return !a.enter;  // leave first
  // Enters: the one that ends later is outside. Leaves: the one that began later is inside.
  return a.other_end > b.other_end;
}

class Definitions {
 public:
  OTF2_StringRef string(const std::string& text) {
    const auto [it, added] = strings_.emplace(text, static_cast<OTF2_StringRef>(strings_.size()));
    return it->second;
  }
  std::uint32_t region(const std::string& name, OTF2_Paradigm paradigm, OTF2_RegionRole role) {
    const auto key = std::make_pair(name, paradigm);
    if (const auto found = regions_.find(key); found != regions_.end()) return found->second.id;
    const auto id = static_cast<std::uint32_t>(regions_.size());
    regions_[key] = {id, role};
    string(name);
    return id;
  }
  const std::map<std::string, OTF2_StringRef>& strings() const { return strings_; }
  struct Region {
    std::uint32_t id;
    OTF2_RegionRole role;
  };
  const std::map<std::pair<std::string, OTF2_Paradigm>, Region>& regions() const {
    return regions_;
  }

 private:
  std::map<std::string, OTF2_StringRef> strings_;
  std::map<std::pair<std::string, OTF2_Paradigm>, Region> regions_;
};

struct Location {
  OTF2_LocationRef id;
  std::string name;
  OTF2_LocationType type;
  std::uint64_t events;
  std::int32_t rank;
};

void check(OTF2_ErrorCode code, const std::string& what, const std::string& path) {
  if (code != OTF2_SUCCESS)
    throw std::runtime_error(
        fmt::format("{}: {} failed: {}", path, what, OTF2_Error_GetDescription(code)));
}

}  // namespace

Otf2Stats export_otf2(const std::vector<const AlignedRank*>& ranks, const std::string& anchor_path,
                      const ProgressReport& progress) {
  namespace fs = std::filesystem;
  const fs::path anchor(anchor_path);
  const std::string directory = anchor.has_parent_path() ? anchor.parent_path().string() : ".";
  const std::string name = anchor.stem().string();
  std::error_code ignored;
  fs::remove(anchor, ignored);  // OTF2 will not overwrite an archive
  fs::remove(fs::path(directory) / (name + ".def"), ignored);
  fs::remove_all(fs::path(directory) / name, ignored);
  OTF2_Archive* archive = OTF2_Archive_Open(directory.c_str(), name.c_str(), OTF2_FILEMODE_WRITE,
                                            std::uint64_t{1} << 20, std::uint64_t{4} << 20,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr)
    throw std::runtime_error(fmt::format("{}: cannot create the OTF2 archive", anchor_path));
  check(OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr), "set flush callbacks",
        anchor_path);
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "set collective callbacks",
        anchor_path);
  check(OTF2_Archive_OpenEvtFiles(archive), "open event files", anchor_path);

  Definitions defs;
  std::vector<Location> locations;
  Otf2Stats stats;
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last = 0;
  ProgressSteps steps(progress, ranks.size());
  for (const AlignedRank* rank : ranks) {
    const RankFileReader& reader = rank->reader();
    // Per location (thread, or GPU queue): its enters and leaves.
    std::map<std::pair<int, std::uint64_t>, std::vector<Event>>
        per_location;  // (0 thread|1 queue, id)
    auto add = [&](int kind, std::uint64_t id, std::uint32_t region, std::uint64_t begin,
                   std::uint64_t end) {
      end = std::max(begin, end);
      auto& events = per_location[{kind, id}];
      events.push_back({begin, end, region, true});
      events.push_back({end, begin, region, false});
      first = std::min(first, begin);
      last = std::max(last, end);
    };
    rank->for_each_mpi_call([&](const MpiCallRow& row) {
      const std::string& function = reader.string(row.function);
      if (is_per_request_row(function, row)) return;
      add(0, row.thread_id, defs.region(function, OTF2_PARADIGM_MPI, OTF2_REGION_ROLE_FUNCTION),
          row.begin_ns, row.end_ns);
    });
    std::map<std::uint64_t, std::string> op_names;
    for (const OpNameRow& op : reader.read_all<OpNameRow>())
      op_names[(std::uint64_t{op.domain} << 32) | op.op] = reader.string(op.name);
    auto op_name = [&](std::uint8_t domain, std::uint32_t op) {
      const auto found = op_names.find((std::uint64_t{domain} << 32) | op);
      return found != op_names.end() ? found->second : fmt::format("op {}", op);
    };
    rank->for_each_api_call([&](const ApiCallRow& row) {
      add(0, row.thread_id,
          defs.region(op_name(row.domain, row.op), OTF2_PARADIGM_CUDA, OTF2_REGION_ROLE_FUNCTION),
          row.begin_ns, row.end_ns);
    });
    rank->for_each_activity([&](const ActivityRow& row) {
      const std::string region =
          row.kernel_name != 0 ? reader.string(row.kernel_name) : op_name(row.domain, row.op);
      add(1, row.queue_id, defs.region(region, OTF2_PARADIGM_CUDA, OTF2_REGION_ROLE_FUNCTION),
          row.begin_ns, row.end_ns);
    });
    rank->for_each_marker(
        [](const MarkerRow&) {},
        [&](const Range& range) {
          add(0, range.thread_id,
              defs.region(reader.string(range.name), OTF2_PARADIGM_USER, OTF2_REGION_ROLE_CODE),
              range.begin_ns, range.end_ns);
        });
    for (auto& [key, events] : per_location) {
      std::sort(events.begin(), events.end(), before);
      Location location;
      location.id = static_cast<OTF2_LocationRef>(locations.size());
      location.rank = rank->rank();
      location.type =
          key.first == 0 ? OTF2_LOCATION_TYPE_CPU_THREAD : OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
      location.name = key.first == 0
                          ? fmt::format("rank {} thread {}", rank->rank(), key.second)
                          : fmt::format("rank {} GPU queue {}", rank->rank(), key.second);
      location.events = events.size();
      OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive, location.id);
      if (writer == nullptr)
        throw std::runtime_error(fmt::format("{}: cannot open an event writer", anchor_path));
      for (const Event& event : events) {
        check(event.enter ? OTF2_EvtWriter_Enter(writer, nullptr, event.time, event.region)
                          : OTF2_EvtWriter_Leave(writer, nullptr, event.time, event.region),
              "write an event", anchor_path);
      }
      check(OTF2_Archive_CloseEvtWriter(archive, writer), "close an event writer", anchor_path);
      stats.events += events.size();
      locations.push_back(std::move(location));
    }
    steps.step();
  }
  check(OTF2_Archive_CloseEvtFiles(archive), "close event files", anchor_path);

  // Local definition files: one (empty) per location, as readers expect.
  check(OTF2_Archive_OpenDefFiles(archive), "open definition files", anchor_path);
  for (const Location& location : locations) {
    OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(archive, location.id);
    check(OTF2_Archive_CloseDefWriter(archive, writer), "close a definition writer", anchor_path);
  }
  check(OTF2_Archive_CloseDefFiles(archive), "close definition files", anchor_path);

  OTF2_GlobalDefWriter* global = OTF2_Archive_GetGlobalDefWriter(archive);
  if (first > last) first = last = 0;
  const std::uint64_t realtime =
      ranks.empty() ? 0 : ranks.front()->reader().metadata().start_realtime_ns;
  check(OTF2_GlobalDefWriter_WriteClockProperties(global, 1'000'000'000ULL, first, last - first + 1,
                                                  realtime),
        "write clock properties", anchor_path);
  // Strings first (every name used below is interned before writing).
  const OTF2_StringRef machine = defs.string("machine");
  const OTF2_StringRef node_class = defs.string("node");
  std::map<std::string, OTF2_StringRef> hosts;
  for (const AlignedRank* rank : ranks)
    hosts[rank->reader().metadata().hostname] = defs.string(rank->reader().metadata().hostname);
  std::map<std::int32_t, OTF2_StringRef> rank_names;
  for (const AlignedRank* rank : ranks)
    rank_names[rank->rank()] = defs.string(fmt::format("rank {}", rank->rank()));
  for (const Location& location : locations) defs.string(location.name);
  const OTF2_StringRef empty = defs.string("");
  std::vector<std::pair<OTF2_StringRef, std::string>> ordered;
  for (const auto& [text, id] : defs.strings()) ordered.emplace_back(id, text);
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [id, text] : ordered)
    check(OTF2_GlobalDefWriter_WriteString(global, id, text.c_str()), "write a string",
          anchor_path);
  std::vector<std::pair<std::uint32_t, std::pair<std::string, OTF2_Paradigm>>> regions;
  for (const auto& [key, region] : defs.regions()) regions.emplace_back(region.id, key);
  std::sort(regions.begin(), regions.end());
  for (const auto& [id, key] : regions) {
    const OTF2_StringRef region_name = defs.strings().at(key.first);
    check(OTF2_GlobalDefWriter_WriteRegion(global, id, region_name, region_name, empty,
                                           defs.regions().at(key).role, key.second,
                                           OTF2_REGION_FLAG_NONE, empty, 0, 0),
          "write a region", anchor_path);
  }
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(global, 0, machine, machine,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "write the system tree", anchor_path);
  std::map<std::string, OTF2_SystemTreeNodeRef> host_nodes;
  for (const auto& [host, id] : hosts) {
    const auto node = static_cast<OTF2_SystemTreeNodeRef>(host_nodes.size() + 1);
    host_nodes[host] = node;
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(global, node, id, node_class, 0), "write a node",
          anchor_path);
  }
  for (const AlignedRank* rank : ranks)
    check(OTF2_GlobalDefWriter_WriteLocationGroup(
              global, static_cast<OTF2_LocationGroupRef>(rank->rank()), rank_names.at(rank->rank()),
              OTF2_LOCATION_GROUP_TYPE_PROCESS, host_nodes.at(rank->reader().metadata().hostname),
              OTF2_UNDEFINED_LOCATION_GROUP),
          "write a location group", anchor_path);
  for (const Location& location : locations)
    check(OTF2_GlobalDefWriter_WriteLocation(global, location.id, defs.strings().at(location.name),
                                             location.type, location.events,
                                             static_cast<OTF2_LocationGroupRef>(location.rank)),
          "write a location", anchor_path);
  check(OTF2_Archive_Close(archive), "close the archive", anchor_path);
  stats.locations = locations.size();
  stats.regions = regions.size();
  return stats;
}

}  // namespace rocprof::merge
