#include "merge/causality/messages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <type_traits>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "merge/events/message_endpoints.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/files/exclusive_file.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

constexpr std::size_t kSpillBufferRecords = 4096;
constexpr std::size_t kCursorRecords = 1024;  // per rank while matching: 16 KiB

std::string error_text() { return std::generic_category().message(errno); }

class ReadOnlyFile {
 public:
  // `when_missing`: what to say instead of the system's words if there is no such file.
  explicit ReadOnlyFile(const std::string& path, std::string_view when_missing = {})
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ >= 0) return;
    if (errno == ENOENT && !when_missing.empty())
      throw std::runtime_error(fmt::format("cannot read {}: {}", path, when_missing));
    throw std::runtime_error(fmt::format("cannot read {}: {}", path, error_text()));
  }
  ~ReadOnlyFile() { ::close(fd_); }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  int fd() const noexcept { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::vector<std::byte> SpillSummary::serialize() const {
  ByteWriter out;
  out.put_string(path);
  out.put_vector(streams);
  out.put_vector(invisible);
  out.put_vector(sections);
  return out.take();
}

SpillSummary SpillSummary::deserialize(std::span<const std::byte> bytes) {
  ByteReader in(bytes);
  SpillSummary summary;
  summary.path = in.get_string();
  summary.streams = in.get_vector<StreamCount>();
  summary.invisible = in.get_vector<InvisibleTarget>();
  summary.sections = in.get_vector<SpillSection>();
  return summary;
}

std::vector<std::byte> CausalityReport::serialize() const {
  ByteWriter out;
  out.put(messages);
  out.put(violations_before);
  out.put(violations_after);
  out.put(max_shift_ns);
  out.put_vector(given_up);
  out.put_vector(repaired);
  out.put_vector(repaired_ranks);
  out.put<std::uint64_t>(corrections.size());
  for (const auto& [rank, function] : corrections) {
    out.put(rank);
    out.put_vector(function->chunks());
    out.put_vector(function->deltas());
  }
  return out.take();
}

CausalityReport CausalityReport::deserialize(std::span<const std::byte> bytes) {
  ByteReader in(bytes);
  CausalityReport report;
  report.messages = in.get<std::uint64_t>();
  report.violations_before = in.get<std::uint64_t>();
  report.violations_after = in.get<std::uint64_t>();
  report.max_shift_ns = in.get<std::uint64_t>();
  report.given_up = in.get_vector<std::uint32_t>();
  report.repaired = in.get_vector<RepairedReceive>();
  report.repaired_ranks = in.get_vector<std::int32_t>();
  const auto count = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto rank = in.get<std::int32_t>();
    auto chunks = in.get_vector<StepFunction::Chunk>();
    auto deltas = in.get_vector<std::uint8_t>();
    report.corrections[rank] = std::make_shared<const StepFunction>(
        StepFunction::from_encoded(std::move(chunks), std::move(deltas)));
  }
  return report;
}

namespace {

// A rank's endpoints gathered in file order, renumbered so that each stream's sends, and its
// receives, take their places in the order they were posted (ties: file order), then put in
// time order, stable (a thread's own endpoints keep their order). A receive whose posting
// call overlaps another's on its stream is marked unordered: the two threads' posts have no
// order the rows can tell.
void renumber_by_posting(std::vector<SpilledEndpoint>& endpoints,
                         const std::vector<std::array<std::uint64_t, 2>>& posted) {
  std::vector<std::size_t> order(endpoints.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // By stream and side, then posting time: each run of one stream and side is renumbered.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto key = [&](std::size_t i) {
      return std::tuple(endpoints[i].stream, endpoints[i].receive(), posted[i][0]);
    };
    return key(a) < key(b);
  });
  std::uint32_t next = 0;
  std::size_t latest_end = 0;  // in the run: the earlier post whose call ended last
  std::vector<bool> unordered(endpoints.size(), false);
  for (std::size_t n = 0; n < order.size(); ++n) {
    const std::size_t i = order[n];
    SpilledEndpoint& endpoint = endpoints[i];
    const bool run_starts = n == 0 || endpoints[order[n - 1]].stream != endpoint.stream ||
                            endpoints[order[n - 1]].receive() != endpoint.receive();
    if (run_starts) {
      next = 0;
    } else if (posted[i][0] <= posted[latest_end][1]) {
      unordered[i] = true;
      unordered[latest_end] = true;
    }
    if (run_starts || posted[i][1] > posted[latest_end][1]) latest_end = i;
    endpoint.place = SpilledEndpoint::make_place(next++, endpoint.receive());
  }
  for (std::size_t i = 0; i < endpoints.size(); ++i)
    if (unordered[i] && endpoints[i].receive())
      endpoints[i].place =
          SpilledEndpoint::make_place(endpoints[i].ordinal(), true, /*unordered=*/true);
  std::stable_sort(
      endpoints.begin(), endpoints.end(),
      [](const SpilledEndpoint& a, const SpilledEndpoint& b) { return a.time_ns < b.time_ns; });
}

}  // namespace

EndpointSpill::EndpointSpill(const std::string& prefix) {
  for (int attempt = 0;; ++attempt) {
    const std::string path = unique_name(prefix);
    // Named for removal before it exists: a signal in between must not leave it.
    auto on_signal = std::make_unique<RemoveOnSignal>(path);
    fd_ = create_exclusive(path);
    if (fd_ >= 0) {
      remove_on_signal_ = std::move(on_signal);
      summary_.path = path;
      return;
    }
    if (errno != EEXIST || attempt == 8)
      throw std::runtime_error(fmt::format("cannot write {}: {}", path, error_text()));
  }
}

EndpointSpill::~EndpointSpill() {
  if (fd_ >= 0) ::close(fd_);
  if (!summary_.path.empty()) std::remove(summary_.path.c_str());
}

namespace {

// The records a rank's place holds: at most two endpoints per MPI call (a send and a
// receive: MPI_Sendrecv).
std::uint64_t place_records(const RankFileReader& reader) {
  return 2 * reader.row_count<MpiCallRow>();
}

}  // namespace

std::size_t EndpointSpill::reserve(const AlignedRank& rank) {
  const std::uint64_t most = place_records(rank.reader());
  const std::lock_guard lock(mutex_);
  summary_.sections.push_back({rank.rank(), 0, reserved_, 0});
  reserved_ += most;
  return summary_.sections.size() - 1;
}

void EndpointSpill::fill(std::size_t place, const AlignedRank& rank) {
  const RankFileReader& reader = rank.reader();
  std::uint64_t first = 0;
  {
    const std::lock_guard lock(mutex_);
    first = summary_.sections.at(place).first;
  }
  const std::uint64_t most = place_records(reader);
  std::uint64_t written = 0;
  thread_local std::vector<SpilledEndpoint> buffer;
  buffer.clear();
  auto write_buffer = [&] {
    if (written + buffer.size() > most)  // a bug: it would overwrite the next rank's place
      throw std::logic_error("a rank spilled more message endpoints than its place holds");
    const std::size_t bytes = buffer.size() * sizeof(SpilledEndpoint);
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t wrote =
          ::pwrite(fd_, reinterpret_cast<const char*>(buffer.data()) + done, bytes - done,
                   static_cast<off_t>((first + written) * sizeof(SpilledEndpoint) + done));
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0)
        throw std::runtime_error(fmt::format("writing {} failed: {}", summary_.path,
                                             wrote < 0 ? error_text() : "nothing written"));
      done += static_cast<std::size_t>(wrote);
    }
    written += buffer.size();
    buffer.clear();
  };
  // The helpers read and decode the blocks; this thread scans them in order, as the scanner
  // remembers requests, and moves each endpoint's time to the reference clock (uncorrected:
  // what matching works on). The scanner only passes times on, and most rows (collectives,
  // the requests of a wait) make no endpoint: only the endpoints' times are aligned.
  // Only the columns the scanner looks at: the external ids and byte counts stay unread.
  static const ColumnSet kScanned = columns_named(
      table_of<MpiCallRow>(),
      {"begin_ns", "end_ns", "communicator", "request", "thread_id", "function", "peer", "tag"});
  std::vector<std::array<std::uint64_t, 2>> counts;
  std::set<InvisibleTarget> invisible;
  // A rank whose threads all call MPI (MPI_THREAD_MULTIPLE) records its calls thread block
  // by thread block: its file order is not the order of its calls. Its endpoints are then
  // gathered, numbered in each stream in the order they were posted, and spilled in time
  // order (the order matching walks a rank in). Found at its second thread: scanned again.
  std::vector<SpilledEndpoint> gathered;
  // gathered[i]'s posting call, its begin and end, aligned
  std::vector<std::array<std::uint64_t, 2>> posted;
  std::optional<EndpointScanner> kept_scanner;
  auto scan = [&](bool gather) -> bool {
    kept_scanner.emplace(reader, rank.rank());
    EndpointScanner& scanner = *kept_scanner;
    PrefetchCursor<MpiCallRow> cursor(reader, {}, kPrefetchDepth, kScanned);
    AlignedRank::Aligner aligner(rank);
    std::vector<MpiCallRow> rows;
    std::array<MessageEndpoint, 2> endpoints;
    std::optional<std::uint32_t> thread;  // the one thread that made endpoints so far
    counts.clear();
    invisible.clear();
    while (cursor.next(rows))
      for (const MpiCallRow& row : rows) {
        const std::size_t found = scanner.scan(row, endpoints);
        if (found > 0 && !gather) {
          if (thread && *thread != row.thread_id) return false;
          thread = row.thread_id;
        }
        for (std::size_t i = 0; i < found; ++i) {
          const MessageEndpoint& endpoint = endpoints[i];
          if (endpoint.kind == MessageEndpoint::Kind::kInvisibleReceive) {
            invisible.insert({endpoint.stream.communicator, endpoint.stream.destination});
            continue;
          }
          // The stream's index here, looked up by key once per rank and stream.
          std::uint32_t& index = scanner.value(endpoint.stream_slot);
          if (index == EndpointScanner::kUnset) {
            const std::lock_guard lock(mutex_);
            const auto [entry, added] = local_.try_emplace(
                endpoint.stream, static_cast<std::uint32_t>(summary_.streams.size()));
            if (added) summary_.streams.push_back({endpoint.stream, 0, 0});
            index = entry->second;
          }
          const bool receive = endpoint.kind == MessageEndpoint::Kind::kReceive;
          if (endpoint.stream_slot >= counts.size()) counts.resize(endpoint.stream_slot + 1);
          ++counts[endpoint.stream_slot][receive ? 1 : 0];
          const SpilledEndpoint spilled{aligner.align_uncorrected(endpoint.local_ns), index,
                                        SpilledEndpoint::make_place(endpoint.ordinal, receive)};
          if (gather) {
            gathered.push_back(spilled);
            posted.push_back({aligner.align_uncorrected(endpoint.posted_ns),
                              aligner.align_uncorrected(endpoint.posted_end_ns)});
            continue;
          }
          buffer.push_back(spilled);
          if (buffer.size() == kSpillBufferRecords) write_buffer();
        }
      }
    return true;
  };
  if (!scan(false)) {
    buffer.clear();
    written = 0;
    scan(true);
    renumber_by_posting(gathered, posted);
    for (const SpilledEndpoint& endpoint : gathered) {
      buffer.push_back(endpoint);
      if (buffer.size() == kSpillBufferRecords) write_buffer();
    }
  }
  EndpointScanner& scanner = *kept_scanner;
  write_buffer();
  reader.release();
  const std::lock_guard lock(mutex_);
  summary_.sections[place].count = written;
  summary_.sections[place].threaded = gathered.empty() ? 0 : 1;
  for (std::uint32_t slot = 0; slot < counts.size(); ++slot) {
    if (counts[slot][0] == 0 && counts[slot][1] == 0) continue;
    StreamCount& stream = summary_.streams[scanner.value(slot)];
    stream.sends += counts[slot][0];
    stream.receives += counts[slot][1];
  }
  invisible_.insert(invisible.begin(), invisible.end());
}

const SpillSummary& EndpointSpill::finish() {
  const std::lock_guard lock(mutex_);
  summary_.invisible.assign(invisible_.begin(), invisible_.end());
  return summary_;
}

namespace {

// A rank's endpoints, read from its spill a block at a time.
class EndpointCursor {
 public:
  EndpointCursor(int fd, const std::string& path, const SpillSection& section,
                 const std::vector<std::uint32_t>& to_table)
      : fd_(fd),
        path_(path),
        next_(section.first),
        end_(section.first + section.count),
        rank_(section.rank),
        threaded_(section.threaded != 0),
        to_table_(to_table) {}

  // Moves to the next endpoint; false at the end.
  bool advance() {
    if (position_ + 1 < buffer_.size()) {
      ++position_;
      return true;
    }
    if (next_ >= end_) return false;
    const std::uint64_t count = std::min<std::uint64_t>(kCursorRecords, end_ - next_);
    buffer_.resize(count);
    const std::size_t bytes = count * sizeof(SpilledEndpoint);
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t got = ::pread(fd_, reinterpret_cast<char*>(buffer_.data()) + done, bytes - done,
                                  static_cast<off_t>(next_ * sizeof(SpilledEndpoint) + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw std::runtime_error(fmt::format("cannot read {}", path_));
      done += static_cast<std::size_t>(got);
    }
    next_ += count;
    position_ = 0;
    return true;
  }
  const SpilledEndpoint& head() const { return buffer_[position_]; }
  std::uint32_t stream() const { return to_table_[head().stream]; }
  std::int32_t rank() const { return rank_; }
  bool threaded() const { return threaded_; }

 private:
  int fd_;
  const std::string& path_;
  std::uint64_t next_;
  std::uint64_t end_;
  std::int32_t rank_;
  bool threaded_;
  const std::vector<std::uint32_t>& to_table_;
  std::vector<SpilledEndpoint> buffer_;
  std::size_t position_ = 0;
};

struct PassCounts {
  std::uint64_t before = 0;
  std::uint64_t after = 0;
  MatchingSteps steps;
};

double seconds_since(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

// The sends a correcting walk made stale: a raise of their rank's steps at or before their
// time came after they were sent, so the corrected time their receive was checked against is
// not final, and that receive may end before its send after all. Every other receive was
// fixed for good; only these need checking again. A rank's sends are kept while a raise can
// still reach them: from the time of the endpoint it is at on (a rank in time order raises
// no earlier). A rank whose times go back (a clock step, records of several threads) and
// raises before a send no longer kept is reopened: every send it made before that raise, at
// or after that time, is looked up again once the walk is over. Too many sends kept makes the
// tracking give up (a whole second walk counts then).
class StaleSends {
 public:
  // (stream << 32 | the send's ordinal) -> (its cursor, its uncorrected time).
  using Map = absl::flat_hash_map<std::uint64_t, std::pair<std::size_t, std::uint64_t>>;
  // A cursor whose sends among its first `endpoints` at `from` or later may be stale.
  struct Reopened {
    std::uint64_t from = ~std::uint64_t{0};
    std::uint64_t endpoints = 0;
  };

  explicit StaleSends(std::size_t cursors)
      : kept_(cursors), dropped_(cursors, 0), reached_(cursors, 0), reopened_(cursors) {}

  // Cursor `i` is at its next endpoint, of time `t`.
  void reach(std::size_t i, std::uint64_t t) {
    if (given_up_) return;
    ++reached_[i];
    std::vector<Sent>& kept = kept_[i];
    std::size_t gone = 0;
    while (gone < kept.size() && kept[gone].time < t) {
      dropped_[i] = std::max(dropped_[i], kept[gone].time + 1);
      ++gone;
    }
    if (gone > 0) kept.erase(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(gone));
  }
  void sent(std::size_t i, std::uint64_t t, std::uint32_t stream, std::uint32_t ordinal) {
    if (given_up_) return;
    kept_[i].push_back({t, stream, ordinal});
    if (kept_[i].size() > kMostKept) give_up();
  }
  // Cursor `i`'s steps were raised from `t` on (at the endpoint it reached last).
  void raised(std::size_t i, std::uint64_t t) {
    if (given_up_) return;
    if (t < dropped_[i]) {
      reopened_[i].from = std::min(reopened_[i].from, t);
      reopened_[i].endpoints = reached_[i];
    }
    for (const Sent& send : kept_[i])
      if (send.time >= t) mark(send.stream, send.ordinal, i, send.time);
  }
  void mark(std::uint32_t stream, std::uint32_t ordinal, std::size_t i, std::uint64_t t) {
    stale_[std::uint64_t{stream} << 32 | ordinal] = {i, t};
    if (stale_.size() > kMostStale) give_up();
  }
  // Whether a second walk must count what is left: the tracking gave up.
  bool given_up() const noexcept { return given_up_; }
  Map take_stale() noexcept { return std::move(stale_); }
  const std::vector<Reopened>& reopened() const noexcept { return reopened_; }

 private:
  struct Sent {
    std::uint64_t time;
    std::uint32_t stream;
    std::uint32_t ordinal;
  };
  static constexpr std::size_t kMostKept = 4096;         // of one rank, at or after its place
  static constexpr std::size_t kMostStale = 16'000'000;  // about 0.5 GiB
  void give_up() {
    given_up_ = true;
    kept_.clear();
    stale_.clear();
  }
  std::vector<std::vector<Sent>> kept_;
  std::vector<std::uint64_t> dropped_;  // the latest time of a send no longer kept, plus one
  std::vector<std::uint64_t> reached_;  // endpoints so far
  std::vector<Reopened> reopened_;
  Map stale_;
  bool given_up_ = false;
};

// A stream's messages sent and not yet received, by the sender's ordinal: sends arrive in
// ordinal order (each rank's endpoints are walked in its file order), receives in the order
// they completed, each naming the ordinal of the receive it completed.
struct InFlight {
  std::deque<std::pair<std::uint64_t, std::uint64_t>> sends;  // (uncorrected, corrected)
  std::deque<bool> taken;
  std::uint64_t first = 0;    // the ordinal of sends.front()
  std::int64_t waiting = -1;  // the cursor whose next receive waits for a send
  std::uint32_t wanted = 0;   // the ordinal it waits for
  // Receive places whose message a repaired receive took -> the message they get instead,
  // and back: the place now waiting for each such message.
  absl::flat_hash_map<std::uint32_t, std::uint32_t> redirected;
  absl::flat_hash_map<std::uint32_t, std::uint32_t> claimed_by;
  // The place that will take message `ordinal` (not taken yet): its own, or the one it was
  // handed to.
  std::uint32_t claimant(std::uint32_t ordinal) const {
    const auto found = claimed_by.find(ordinal);
    return found == claimed_by.end() ? ordinal : found->second;
  }
  // The receive that wanted `given_up` takes `instead`: whoever was to take `instead` gets
  // `given_up`.
  void exchange(std::uint32_t instead, std::uint32_t given_up) {
    const std::uint32_t place = claimant(instead);
    claimed_by.erase(instead);
    redirected[place] = given_up;
    claimed_by[given_up] = place;
  }
  bool has(std::uint32_t ordinal) const { return ordinal < first + sends.size(); }
  // The earliest message before `before` not taken yet and sent at or before `time`. A
  // stream's sends come in the order they were posted, so the search ends at the first one
  // sent later (sends.front() is never taken: the search is short).
  std::optional<std::uint32_t> untaken_sent_by(std::uint32_t before, std::uint64_t time) const {
    for (std::uint32_t ordinal = first; ordinal < before; ++ordinal) {
      const auto index = static_cast<std::size_t>(ordinal - first);
      if (sends[index].first > time) break;
      if (!taken[index]) return ordinal;
    }
    return std::nullopt;
  }
  // The latest message before `before` not taken yet and sent at or before `time`.
  std::optional<std::uint32_t> latest_untaken_sent_by(std::uint32_t before,
                                                      std::uint64_t time) const {
    std::optional<std::uint32_t> latest;
    for (std::uint32_t ordinal = first; ordinal < before && has(ordinal); ++ordinal) {
      const auto index = static_cast<std::size_t>(ordinal - first);
      if (sends[index].first > time) break;
      if (!taken[index]) latest = ordinal;
    }
    return latest;
  }
  std::pair<std::uint64_t, std::uint64_t> take(std::uint32_t ordinal) {
    const auto index = static_cast<std::size_t>(ordinal - first);
    taken[index] = true;
    const auto sent = sends[index];
    while (!taken.empty() && taken.front()) {
      sends.pop_front();
      taken.pop_front();
      ++first;
    }
    return sent;
  }
};

// The job's streams as the matching sees them: those it gives up are no longer matched. An
// overlay on the table rather than a copy of it (every merge process walks).
class MatchingStreams {
 public:
  explicit MatchingStreams(const StreamTable& table) : table_(table), given_up_(table.size()) {}
  std::size_t size() const noexcept { return table_.size(); }
  bool matched(std::uint32_t stream) const { return table_.matched(stream) && !given_up_[stream]; }
  void unmatch(std::uint32_t stream) { given_up_[stream] = true; }
  std::uint64_t matched_messages() const {
    std::uint64_t messages = table_.matched_messages();
    for (std::uint32_t stream = 0; stream < given_up_.size(); ++stream)
      if (given_up_[stream] && table_.matched(stream)) messages -= table_.stream(stream).sends;
    return messages;
  }

 private:
  const StreamTable& table_;
  std::vector<bool> given_up_;
};

// Who walks what. Each merge process walks the cursors of the ranks it spilled; a stream's
// messages in flight are held by the process that walks its receives, to which the sender's
// process hands each send (its uncorrected and corrected times) at the end of an iteration.
// Where a rank was spilled twice or a stream has receives in two spills (files given twice,
// damaged ones), the first process walks every cursor, as a walk by one process would.
struct WalkPlan {
  const AnalysisExchange& exchange;
  std::vector<std::uint32_t> receiver;  // by stream: the process holding its messages in flight
  std::uint32_t owner(std::uint32_t stream) const { return receiver[stream]; }
};

constexpr std::uint64_t kNever = ~std::uint64_t{0};
constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

// A send handed to the process that walks its receive.
struct HandedSend {
  std::uint32_t stream;
  std::uint32_t unused = 0;
  std::uint64_t sent;       // uncorrected
  std::uint64_t corrected;  // by the sender's steps when it was taken
};

// What a process says of itself at the end of every iteration of a round.
struct IterationNote {
  std::uint64_t handed = 0;         // sends handed to other processes in this iteration
  std::uint64_t taken = 0;          // endpoints taken in this round so far
  std::uint64_t active = 0;         // cursors that began the round
  std::uint64_t earliest = kNever;  // the earliest head of a paused cursor
};

// What a process says of itself when no cursor of any process can go on.
struct StuckNote {
  std::uint64_t repairable = kNever;      // the first stream whose waiting receive can be repaired
  std::uint64_t waiting_time = kNever;    // the earliest waiting receive: its time
  std::uint64_t waiting_stream = kNever;  // and its stream
};

// Every process's `value`, in process order.
template <typename T>
std::vector<T> share_value(const AnalysisExchange& exchange, const T& value) {
  ByteWriter out;
  out.put(value);
  std::vector<T> values;
  for (const std::vector<std::byte>& part : all_gather(exchange, out.take())) {
    ByteReader in(part);
    values.push_back(in.get<T>());
  }
  return values;
}

// When no rank can go on: a threaded rank's waiting receive whose posting order its rows could
// not tell (its thread's call overlapped another's) may hold the place of a message not sent
// yet while an earlier one, sent before it ended, is still untaken. The message it takes
// instead: the latest such one (nullopt where the stream's waiting receive is no such one).
std::optional<std::uint32_t> repair_target(const InFlight& flight,
                                           const std::vector<EndpointCursor>& cursors) {
  if (flight.waiting < 0) return std::nullopt;
  const EndpointCursor& cursor = cursors[static_cast<std::size_t>(flight.waiting)];
  const SpilledEndpoint& head = cursor.head();
  if (!cursor.threaded() || !head.unordered()) return std::nullopt;
  const std::uint64_t latest_send = head.time_ns - std::min(head.time_ns, kLeastLatencyNs);
  const auto instead = flight.latest_untaken_sent_by(flight.wanted, latest_send);
  if (!instead || flight.claimant(*instead) == head.ordinal()) return std::nullopt;
  return instead;
}

// The waiting receive takes message `instead` (repair_target), and the receive that was to
// take that one gets the awaited message. Returns the cursor to resume.
std::size_t repair_waiting_receive(const std::vector<EndpointCursor>& cursors, InFlight& flight,
                                   std::uint32_t instead) {
  const auto waiting = static_cast<std::size_t>(flight.waiting);
  const std::uint32_t place = cursors[waiting].head().ordinal();
  flight.exchange(instead, flight.wanted);
  flight.redirected[place] = instead;
  flight.claimed_by[instead] = place;
  flight.waiting = -1;
  return waiting;
}

// The rounds' first time window; each next one is widened or narrowed so that a round takes
// about kRoundEndpoints endpoints per rank (kSharedRoundEndpoints where processes share the
// walk: each round ends with exchanges between them, whose cost wants longer rounds).
constexpr std::uint64_t kFirstWindowNs = 100'000;
constexpr std::uint64_t kRoundEndpoints = 256;
constexpr std::uint64_t kSharedRoundEndpoints = 4096;

// One walk over every rank's endpoints, each rank's in its file order, a receive only after
// its send: so a rank's correction is final up to each send it makes before the receiver
// looks at it. Counts violations; with `correct`, raises the receivers' steps.
//
// What it finds does not depend on which rank goes next (each rank's endpoints are taken in
// its order, and a receive waits for its send's), so ranks need not be interleaved endpoint
// by endpoint in time order: each runs as far as it can up to a time horizon, in rounds. The
// horizon only keeps the messages in flight (held in memory) few; a rank's run is a scan of
// its block, with no heap to keep in order. Nor does it depend on which process walks a rank:
// the processes of `plan` walk their cursors in the same rounds, each round a series of
// iterations that end in one exchange (the sends for the others, and how far each got),
// until no process has a send to hand on; the horizon is the same on every process.
// `repaired` and `repaired_ranks` (may be null) receive the receives paired otherwise than
// their places say (see RepairedReceive); `given_up`, the streams given up (the same on
// every process).
// `stale` (may be null, and is for a walk that does not correct) notes the sends a correcting
// walk moved after their receive was checked (StaleSends).
PassCounts walk(std::vector<EndpointCursor>& cursors, MatchingStreams& table,
                std::vector<StepFunction*>& steps, bool correct, const WalkPlan& plan,
                std::vector<std::uint32_t>& given_up, std::vector<RepairedReceive>* repaired,
                std::vector<std::int32_t>* repaired_ranks, StaleSends* stale) {
  PassCounts counts;
  const AnalysisExchange& exchange = plan.exchange;
  const std::size_t processes = exchange.processes();
  const auto me = static_cast<std::uint32_t>(exchange.index());
  // The streams whose messages this process holds in flight, by their slot here.
  std::vector<std::uint32_t> slot(table.size(), kNoSlot);
  std::vector<std::uint32_t> held;  // slot -> stream, in the table's order
  for (std::uint32_t s = 0; s < table.size(); ++s)
    if (plan.owner(s) == me) {
      slot[s] = static_cast<std::uint32_t>(held.size());
      held.push_back(s);
    }
  std::vector<InFlight> streams(held.size());
  auto flight_of = [&](std::uint32_t stream) -> InFlight& {
    if (slot[stream] == kNoSlot)  // a bug: the plan gave the stream's receives to another
      throw std::logic_error("a receive of a stream another merge process holds");
    return streams[slot[stream]];
  };
  std::vector<std::uint32_t> sends_made;  // by stream, for the stale sends' ordinals
  if (stale != nullptr) sends_made.assign(table.size(), 0);
  std::vector<std::vector<HandedSend>> outbox(processes);
  std::uint64_t handed = 0;
  // Without raises the functions stay as they are: lookups that keep a decoded chunk serve
  // the times of a pass (a second pass, after the correction, goes over every step).
  std::vector<StepFunction::Lookup> lookups;
  if (!correct)
    for (const StepFunction* function : steps) lookups.emplace_back(*function);
  auto corrected = [&](std::size_t cursor, std::uint64_t t) {
    return t + (correct ? steps[cursor]->at(t) : lookups[cursor].at(t));
  };
  std::vector<std::size_t> runnable;  // in this round
  std::vector<std::size_t> paused;    // at the horizon, for the next round
  for (std::size_t i = 0; i < cursors.size(); ++i)
    if (cursors[i].advance()) paused.push_back(i);
  std::uint64_t window = kFirstWindowNs;
  const std::uint64_t round_endpoints = processes == 1 ? kRoundEndpoints : kSharedRoundEndpoints;
  auto arrive = [&](std::uint32_t stream, std::uint64_t sent, std::uint64_t sent_corrected) {
    InFlight& flight = flight_of(stream);
    flight.sends.emplace_back(sent, sent_corrected);
    flight.taken.push_back(false);
    if (flight.waiting >= 0 && flight.has(flight.wanted)) {
      runnable.push_back(static_cast<std::size_t>(flight.waiting));
      flight.waiting = -1;
    }
  };
  // Takes cursor i's endpoints up to `last` (inclusive); stops early at a receive whose send
  // has not been taken yet (the cursor then waits on that stream) or at the cursor's end.
  // Returns how many it took.
  auto run = [&](std::size_t i, std::uint64_t last) -> std::uint64_t {
    EndpointCursor& cursor = cursors[i];
    std::uint64_t taken = 0;
    for (;;) {
      const SpilledEndpoint& endpoint = cursor.head();
      if (endpoint.time_ns > last) {
        paused.push_back(i);
        return taken;
      }
      const std::uint32_t stream = cursor.stream();
      if (stale != nullptr) stale->reach(i, endpoint.time_ns);
      if (table.matched(stream)) {
        if (!endpoint.receive()) {
          if (stale != nullptr) stale->sent(i, endpoint.time_ns, stream, sends_made[stream]++);
          const std::uint64_t sent_corrected = corrected(i, endpoint.time_ns);
          const std::uint32_t owner = plan.owner(stream);
          if (owner == me) {
            arrive(stream, endpoint.time_ns, sent_corrected);
          } else {
            outbox[owner].push_back({stream, 0, endpoint.time_ns, sent_corrected});
            ++handed;
          }
        } else {
          InFlight& flight = flight_of(stream);
          const std::uint32_t place = endpoint.ordinal();
          // Only a threaded rank's repaired receives redirect: most streams never look it up.
          const auto redirect =
              flight.redirected.empty() ? flight.redirected.end() : flight.redirected.find(place);
          std::uint32_t ordinal = redirect != flight.redirected.end() ? redirect->second : place;
          // ordinal < first: its send was taken already, a second receive in one place (a
          // damaged file); it is passed over.
          if (ordinal >= flight.first) {
            if (!flight.has(ordinal)) {
              flight.waiting = static_cast<std::int64_t>(i);  // runs again when the send comes
              flight.wanted = ordinal;
              return taken;
            }
            if (redirect != flight.redirected.end()) {
              flight.redirected.erase(redirect);
              flight.claimed_by.erase(ordinal);
            }
            // An unordered receive of a threaded rank ending too soon after its send began: its
            // thread posted before the one whose place it has (their calls' starts say
            // otherwise).
            const auto& wanted = flight.sends[static_cast<std::size_t>(ordinal - flight.first)];
            if (cursor.threaded() && endpoint.unordered() &&
                endpoint.time_ns < wanted.first + kLeastLatencyNs) {
              const std::uint64_t latest_send =
                  endpoint.time_ns - std::min(endpoint.time_ns, kLeastLatencyNs);
              if (const auto earlier = flight.untaken_sent_by(ordinal, latest_send)) {
                flight.exchange(*earlier, ordinal);
                ordinal = *earlier;
              }
            }
            if (ordinal != place && repaired != nullptr) {
              repaired->push_back({stream, place, ordinal});
              if (repaired_ranks->empty() || repaired_ranks->back() != cursor.rank())
                repaired_ranks->push_back(cursor.rank());
            }
            const auto [sent, sent_corrected] = flight.take(ordinal);
            if (endpoint.time_ns < sent) ++counts.before;
            const std::uint64_t received = corrected(i, endpoint.time_ns);
            if (received < sent_corrected) {
              if (correct) {
                steps[i]->raise(endpoint.time_ns, sent_corrected - received);
                if (stale != nullptr) stale->raised(i, endpoint.time_ns);
              } else {
                ++counts.after;
              }
            }
          }
        }
      }
      ++taken;
      if (!cursor.advance()) return taken;
    }
  };
  // Every process's note; the sends handed to this one arrive (in process order: a stream's
  // sends all come from its sender's process, in order).
  auto end_iteration = [&](const IterationNote& note) -> std::vector<IterationNote> {
    if (processes == 1) return {note};
    std::vector<std::vector<std::byte>> parts(processes);
    for (std::size_t p = 0; p < processes; ++p) {
      ByteWriter out;
      out.put(note);
      out.put_vector(outbox[p]);
      parts[p] = out.take();
      outbox[p].clear();
    }
    std::vector<IterationNote> notes;
    for (const std::vector<std::byte>& part : exchange.all_to_all(std::move(parts))) {
      ByteReader in(part);
      notes.push_back(in.get<IterationNote>());
      for (const HandedSend& send : in.get_vector<HandedSend>())
        arrive(send.stream, send.sent, send.corrected);
    }
    return notes;
  };
  // No rank of any process can go on: receives still waiting have sends that never come
  // before them. A threaded rank's waiting receive is repaired where one can be (the first
  // such stream); else the stream of the earliest waiting receive is given up (the input's
  // order is inconsistent there). False when no receive waits: the walk is over.
  auto unstick = [&]() -> bool {
    StuckNote mine;
    for (std::size_t n = 0; n < held.size(); ++n) {
      const InFlight& flight = streams[n];
      if (flight.waiting < 0) continue;
      if (mine.repairable == kNever && repair_target(flight, cursors)) mine.repairable = held[n];
      const std::uint64_t time = cursors[static_cast<std::size_t>(flight.waiting)].head().time_ns;
      if (time < mine.waiting_time) {
        mine.waiting_time = time;
        mine.waiting_stream = held[n];
      }
    }
    StuckNote all;
    for (const StuckNote& note : share_value(exchange, mine)) {
      all.repairable = std::min(all.repairable, note.repairable);
      if (std::pair(note.waiting_time, note.waiting_stream) <
          std::pair(all.waiting_time, all.waiting_stream)) {
        all.waiting_time = note.waiting_time;
        all.waiting_stream = note.waiting_stream;
      }
    }
    if (all.waiting_stream == kNever) return false;
    if (all.repairable != kNever) {
      const auto stream = static_cast<std::uint32_t>(all.repairable);
      if (plan.owner(stream) == me) {
        InFlight& flight = flight_of(stream);
        paused.push_back(repair_waiting_receive(cursors, flight, *repair_target(flight, cursors)));
      }
      return true;
    }
    const auto stream = static_cast<std::uint32_t>(all.waiting_stream);
    table.unmatch(stream);
    given_up.push_back(stream);
    if (plan.owner(stream) == me) {
      InFlight& flight = flight_of(stream);
      paused.push_back(static_cast<std::size_t>(flight.waiting));
      flight = InFlight{};
    }
    return true;
  };
  bool in_round = false;
  std::uint64_t last = 0;
  std::uint64_t taken = 0;
  std::uint64_t active = 0;
  MatchingSteps& steps_taken = counts.steps;
  for (;;) {
    const auto walking = std::chrono::steady_clock::now();
    while (!runnable.empty()) {
      const std::size_t i = runnable.back();
      runnable.pop_back();
      const std::uint64_t endpoints = run(i, last);
      taken += endpoints;
      steps_taken.endpoints += endpoints;
    }
    steps_taken.handed += handed;
    IterationNote note{handed, taken, active, kNever};
    for (const std::size_t i : paused)
      note.earliest = std::min(note.earliest, cursors[i].head().time_ns);
    handed = 0;
    const auto exchanging = std::chrono::steady_clock::now();
    steps_taken.walking_s += std::chrono::duration<double>(exchanging - walking).count();
    if (processes > 1) ++steps_taken.exchanges;
    IterationNote all{0, 0, 0, kNever};
    for (const IterationNote& each : end_iteration(note)) {
      all.handed += each.handed;
      all.taken += each.taken;
      all.active += each.active;
      all.earliest = std::min(all.earliest, each.earliest);
    }
    steps_taken.exchanging_s += seconds_since(exchanging);
    if (all.handed > 0) continue;  // the sends handed on may let cursors go on
    // The round is over on every process.
    if (in_round) {
      const std::uint64_t wanted = round_endpoints * all.active;
      if (all.taken < wanted / 2 && window < (std::uint64_t{1} << 62))
        window *= 2;
      else if (all.taken > wanted * 2 && window > 1)
        window /= 2;
      in_round = false;
    }
    if (all.earliest == kNever) {
      const auto unsticking = std::chrono::steady_clock::now();
      const bool stuck = unstick();
      steps_taken.exchanging_s += seconds_since(unsticking);
      if (!stuck) break;
      continue;
    }
    ++steps_taken.rounds;
    // The earliest endpoint is always within the horizon: every round makes progress.
    last = all.earliest > kNever - (window - 1) ? kNever : all.earliest + (window - 1);
    active = paused.size();
    taken = 0;
    runnable.swap(paused);
    paused.clear();
    in_round = true;
  }
  return counts;
}

// A correcting walk's stale sends (StaleSends) of cursors whose times went back: every send
// such a cursor made before its raise, at or after the raise's time, numbered in its stream
// as the walk numbered it (on a stream still matched, the walk took every send). False if
// there are too many to keep.
bool mark_reopened(std::vector<EndpointCursor> cursors, const MatchingStreams& table,
                   StaleSends& tracked) {
  for (std::size_t i = 0; i < cursors.size(); ++i) {
    const StaleSends::Reopened& reopened = tracked.reopened()[i];
    if (reopened.endpoints == 0) continue;
    EndpointCursor& cursor = cursors[i];
    absl::flat_hash_map<std::uint32_t, std::uint32_t> sends;
    for (std::uint64_t n = 0; n < reopened.endpoints && cursor.advance(); ++n) {
      const SpilledEndpoint& endpoint = cursor.head();
      const std::uint32_t stream = cursor.stream();
      if (endpoint.receive() || !table.matched(stream)) continue;
      const std::uint32_t ordinal = sends[stream]++;
      if (endpoint.time_ns >= reopened.from) tracked.mark(stream, ordinal, i, endpoint.time_ns);
    }
    if (tracked.given_up()) return false;
  }
  return true;
}

// A stale send with its final corrected time, for the process that walks its receive.
struct FinalSend {
  std::uint64_t message;  // stream << 32 | ordinal
  std::uint64_t corrected;
};

// The receives of the sends a correcting walk made stale (StaleSends) that end before their
// send by the final steps. Each process hands its stale sends' final times to the process
// that walks their receives, which looks them up. A receive takes the message its place says,
// or the one the walk paired it with (`repaired`, this process's); a stream the walk gave up
// pairs nothing; a message is received once (a second receive in its place, in a damaged
// file, is passed over as the walk passes it over). This process's count.
std::uint64_t stale_receives_before_send(std::vector<EndpointCursor> cursors,
                                         const MatchingStreams& table,
                                         const std::vector<StepFunction*>& steps,
                                         const WalkPlan& plan,
                                         const std::vector<RepairedReceive>& repaired,
                                         StaleSends& tracked) {
  std::vector<std::vector<FinalSend>> to(plan.exchange.processes());
  for (const auto& [message, send] : tracked.take_stale()) {
    const auto [sender, sent] = send;
    to[plan.owner(static_cast<std::uint32_t>(message >> 32))].push_back(
        {message, sent + steps[sender]->at(sent)});
  }
  std::vector<std::vector<std::byte>> parts;
  for (const std::vector<FinalSend>& sends : to) {
    ByteWriter out;
    out.put_vector(sends);
    parts.push_back(out.take());
  }
  to.clear();
  absl::flat_hash_map<std::uint64_t, std::uint64_t> stale;  // message -> its final send time
  std::vector<bool> touched(table.size(), false);
  for (const std::vector<std::byte>& part : plan.exchange.all_to_all(std::move(parts))) {
    ByteReader in(part);
    for (const FinalSend& send : in.get_vector<FinalSend>()) {
      stale[send.message] = send.corrected;
      touched[send.message >> 32] = true;
    }
  }
  absl::flat_hash_map<std::uint64_t, std::uint32_t> paired;
  for (const RepairedReceive& receive : repaired)
    paired[std::uint64_t{receive.stream} << 32 | receive.place] = receive.message;
  std::uint64_t before = 0;
  for (std::size_t i = 0; i < cursors.size() && !stale.empty(); ++i) {
    EndpointCursor& cursor = cursors[i];
    while (cursor.advance()) {
      const SpilledEndpoint& endpoint = cursor.head();
      const std::uint32_t stream = cursor.stream();
      if (!endpoint.receive() || !touched[stream] || !table.matched(stream)) continue;
      const std::uint64_t place = std::uint64_t{stream} << 32 | endpoint.ordinal();
      const auto pairing = paired.find(place);
      const std::uint64_t message =
          pairing == paired.end() ? place : (std::uint64_t{stream} << 32 | pairing->second);
      const auto send = stale.find(message);
      if (send == stale.end()) continue;
      if (endpoint.time_ns + steps[i]->at(endpoint.time_ns) < send->second) ++before;
      stale.erase(send);
    }
  }
  return before;
}

// Which process holds each stream's messages in flight (WalkPlan), and walks each spill
// (`walkers`, as given): the walker of the spill with the stream's receives, where no rank
// and no stream's receives are in two spills; else the first process, for every spill.
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> plan_owners(
    const std::vector<SpillSummary>& spills,
    const std::vector<std::vector<std::uint32_t>>& to_table, std::size_t table_size,
    const std::vector<std::uint32_t>& walkers) {
  auto alone = [&] {
    return std::pair(std::vector<std::uint32_t>(spills.size(), 0),
                     std::vector<std::uint32_t>(table_size, 0));
  };
  if (walkers.size() != spills.size()) throw std::logic_error("a walker per spill is needed");
  absl::flat_hash_set<std::int32_t> ranks;
  for (const SpillSummary& spill : spills)
    for (const SpillSection& section : spill.sections)
      if (!ranks.insert(section.rank).second) return alone();
  std::vector<std::uint32_t> receiver(table_size, kNoSlot);
  for (std::size_t s = 0; s < spills.size(); ++s)
    for (std::size_t k = 0; k < spills[s].streams.size(); ++k) {
      if (spills[s].streams[k].receives == 0) continue;
      std::uint32_t& owner = receiver[to_table[s][k]];
      if (owner != kNoSlot) return alone();
      owner = walkers[s];
    }
  for (std::uint32_t& owner : receiver)
    if (owner == kNoSlot) owner = 0;  // no receives: unmatched, or no messages at all
  return {walkers, std::move(receiver)};
}

std::unique_ptr<ReadOnlyFile> open_spill(const std::vector<SpillSummary>& spills, std::size_t s) {
  // Another merge process's spill that is not there: its node has a directory of its own
  // under the output's name (a node's /tmp, say), which a parallel merge cannot use.
  const std::string when_missing =
      s == 0 ? std::string()
             : fmt::format(
                   "merge process {} wrote it, but the first process does not see it (a "
                   "parallel merge writes beside the output: its directory must be shared by "
                   "every merge process, not a node's own such as /tmp)",
                   s);
  return std::make_unique<ReadOnlyFile>(spills[s].path, when_missing);
}

}  // namespace

void check_spills_seen(const std::vector<SpillSummary>& spills) {
  for (std::size_t s = 0; s < spills.size(); ++s) open_spill(spills, s);
}

CausalityReport check_causality(const std::vector<SpillSummary>& spills, const StreamTable& table,
                                bool correct) {
  return check_causality(spills, table, correct, SingleProcessExchange());
}

std::vector<std::uint32_t> spill_walkers(const std::vector<SpillSummary>& spills,
                                         const std::vector<int>& places, std::size_t processes) {
  std::vector<std::uint32_t> walkers(spills.size(), 0);
  std::vector<std::uint64_t> load(std::max<std::size_t>(processes, 1), 0);
  auto endpoints = [&](std::size_t s) {
    std::uint64_t count = 0;
    for (const SpillSection& section : spills[s].sections) count += section.count;
    return count;
  };
  std::vector<std::size_t> others;
  for (std::size_t s = 0; s < spills.size(); ++s) {
    const int place = s < places.size() ? places[s] : -1;
    if (place >= 0 && static_cast<std::size_t>(place) < load.size()) {
      walkers[s] = static_cast<std::uint32_t>(place);
      load[walkers[s]] += endpoints(s);
    } else {
      others.push_back(s);
    }
  }
  std::stable_sort(others.begin(), others.end(),
                   [&](std::size_t a, std::size_t b) { return endpoints(a) > endpoints(b); });
  for (const std::size_t s : others) {
    const auto least =
        static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
    walkers[s] = least;
    load[least] += endpoints(s);
  }
  return walkers;
}

CausalityReport check_causality(const std::vector<SpillSummary>& spills, const StreamTable& table,
                                bool correct, const AnalysisExchange& exchange) {
  std::vector<int> places(spills.size(), -1);
  if (spills.size() == exchange.processes())
    for (std::size_t s = 0; s < places.size(); ++s) places[s] = static_cast<int>(s);
  return check_causality(spills, table, correct, exchange,
                         spill_walkers(spills, places, exchange.processes()));
}

CausalityReport check_causality(const std::vector<SpillSummary>& spills, const StreamTable& table,
                                bool correct, const AnalysisExchange& exchange,
                                const std::vector<std::uint32_t>& walkers) {
  MatchingStreams matching(table);
  const auto me = static_cast<std::uint32_t>(exchange.index());
  // Each spill's stream indexes -> the table's.
  std::vector<std::vector<std::uint32_t>> to_table(spills.size());
  for (std::size_t s = 0; s < spills.size(); ++s)
    for (const StreamCount& stream : spills[s].streams) {
      const auto index = table.find(stream.key);
      if (!index) throw std::runtime_error("a merge process's stream is missing from the table");
      to_table[s].push_back(*index);
    }
  auto owners = plan_owners(spills, to_table, table.size(), walkers);
  const std::vector<std::uint32_t> spill_owner = std::move(owners.first);
  const WalkPlan plan{exchange, std::move(owners.second)};
  // One descriptor per spill file this process walks.
  std::vector<std::unique_ptr<ReadOnlyFile>> files(spills.size());
  for (std::size_t s = 0; s < spills.size(); ++s)
    if (spill_owner[s] == me) files[s] = open_spill(spills, s);
  auto make_cursors = [&] {
    std::vector<EndpointCursor> cursors;
    for (std::size_t s = 0; s < spills.size(); ++s)
      if (spill_owner[s] == me)
        for (const SpillSection& section : spills[s].sections)
          cursors.emplace_back(files[s]->fd(), spills[s].path, section, to_table[s]);
    return cursors;
  };
  std::vector<EndpointCursor> cursors = make_cursors();
  std::map<std::int32_t, StepFunction> corrections;
  std::vector<StepFunction*> steps;
  steps.reserve(cursors.size());
  for (const EndpointCursor& cursor : cursors) steps.push_back(&corrections[cursor.rank()]);
  StaleSends stale(cursors.size());
  CausalityReport report;
  std::vector<RepairedReceive> repaired;
  std::vector<std::int32_t> repaired_ranks;
  PassCounts counts = walk(cursors, matching, steps, correct, plan, report.given_up, &repaired,
                           &repaired_ranks, correct ? &stale : nullptr);
  std::uint64_t max_shift = 0;
  for (auto& [rank, function] : corrections) {
    max_shift = std::max(max_shift, function.max());
    function.shrink_to_fit();
  }
  for (const std::uint64_t shift : share_value(exchange, max_shift))
    max_shift = std::max(max_shift, shift);
  // What is left after the correction (a rank's endpoints out of time order, from several
  // threads, can leave some), by the final steps (`steps` points at them): where the
  // correcting walk kept track, only the receives of the sends it made stale can end before
  // their send; else a second walk counts. Ranks of several cursors (a rank's file given
  // twice) share a function, whose raises the tracking cannot follow.
  const auto rechecking = std::chrono::steady_clock::now();
  if (correct && max_shift > 0) {
    const bool shared = corrections.size() < cursors.size();
    const bool tracked =
        !stale.given_up() && !shared && mark_reopened(make_cursors(), matching, stale);
    std::uint64_t untracked = 0;
    for (const std::uint64_t each : share_value<std::uint64_t>(exchange, tracked ? 0 : 1))
      untracked += each;
    if (untracked == 0) {
      counts.after =
          stale_receives_before_send(make_cursors(), matching, steps, plan, repaired, stale);
    } else {  // untracked, or too many sends to look up again
      std::vector<EndpointCursor> again = make_cursors();
      std::vector<std::uint32_t> ignored;
      counts.after =
          walk(again, matching, steps, false, plan, ignored, nullptr, nullptr, nullptr).after;
    }
  }
  counts.steps.rechecking_s = seconds_since(rechecking);
  // Every process's part (its ranks' corrections and repaired receives, its counts), in
  // process order: the same report everywhere.
  CausalityReport mine;
  mine.violations_before = counts.before;
  mine.violations_after = counts.after;
  mine.repaired = std::move(repaired);
  mine.repaired_ranks = std::move(repaired_ranks);
  for (auto& [rank, function] : corrections)
    if (!function.empty())
      mine.corrections[rank] = std::make_shared<const StepFunction>(std::move(function));
  std::vector<CausalityReport> parts;
  if (exchange.processes() == 1) {
    parts.push_back(std::move(mine));
  } else {
    const std::vector<std::byte> bytes = mine.serialize();
    mine = CausalityReport{};
    for (const std::vector<std::byte>& part : all_gather(exchange, bytes))
      parts.push_back(CausalityReport::deserialize(part));
  }
  for (CausalityReport& part : parts) {
    report.violations_before += part.violations_before;
    report.violations_after += part.violations_after;
    report.repaired.insert(report.repaired.end(), part.repaired.begin(), part.repaired.end());
    report.repaired_ranks.insert(report.repaired_ranks.end(), part.repaired_ranks.begin(),
                                 part.repaired_ranks.end());
    report.corrections.merge(part.corrections);
  }
  report.steps = counts.steps;
  std::sort(report.repaired.begin(), report.repaired.end(),
            [](const RepairedReceive& a, const RepairedReceive& b) {
              return std::pair(a.stream, a.place) < std::pair(b.stream, b.place);
            });
  std::sort(report.repaired_ranks.begin(), report.repaired_ranks.end());
  report.repaired_ranks.erase(
      std::unique(report.repaired_ranks.begin(), report.repaired_ranks.end()),
      report.repaired_ranks.end());
  report.max_shift_ns = max_shift;
  report.messages = matching.matched_messages();
  return report;
}

}  // namespace rocprof::merge
