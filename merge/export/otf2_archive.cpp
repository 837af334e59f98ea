#include "merge/export/otf2_archive.hpp"

#include <otf2/OTF2_IdMap.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "merge/events/gpu_names.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/op_names.hpp"
#include "merge/events/rank_progress.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/export/otf2_metrics.hpp"
#include "merge/export/otf2_mpi_events.hpp"
#include "merge/export/otf2_problems.hpp"
#include "merge/timeline/rank_timeline.hpp"

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
  std::uint32_t mpi;  // 1 + index of the call's MPI records on this location; 0 if none
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

void write_mpi_record(OTF2_EvtWriter* writer, std::uint64_t time, const Otf2MpiRecord& record,
                      const std::string& path) {
  using Kind = Otf2MpiRecord::Kind;
  OTF2_ErrorCode code = OTF2_SUCCESS;
  switch (record.kind) {
    case Kind::kSend:
      code = OTF2_EvtWriter_MpiSend(writer, nullptr, time, record.peer, record.communicator,
                                    record.tag, record.bytes);
      break;
    case Kind::kIsend:
      code = OTF2_EvtWriter_MpiIsend(writer, nullptr, time, record.peer, record.communicator,
                                     record.tag, record.bytes, record.request);
      break;
    case Kind::kIsendComplete:
      code = OTF2_EvtWriter_MpiIsendComplete(writer, nullptr, time, record.request);
      break;
    case Kind::kIrecvRequest:
      code = OTF2_EvtWriter_MpiIrecvRequest(writer, nullptr, time, record.request);
      break;
    case Kind::kRecv:
      code = OTF2_EvtWriter_MpiRecv(writer, nullptr, time, record.peer, record.communicator,
                                    record.tag, record.bytes);
      break;
    case Kind::kIrecv:
      code = OTF2_EvtWriter_MpiIrecv(writer, nullptr, time, record.peer, record.communicator,
                                     record.tag, record.bytes, record.request);
      break;
    case Kind::kCollectiveBegin:
      code = OTF2_EvtWriter_MpiCollectiveBegin(writer, nullptr, time);
      break;
    case Kind::kCollectiveRequest:
      code = OTF2_EvtWriter_NonBlockingCollectiveRequest(writer, nullptr, time, record.request);
      break;
    case Kind::kCollectiveComplete:
      code = OTF2_EvtWriter_NonBlockingCollectiveComplete(
          writer, nullptr, time, record.collective_op, record.communicator, record.peer,
          record.bytes, record.bytes_received, record.request);
      break;
    case Kind::kCollectiveEnd:
      code = OTF2_EvtWriter_MpiCollectiveEnd(writer, nullptr, time, record.collective_op,
                                             record.communicator, record.peer, record.bytes,
                                             record.bytes_received);
      break;
  }
  check(code, "write an MPI event", path);
}

// Communicators as OTF2 wants them: one group of every rank's MPI location (indexed by world
// rank), a group per communicator listing its members' world ranks, and the communicator.
void write_communicators(OTF2_GlobalDefWriter* global, const Otf2Communicators& communicators,
                         const std::map<std::int32_t, OTF2_LocationRef>& mpi_locations,
                         const std::map<std::int32_t, OTF2_LocationRef>& first_thread,
                         OTF2_StringRef locations_name, const std::vector<OTF2_StringRef>& names,
                         const std::string& path) {
  if (communicators.all().empty()) return;
  std::int32_t world_size = 0;
  for (const auto& comm : communicators.all())
    for (const std::int32_t member : comm.members) world_size = std::max(world_size, member + 1);
  std::vector<std::uint64_t> members(static_cast<std::size_t>(world_size), 0);
  for (std::int32_t r = 0; r < world_size; ++r) {
    const auto mpi = mpi_locations.find(r);
    members[static_cast<std::size_t>(r)] =
        mpi != mpi_locations.end() ? mpi->second : first_thread.at(r);
  }
  check(OTF2_GlobalDefWriter_WriteGroup(global, 0, locations_name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        static_cast<std::uint32_t>(members.size()), members.data()),
        "write the MPI location group", path);
  for (const auto& comm : communicators.all()) {
    const std::vector<std::uint64_t> ranks(comm.members.begin(), comm.members.end());
    check(OTF2_GlobalDefWriter_WriteGroup(
              global, comm.ref + 1, names[comm.ref], OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
              OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(ranks.size()), ranks.data()),
          "write a communicator group", path);
  }
  for (const auto& comm : communicators.all()) {
    const auto* parent = communicators.find(comm.parent);
    check(OTF2_GlobalDefWriter_WriteComm(global, comm.ref, names[comm.ref], comm.ref + 1,
                                         parent != nullptr ? parent->ref : OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE),
          "write a communicator", path);
  }
}

}  // namespace

std::string otf2_archive_conflict(const std::string& anchor_path) {
  namespace fs = std::filesystem;
  const fs::path anchor(anchor_path);
  const fs::path parent = anchor.has_parent_path() ? anchor.parent_path() : fs::path(".");
  const fs::path definitions = parent / (anchor.stem().string() + ".def");
  const fs::path directory = parent / anchor.stem();
  std::error_code code;
  if (fs::exists(definitions, code) && !fs::is_regular_file(definitions, code))
    return fmt::format("cannot write {}: {} exists and is not a file", anchor_path,
                       definitions.string());
  if (!fs::exists(directory, code)) return {};
  if (!fs::is_directory(directory, code))
    return fmt::format(
        "cannot write {}: the archive needs the directory {}, and a file has that name",
        anchor_path, directory.string());
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, code)) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file(code) || (extension != ".evt" && extension != ".def"))
      return fmt::format(
          "cannot write {}: the archive would replace the directory {}, which holds other "
          "files than an OTF2 archive's ({}); choose another name",
          anchor_path, directory.string(), entry.path().filename().string());
  }
  return {};
}

namespace {

// What each merge process reports to the first about the locations it wrote.
struct ProcessReport {
  std::vector<std::pair<std::pair<std::string, OTF2_Paradigm>, OTF2_RegionRole>> regions;
  std::vector<std::string> metrics;  // by this process's numbering
  std::vector<std::pair<std::uint32_t, OTF2_LocationRef>> metric_recorders;  // its numbering
  std::vector<Location> locations;
  std::map<std::int32_t, OTF2_LocationRef> mpi_locations;
  std::map<std::int32_t, OTF2_LocationRef> first_thread;
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last = 0;

  std::vector<std::byte> serialize() const {
    ByteWriter out;
    out.put<std::uint64_t>(regions.size());
    for (const auto& [key, role] : regions) {
      out.put_string(key.first);
      out.put<std::uint32_t>(key.second);
      out.put<std::uint32_t>(role);
    }
    out.put<std::uint64_t>(metrics.size());
    for (const std::string& metric : metrics) out.put_string(metric);
    out.put<std::uint64_t>(metric_recorders.size());
    for (const auto& [metric, location] : metric_recorders) {
      out.put(metric);
      out.put(location);
    }
    out.put<std::uint64_t>(locations.size());
    for (const Location& location : locations) {
      out.put(location.id);
      out.put_string(location.name);
      out.put<std::uint32_t>(location.type);
      out.put(location.events);
      out.put(location.rank);
    }
    for (const auto* map : {&mpi_locations, &first_thread}) {
      out.put<std::uint64_t>(map->size());
      for (const auto& [rank, location] : *map) {
        out.put(rank);
        out.put(location);
      }
    }
    out.put(first);
    out.put(last);
    return out.take();
  }
  static ProcessReport deserialize(std::span<const std::byte> bytes) {
    ByteReader in(bytes);
    ProcessReport report;
    const auto regions = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < regions; ++i) {
      std::string name = in.get_string();
      const auto paradigm = static_cast<OTF2_Paradigm>(in.get<std::uint32_t>());
      const auto role = static_cast<OTF2_RegionRole>(in.get<std::uint32_t>());
      report.regions.push_back({{std::move(name), paradigm}, role});
    }
    const auto metrics = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < metrics; ++i) report.metrics.push_back(in.get_string());
    const auto recorders = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < recorders; ++i) {
      const auto metric = in.get<std::uint32_t>();
      report.metric_recorders.emplace_back(metric, in.get<OTF2_LocationRef>());
    }
    const auto locations = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < locations; ++i) {
      Location location;
      location.id = in.get<OTF2_LocationRef>();
      location.name = in.get_string();
      location.type = static_cast<OTF2_LocationType>(in.get<std::uint32_t>());
      location.events = in.get<std::uint64_t>();
      location.rank = in.get<std::int32_t>();
      report.locations.push_back(std::move(location));
    }
    for (auto* map : {&report.mpi_locations, &report.first_thread}) {
      const auto count = in.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < count; ++i) {
        const auto rank = in.get<std::int32_t>();
        (*map)[rank] = in.get<OTF2_LocationRef>();
      }
    }
    report.first = in.get<std::uint64_t>();
    report.last = in.get<std::uint64_t>();
    return report;
  }
};

// A rank's locations are numbered from rank << 32, so that every merge process numbers its
// own without asking the others.
OTF2_LocationRef location_id(std::int32_t rank, std::size_t index) {
  return (static_cast<OTF2_LocationRef>(rank) << 32) | index;
}

// libotf2 (3.0.2) gathers writes smaller than 4 MiB into a buffer of that size, per file. When
// writing a full buffer fails (a full file system), it frees the buffer, and frees it again
// as the file closes: the merge died of a double free. Writes of 4 MiB or more go to the file
// at once, and the last chunk of a file is its only write gathered after them. So a buffer
// fills only in a file of more than 4 MiB written in smaller chunks.
constexpr std::uint64_t kGatheredBytes = std::uint64_t{4} << 20;

// The event chunk size: 1 MiB (every location fills and clears a chunk of its own, so larger
// chunks slow archives of many locations down), unless a location may hold more than 4 MiB
// of events, counted from its rank's rows at a generous 256 bytes each (far more than a row
// takes in these archives).
// Every process counts every rank: they open the archive with the same sizes.
std::uint64_t event_chunk_bytes(const std::vector<const AlignedRank*>& ranks) {
  constexpr std::uint64_t kBytesPerRowAtMost = 256;
  for (const AlignedRank* rank : ranks) {
    std::uint64_t rows = 0;
    for (const Table* table : all_tables()) rows += rank->reader().row_count(*table);
    if (rows * kBytesPerRowAtMost >= kGatheredBytes) return kGatheredBytes;
  }
  return std::uint64_t{1} << 20;
}

// The archive opened for writing (every process opens it): a new one, what the output's name
// held before removed by the first process.
OTF2_Archive* open_archive(const std::vector<const AlignedRank*>& ranks,
                           const std::string& anchor_path, const MergeShare& me) {
  namespace fs = std::filesystem;
  const fs::path anchor(anchor_path);
  const std::string directory = anchor.has_parent_path() ? anchor.parent_path().string() : ".";
  const std::string name = anchor.stem().string();
  if (me.leader()) {
    if (const std::string problem = otf2_archive_conflict(anchor_path); !problem.empty())
      throw std::runtime_error(problem);
    std::error_code ignored;
    fs::remove(anchor, ignored);  // OTF2 will not overwrite an archive
    fs::remove(fs::path(directory) / (name + ".def"), ignored);
    fs::remove_all(fs::path(directory) / name, ignored);
  }
  if (me.barrier) me.barrier();
  OTF2_Archive* archive = OTF2_Archive_Open(directory.c_str(), name.c_str(), OTF2_FILEMODE_WRITE,
                                            event_chunk_bytes(ranks), kGatheredBytes,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr)
    throw std::runtime_error(fmt::format("{}: cannot create the OTF2 archive", anchor_path));
  check(OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr), "set flush callbacks",
        anchor_path);
  if (me.set_otf2_collectives)
    me.set_otf2_collectives(archive);
  else
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "set collective callbacks",
          anchor_path);
  return archive;
}

OTF2_EvtWriter* event_writer(OTF2_Archive* archive, OTF2_LocationRef location,
                             const std::string& anchor_path) {
  OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive, location);
  if (writer == nullptr)
    throw std::runtime_error(fmt::format("{}: cannot open an event writer", anchor_path));
  return writer;
}

// A rank's enters and leaves, per location: (0 thread | 1 GPU queue, its id) -> events, not
// yet in time order.
struct RankEvents {
  std::map<std::pair<int, std::uint64_t>, std::vector<Event>> per_location;
  std::map<std::uint64_t, std::string> queue_names;
  std::map<std::uint32_t, RankMetrics::Session> metric_sessions;  // by session number
};

// A rank's timeline as regions entered and left per location (numbered in `defs` as first
// met), with the MPI records of its calls; widens `mine`'s time span to them. Marks have no
// place in OTF2's enter/leave model, and the flows none in its records.
class RankRegions {
 public:
  RankRegions(Definitions& defs, Otf2MetricNames& metrics, Otf2MpiEventMaker& mpi_events,
              ProcessReport& mine, const RankFileReader& reader)
      : defs_(defs), mpi_events_(mpi_events), mine_(mine), reader_(reader), metrics_(metrics) {}

  // The ranges' regions are defined after the calls' and the device work's, as first met in
  // a pass over the calls, the work, then the ranges (the archive's region numbering).
  RankEvents take() {
    for (const Range& range : ranges_)
      add(0, range.thread_id,
          defs_.region(reader_.string(range.name), OTF2_PARADIGM_USER, OTF2_REGION_ROLE_CODE),
          range.begin_ns, range.end_ns);
    ranges_.clear();
    collected_.metric_sessions = std::move(metrics_.sessions());
    return std::move(collected_);
  }

  void process(const TimelineProcess& /*process*/) {}
  void thread(std::uint32_t /*tid*/, const std::string& /*name*/) {}
  void mark(const TimelineMark& /*mark*/) {}
  void counter(const TimelineCounter& counter) {
    metrics_.add(counter, reader_.string(counter.row.counter));
    mine_.first = std::min(mine_.first, counter.row.timestamp_ns);
    mine_.last = std::max(mine_.last, counter.row.timestamp_ns);
  }

  void mpi_call(const TimelineMpiCall& call) {
    const MpiCallRow& row = call.row;
    const std::string& function = reader_.string(row.function);
    const std::uint32_t mpi = mpi_events_.advance(function, row, call.drawn);
    if (!call.drawn) return;
    add(0, row.thread_id, defs_.region(function, OTF2_PARADIGM_MPI, OTF2_REGION_ROLE_FUNCTION),
        row.begin_ns, row.end_ns, mpi);
  }

  void range(const TimelineRange& drawn) { ranges_.push_back(drawn.range); }

  void api_call(const TimelineApiCall& call) {
    const ApiCallRow& row = call.row;
    add(0, row.thread_id,
        defs_.region(call.names(row.domain, row.op), OTF2_PARADIGM_CUDA, OTF2_REGION_ROLE_FUNCTION),
        row.begin_ns, row.end_ns);
  }

  void gpu_work(const TimelineGpuWork& work) {
    const ActivityRow& row = work.row;
    const std::string region = work.names.of_activity(row);
    if (work.first_on_queue) collected_.queue_names.emplace(row.queue_id, *work.queue_name);
    add(1, row.queue_id, defs_.region(region, OTF2_PARADIGM_CUDA, OTF2_REGION_ROLE_FUNCTION),
        row.begin_ns, row.end_ns);
  }

 private:
  void add(int kind, std::uint64_t id, std::uint32_t region, std::uint64_t begin, std::uint64_t end,
           std::uint32_t mpi = 0) {
    end = std::max(begin, end);
    auto& events = collected_.per_location[{kind, id}];
    events.push_back({begin, end, region, true, mpi});
    events.push_back({end, begin, region, false, mpi});
    mine_.first = std::min(mine_.first, begin);
    mine_.last = std::max(mine_.last, end);
  }

  Definitions& defs_;
  Otf2MpiEventMaker& mpi_events_;
  ProcessReport& mine_;
  const RankFileReader& reader_;
  RankEvents collected_;
  std::vector<Range> ranges_;
  RankMetrics metrics_;
};

// Writes a location's events in time order, with the MPI records of its calls; returns how
// many MPI records it wrote.
std::uint64_t write_location_events(OTF2_EvtWriter* writer, std::vector<Event>& events,
                                    const Otf2MpiEventMaker& mpi_events,
                                    const std::string& anchor_path) {
  std::sort(events.begin(), events.end(), before);
  std::uint64_t mpi_records = 0;
  for (const Event& event : events) {
    if (event.enter)
      check(OTF2_EvtWriter_Enter(writer, nullptr, event.time, event.region), "write an event",
            anchor_path);
    if (event.mpi != 0) {
      const Otf2MpiCallRecords& call = mpi_events.call(event.mpi);
      for (const Otf2MpiRecord& record : event.enter ? call.at_begin : call.at_end)
        write_mpi_record(writer, event.time, record, anchor_path);
      mpi_records += (event.enter ? call.at_begin : call.at_end).size();
    }
    if (!event.enter)
      check(OTF2_EvtWriter_Leave(writer, nullptr, event.time, event.region), "write an event",
            anchor_path);
  }
  return mpi_records;
}

// One rank's event files: a location per thread and per GPU queue (an empty thread location
// if the rank has no host events: it still stands for the rank in communicators), reported
// in `mine`.
void write_rank(OTF2_Archive* archive, const AlignedRank& rank, Definitions& defs,
                Otf2MetricNames& metrics, const Otf2Communicators& communicators,
                ProcessReport& mine, Otf2Stats& stats, const std::string& anchor_path) {
  Otf2MpiEventMaker mpi_events(communicators);
  RankRegions regions(defs, metrics, mpi_events, mine, rank.reader());
  walk_rank_timeline(rank, regions, TimelineFlows::kNone);
  RankEvents collected = regions.take();
  std::size_t index = 0;
  for (auto& [key, events] : collected.per_location) {
    Location location;
    location.id = location_id(rank.rank(), index++);
    location.rank = rank.rank();
    location.type =
        key.first == 0 ? OTF2_LOCATION_TYPE_CPU_THREAD : OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
    location.name = key.first == 0
                        ? fmt::format("rank {} thread {}", rank.rank(), key.second)
                        : fmt::format("rank {} {}", rank.rank(), collected.queue_names[key.second]);
    OTF2_EvtWriter* writer = event_writer(archive, location.id, anchor_path);
    const std::uint64_t mpi_records =
        write_location_events(writer, events, mpi_events, anchor_path);
    if (mpi_records != 0 && !mine.mpi_locations.contains(rank.rank()))
      mine.mpi_locations[rank.rank()] = location.id;
    if (key.first == 0) mine.first_thread.try_emplace(rank.rank(), location.id);
    location.events = events.size() + mpi_records;
    check(OTF2_Archive_CloseEvtWriter(archive, writer), "close an event writer", anchor_path);
    stats.events += events.size();
    stats.mpi_records += mpi_records;
    mine.locations.push_back(std::move(location));
  }
  if (!mine.first_thread.contains(rank.rank())) {
    Location location{location_id(rank.rank(), index++), fmt::format("rank {} thread", rank.rank()),
                      OTF2_LOCATION_TYPE_CPU_THREAD, 0, rank.rank()};
    OTF2_EvtWriter* writer = event_writer(archive, location.id, anchor_path);
    check(OTF2_Archive_CloseEvtWriter(archive, writer), "close an event writer", anchor_path);
    mine.first_thread[rank.rank()] = location.id;
    mine.locations.push_back(std::move(location));
  }
  // A metric location per device the rank sampled.
  for (auto& [session, sampled] : collected.metric_sessions) {
    Location location{location_id(rank.rank(), index++),
                      fmt::format("rank {} {}", rank.rank(), sampled.device),
                      OTF2_LOCATION_TYPE_METRIC, sampled.samples.size(), rank.rank()};
    OTF2_EvtWriter* writer = event_writer(archive, location.id, anchor_path);
    std::vector<std::uint32_t> used;
    write_metric_events(writer, sampled.samples, used, anchor_path);
    check(OTF2_Archive_CloseEvtWriter(archive, writer), "close an event writer", anchor_path);
    for (const std::uint32_t metric : used) mine.metric_recorders.emplace_back(metric, location.id);
    stats.events += sampled.samples.size();
    mine.locations.push_back(std::move(location));
  }
}

// The world ranks the communicators name but no rank file holds (a rank the run did not
// trace, or whose file is missing or was skipped): an empty location each, so that every
// communicator's members stand for a location.
void write_untraced_ranks(OTF2_Archive* archive, const std::vector<const AlignedRank*>& ranks,
                          const Otf2Communicators& communicators, ProcessReport& mine,
                          const std::string& anchor_path) {
  std::set<std::int32_t> traced;
  for (const AlignedRank* rank : ranks) traced.insert(rank->rank());
  std::set<std::int32_t> named;
  for (const auto& comm : communicators.all())
    for (const std::int32_t member : comm.members) named.insert(member);
  for (std::int32_t r = 0; !named.empty() && r <= *named.rbegin(); ++r) {
    if (traced.contains(r)) continue;
    Location location{location_id(r, 0), fmt::format("rank {} (no trace)", r),
                      OTF2_LOCATION_TYPE_CPU_THREAD, 0, r};
    OTF2_EvtWriter* writer = event_writer(archive, location.id, anchor_path);
    check(OTF2_Archive_CloseEvtWriter(archive, writer), "close an event writer", anchor_path);
    mine.first_thread[r] = location.id;
    mine.locations.push_back(std::move(location));
  }
}

// This process's locations' definition files: the mapping of its region numbers onto the
// global ones, where it has regions.
void write_local_definitions(OTF2_Archive* archive, const ProcessReport& mine,
                             std::vector<std::uint32_t>& to_global,
                             std::vector<std::uint32_t>& metrics_to_global,
                             const std::string& anchor_path) {
  check(OTF2_Archive_OpenDefFiles(archive), "open definition files", anchor_path);
  auto id_map = [](std::vector<std::uint32_t>& ids) {
    return ids.empty() ? nullptr : OTF2_IdMap_CreateFromUint32Array(ids.size(), ids.data(), true);
  };
  OTF2_IdMap* mapping = id_map(to_global);
  OTF2_IdMap* metric_mapping = id_map(metrics_to_global);
  for (const Location& location : mine.locations) {
    OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(archive, location.id);
    if (mapping != nullptr && location.type != OTF2_LOCATION_TYPE_METRIC)
      check(OTF2_DefWriter_WriteMappingTable(writer, OTF2_MAPPING_REGION, mapping),
            "write a region mapping", anchor_path);
    if (metric_mapping != nullptr && location.type == OTF2_LOCATION_TYPE_METRIC)
      check(OTF2_DefWriter_WriteMappingTable(writer, OTF2_MAPPING_METRIC, metric_mapping),
            "write a metric mapping", anchor_path);
    check(OTF2_Archive_CloseDefWriter(archive, writer), "close a definition writer", anchor_path);
  }
  if (mapping != nullptr) OTF2_IdMap_Free(mapping);
  if (metric_mapping != nullptr) OTF2_IdMap_Free(metric_mapping);
  check(OTF2_Archive_CloseDefFiles(archive), "close definition files", anchor_path);
}

// Every process's locations together, and the job's time span.
struct JobLocations {
  std::vector<Location> locations;
  std::map<std::int32_t, OTF2_LocationRef> mpi_locations;
  std::map<std::int32_t, OTF2_LocationRef> first_thread;
  Otf2MetricNames metrics;  // numbered as first met in process order
  std::vector<std::pair<std::uint32_t, OTF2_LocationRef>> metric_recorders;
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last = 0;

  explicit JobLocations(const std::vector<ProcessReport>& reports) {
    for (const ProcessReport& report : reports) {
      for (const auto& [metric, location] : report.metric_recorders)
        metric_recorders.emplace_back(metrics.metric(report.metrics.at(metric)), location);
      locations.insert(locations.end(), report.locations.begin(), report.locations.end());
      mpi_locations.insert(report.mpi_locations.begin(), report.mpi_locations.end());
      first_thread.insert(report.first_thread.begin(), report.first_thread.end());
      first = std::min(first, report.first);
      last = std::max(last, report.last);
    }
    if (first > last) first = last = 0;
  }
};

// The global definitions (the first process's): clock, strings, regions, the system tree
// (a node per host), a location group per rank, the locations and the communicators.
void write_global_definitions(OTF2_Archive* archive, const std::vector<const AlignedRank*>& ranks,
                              Definitions& names, const JobLocations& job,
                              const Otf2Communicators& communicators,
                              const std::string& anchor_path) {
  OTF2_GlobalDefWriter* global_writer = OTF2_Archive_GetGlobalDefWriter(archive);
  const std::uint64_t realtime =
      ranks.empty() ? 0 : ranks.front()->reader().metadata().start_realtime_ns;
  check(OTF2_GlobalDefWriter_WriteClockProperties(global_writer, 1'000'000'000ULL, job.first,
                                                  job.last - job.first + 1, realtime),
        "write clock properties", anchor_path);
  // Strings first (every name used below is interned before writing).
  const OTF2_StringRef machine = names.string("machine");
  const OTF2_StringRef node_class = names.string("node");
  std::map<std::string, OTF2_StringRef> hosts;
  for (const AlignedRank* rank : ranks)
    hosts[rank->reader().metadata().hostname] = names.string(rank->reader().metadata().hostname);
  std::map<std::int32_t, OTF2_StringRef> rank_names;
  for (const AlignedRank* rank : ranks)
    rank_names[rank->rank()] = names.string(fmt::format("rank {}", rank->rank()));
  // Ranks with a location but no rank file (write_untraced_ranks): a group of their own.
  std::vector<std::int32_t> untraced;
  for (const auto& [rank, location] : job.first_thread)
    if (!rank_names.contains(rank)) untraced.push_back(rank);
  for (const std::int32_t rank : untraced)
    rank_names[rank] = names.string(fmt::format("rank {}", rank));
  for (const Location& location : job.locations) names.string(location.name);
  for (const std::string& metric : job.metrics.names()) {
    const Otf2MetricText text = metric_text(metric);
    for (const std::string* part : {&text.name, &text.description, &text.unit}) names.string(*part);
  }
  const OTF2_StringRef mpi_locations_name = names.string("MPI ranks");
  std::vector<OTF2_StringRef> comm_names;
  for (const auto& comm : communicators.all())
    comm_names.push_back(names.string(comm.creator == "MPI_COMM_WORLD"
                                          ? comm.creator
                                          : fmt::format("{} (id {})", comm.creator, comm.id)));
  const OTF2_StringRef empty = names.string("");
  std::vector<std::pair<OTF2_StringRef, std::string>> ordered;
  for (const auto& [text, id] : names.strings()) ordered.emplace_back(id, text);
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [id, text] : ordered)
    check(OTF2_GlobalDefWriter_WriteString(global_writer, id, text.c_str()), "write a string",
          anchor_path);
  std::vector<std::pair<std::uint32_t, std::pair<std::string, OTF2_Paradigm>>> regions;
  for (const auto& [key, region] : names.regions()) regions.emplace_back(region.id, key);
  std::sort(regions.begin(), regions.end());
  for (const auto& [id, key] : regions) {
    const OTF2_StringRef region_name = names.strings().at(key.first);
    check(OTF2_GlobalDefWriter_WriteRegion(global_writer, id, region_name, region_name, empty,
                                           names.regions().at(key).role, key.second,
                                           OTF2_REGION_FLAG_NONE, empty, 0, 0),
          "write a region", anchor_path);
  }
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(global_writer, 0, machine, machine,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "write the system tree", anchor_path);
  std::map<std::string, OTF2_SystemTreeNodeRef> host_nodes;
  for (const auto& [host, id] : hosts) {
    const auto node = static_cast<OTF2_SystemTreeNodeRef>(host_nodes.size() + 1);
    host_nodes[host] = node;
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(global_writer, node, id, node_class, 0),
          "write a node", anchor_path);
  }
  // A group per rank, in rank order (OTF2 readers want definitions in order of their ids);
  // a rank without a file hangs from the machine, its node unknown.
  std::map<std::int32_t, OTF2_SystemTreeNodeRef> rank_nodes;
  for (const AlignedRank* rank : ranks)
    rank_nodes[rank->rank()] = host_nodes.at(rank->reader().metadata().hostname);
  for (const std::int32_t rank : untraced) rank_nodes[rank] = 0;
  for (const auto& [rank, node] : rank_nodes)
    check(OTF2_GlobalDefWriter_WriteLocationGroup(
              global_writer, static_cast<OTF2_LocationGroupRef>(rank), rank_names.at(rank),
              OTF2_LOCATION_GROUP_TYPE_PROCESS, node, OTF2_UNDEFINED_LOCATION_GROUP),
          "write a location group", anchor_path);
  std::vector<const Location*> by_id;
  for (const Location& location : job.locations) by_id.push_back(&location);
  std::sort(by_id.begin(), by_id.end(),
            [](const Location* a, const Location* b) { return a->id < b->id; });
  for (const Location* location_ptr : by_id) {
    const Location& location = *location_ptr;
    check(OTF2_GlobalDefWriter_WriteLocation(
              global_writer, location.id, names.strings().at(location.name), location.type,
              location.events, static_cast<OTF2_LocationGroupRef>(location.rank)),
          "write a location", anchor_path);
  }
  write_communicators(global_writer, communicators, job.mpi_locations, job.first_thread,
                      mpi_locations_name, comm_names, anchor_path);
  write_metric_definitions(
      global_writer, job.metrics.names(), job.metric_recorders,
      [&names](const std::string& text) { return names.strings().at(text); }, anchor_path);
}

// The archive, written; export_otf2 below watches what libotf2 says meanwhile.
Otf2Stats write_archive(const std::vector<const AlignedRank*>& ranks,
                        const std::string& anchor_path, const ProgressReport& progress,
                        const MergeShare* share) {
  MergeShare serial;
  serial.last_rank = ranks.size();
  const MergeShare& me = share != nullptr ? *share : serial;
  OTF2_Archive* archive = open_archive(ranks, anchor_path, me);

  // This process's ranks' event files, its regions numbered as first met here.
  check(OTF2_Archive_OpenEvtFiles(archive), "open event files", anchor_path);
  Definitions defs;
  Otf2MetricNames metrics;
  ProcessReport mine;
  const Otf2Communicators communicators(ranks);
  Otf2Stats stats;
  ProgressSteps steps(progress, me.last_rank - me.first_rank);
  for (std::size_t r = me.first_rank; r < me.last_rank; ++r) {
    if (r + 1 < me.last_rank) ranks[r + 1]->read_ahead();  // while this one is written
    write_rank(archive, *ranks[r], defs, metrics, communicators, mine, stats, anchor_path);
    ranks[r]->done();
    steps.step();
  }
  if (me.leader()) write_untraced_ranks(archive, ranks, communicators, mine, anchor_path);
  check(OTF2_Archive_CloseEvtFiles(archive), "close event files", anchor_path);

  // Everyone's regions, numbered as first met in process order (a serial merge's numbering):
  // this process's own numbering maps onto it.
  std::vector<std::pair<std::uint32_t, std::pair<std::string, OTF2_Paradigm>>> local;
  for (const auto& [key, region] : defs.regions()) local.emplace_back(region.id, key);
  std::sort(local.begin(), local.end());
  for (const auto& [id, key] : local) mine.regions.emplace_back(key, defs.regions().at(key).role);
  mine.metrics = metrics.names();
  std::vector<ProcessReport> reports;
  if (me.all_gather) {
    for (const auto& bytes : me.all_gather(mine.serialize()))
      reports.push_back(ProcessReport::deserialize(bytes));
  } else {
    reports.push_back(mine);
  }
  Definitions global;
  for (const ProcessReport& report : reports)
    for (const auto& [key, role] : report.regions) global.region(key.first, key.second, role);
  std::vector<std::uint32_t> to_global;
  for (const auto& [key, role] : mine.regions) to_global.push_back(global.regions().at(key).id);
  JobLocations job(reports);
  std::vector<std::uint32_t> metrics_to_global;
  for (const std::string& metric : mine.metrics)
    metrics_to_global.push_back(job.metrics.metric(metric));
  write_local_definitions(archive, mine, to_global, metrics_to_global, anchor_path);

  stats.communicators = communicators.all().size();
  stats.locations = job.locations.size();
  stats.regions = global.regions().size();
  if (me.leader())
    write_global_definitions(archive, ranks, global, job, communicators, anchor_path);
  check(OTF2_Archive_Close(archive), "close the archive", anchor_path);
  return stats;
}

}  // namespace

Otf2Stats export_otf2(const std::vector<const AlignedRank*>& ranks, const std::string& anchor_path,
                      const ProgressReport& progress, const MergeShare* share) {
  // libotf2 returns success for some writes that failed (a full file system while the
  // definitions are written): what it said decides too.
  const Otf2Problems problems;
  Otf2Stats stats;
  try {
    stats = write_archive(ranks, anchor_path, progress, share);
  } catch (const std::exception&) {
    problems.throw_if_any(anchor_path);  // the cause, rather than what failed after it
    throw;
  }
  problems.throw_if_any(anchor_path);
  return stats;
}

}  // namespace rocprof::merge
