#include "merge/summary/summary.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "lib/format/records.hpp"
#include "merge/analysis/nested_exchange.hpp"
#include "merge/events/gpu_names.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "merge/events/op_names.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/files/csv_file.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

double ms(double ns) { return ns / 1e6; }

}  // namespace

void Summary::Stat::add(double duration_ns, double self) {
  ++count;
  total_ns += duration_ns;
  self_ns += self;
  if (count == 1) {
    min_ns = max_ns = duration_ns;
  } else {
    min_ns = std::min(min_ns, duration_ns);
    max_ns = std::max(max_ns, duration_ns);
  }
  const double delta = duration_ns - mean_ns;
  mean_ns += delta / static_cast<double>(count);
  m2 += delta * (duration_ns - mean_ns);
}

void Summary::Stat::merge(const Stat& other) {
  if (other.count == 0) return;
  if (count == 0) {
    *this = other;
    return;
  }
  // Chan et al.'s pairwise update of the mean and the sum of squared deviations.
  const auto n = static_cast<double>(count);
  const auto m = static_cast<double>(other.count);
  const double delta = other.mean_ns - mean_ns;
  mean_ns += delta * m / (n + m);
  m2 += other.m2 + delta * delta * n * m / (n + m);
  count += other.count;
  total_ns += other.total_ns;
  self_ns += other.self_ns;
  min_ns = std::min(min_ns, other.min_ns);
  max_ns = std::max(max_ns, other.max_ns);
}

namespace {

using PerRank = std::map<std::string, std::map<std::int32_t, Summary::Stat>>;

void put_per_rank(ByteWriter& out, const PerRank& stats) {
  out.put<std::uint64_t>(stats.size());
  for (const auto& [name, per_rank] : stats) {
    out.put_string(name);
    out.put<std::uint64_t>(per_rank.size());
    for (const auto& [rank, stat] : per_rank) {
      out.put(rank);
      out.put(stat);
    }
  }
}

void get_per_rank(ByteReader& in, PerRank& stats) {
  const auto names = in.get<std::uint64_t>();
  for (std::uint64_t n = 0; n < names; ++n) {
    auto& per_rank = stats[in.get_string()];
    const auto count = in.get<std::uint64_t>();
    for (std::uint64_t r = 0; r < count; ++r) {
      const auto rank = in.get<std::int32_t>();
      per_rank[rank].merge(in.get<Summary::Stat>());
    }
  }
}

void merge_per_rank(const PerRank& from, PerRank& into) {
  for (const auto& [name, per_rank] : from)
    for (const auto& [rank, stat] : per_rank) into[name][rank].merge(stat);
}

// One line per name, by total time: calls, total, mean per rank, the busiest rank's total and
// the imbalance (max / mean over `ranks`).
void print_per_rank(std::FILE* out, const std::vector<const PerRank*>& tables, std::uint64_t ranks,
                    std::size_t top, int width) {
  std::vector<std::tuple<double, std::string, const std::map<std::int32_t, Summary::Stat>*>> order;
  for (const PerRank* table : tables)
    for (const auto& [name, per_rank] : *table) {
      double total = 0;
      for (const auto& [rank, stat] : per_rank) total += stat.total_ns;
      order.emplace_back(total, name, &per_rank);
    }
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  for (std::size_t i = 0; i < order.size() && i < top; ++i) {
    const auto& [total, name, per_rank] = order[i];
    std::uint64_t calls = 0;
    double max_rank = 0;
    for (const auto& [rank, stat] : *per_rank) {
      calls += stat.count;
      max_rank = std::max(max_rank, stat.total_ns);
    }
    const double mean = total / static_cast<double>(std::max<std::uint64_t>(ranks, 1));
    fmt::print(out, "  {:<{}} {:>10} {:>11.3f} {:>10.3f} {:>10.3f} {:>10.2f}\n", name, width, calls,
               ms(total), ms(mean), ms(max_rank), mean > 0 ? max_rank / mean : 0.0);
  }
}

}  // namespace

std::vector<std::byte> Summary::serialize() const {
  ByteWriter out;
  out.put(ranks_);
  put_per_rank(out, mpi_);
  out.put<std::uint64_t>(regions_.size());
  for (const auto& [key, stat] : regions_) {
    out.put(std::get<0>(key));
    out.put(std::get<1>(key));
    out.put_string(std::get<2>(key));
    out.put(stat);
  }
  put_per_rank(out, kernels_);
  put_per_rank(out, copies_);
  counters_.put(out);
  out.put<std::uint64_t>(rank_times_.size());
  for (const RankTime& time : rank_times_) time.put(out);
  region_input_.put(out);
  return out.take();
}

void Summary::merge(std::span<const std::byte> bytes) {
  // Read into a summary of its own, then added up like a watched rank's part.
  Summary part;
  ByteReader in(bytes);
  part.ranks_ = in.get<std::uint64_t>();
  get_per_rank(in, part.mpi_);
  const auto regions = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < regions; ++i) {
    const auto rank = in.get<std::int32_t>();
    const auto thread = in.get<std::uint32_t>();
    std::string name = in.get_string();
    part.regions_[{rank, thread, std::move(name)}].merge(in.get<Stat>());
  }
  get_per_rank(in, part.kernels_);
  get_per_rank(in, part.copies_);
  part.counters_.get(in);
  const auto times = in.get<std::uint64_t>();
  if (times > bytes.size()) throw std::runtime_error("a merge process sent a damaged summary");
  for (std::uint64_t i = 0; i < times; ++i) part.rank_times_.push_back(RankTime::get(in));
  part.region_input_.get(in);
  if (!in.done()) throw std::runtime_error("a merge process sent a damaged summary");
  merge(part);
}

double Summary::Stat::stddev_ns() const {
  return count > 1 ? std::sqrt(m2 / static_cast<double>(count - 1)) : 0.0;
}

namespace {

// The statistic `cache` holds for `key`, found by `find` the first time (in a std::map of
// the summary's, whose nodes stay put as others are added).
template <typename Key, typename Find>
Summary::Stat& cached(absl::flat_hash_map<Key, Summary::Stat*>& cache, const Key& key, Find find) {
  Summary::Stat*& stat = cache[key];
  if (stat == nullptr) stat = &find();
  return *stat;
}

// A watcher's function for a block of rows, from one for a row.
template <typename Row, typename Each>
std::function<void(std::span<const Row>)> each(Each each_row) {
  return [each_row = std::move(each_row)](std::span<const Row> rows) {
    for (const Row& row : rows) each_row(row);
  };
}

}  // namespace

void Summary::watch(const AlignedRank& rank) {
  ++ranks_;
  watched_at_[&rank] = watched_.size();
  watched_.push_back(std::make_shared<Summary>());
  install_watcher(rank, watched_.back());
}

void Summary::watch_again(const AlignedRank& rank) {
  const auto found = watched_at_.find(&rank);
  if (found == watched_at_.end()) return;  // not watched: nothing to forget
  watched_[found->second] = std::make_shared<Summary>();
  install_watcher(rank, watched_[found->second]);
}

void Summary::watch_on_threads(unsigned threads) {
  workers_ = threads > 0 ? std::make_shared<WatchWorkers>(threads) : nullptr;
}

WatchWorkers& Summary::workers() const {
  static WatchWorkers on_reading_threads(0);  // keeps nothing: shared by every summary
  return workers_ ? *workers_ : on_reading_threads;
}

void Summary::install_watcher(const AlignedRank& rank, const std::shared_ptr<Summary>& part) const {
  const RankFileReader& reader = rank.reader();
  // Per rank: the MPI function kinds, the nested ranges' time by (thread, level) for self
  // time (a range's duration minus its direct children's), and each statistic found once by
  // the ids of its names (a look-up by name per row was most of the summary's cost).
  struct State {
    explicit State(const RankFileReader& reader) : functions(reader) {}
    MpiFunctions functions;
    // Kernels recorded by address are named from the file's kernel symbols; those tables are
    // read at the first such kernel, during the walk, not while other watchers are installed.
    std::optional<OpNames> names;
    absl::flat_hash_map<std::pair<std::uint32_t, std::uint32_t>, double> children;
    absl::flat_hash_map<StringId, Stat*> mpi;                                // by function
    absl::flat_hash_map<std::pair<std::uint32_t, StringId>, Stat*> regions;  // thread, name
    absl::flat_hash_map<StringId, Stat*> kernels;                            // by name
    absl::flat_hash_map<std::uint32_t, Stat*> copies;                        // by kind
  };
  auto state = std::make_shared<State>(reader);
  const std::int32_t id = rank.rank();
  AlignedRank::Watcher watcher;
  std::shared_ptr<WaitInputGatherer> waits;
  if (analyse_waits_) {
    waits = std::make_shared<WaitInputGatherer>(
        rank, WaitInputGatherer::doings_budget(job_ranks_ > 0 ? job_ranks_ : expected_ranks_),
        spill_, WaitInputGatherer::spill_step(analysis_memory_, expected_ranks_));
    part->wait_part_ = waits;
  }
  auto time = std::make_shared<RankTime>(rank.rank());
  part->time_part_ = time;
  auto region_series = std::make_shared<RegionSeriesPart>();
  region_series->rank = rank.rank();
  part->region_part_ = region_series;
  watcher.api_calls =
      each<ApiCallRow>([time](const ApiCallRow& row) { time->record(row.begin_ns, row.end_ns); });
  auto counters = std::make_shared<CounterSummary::RankPart>(rank);
  if (!counters->sampled()) counters.reset();
  part->counter_part_ = counters;
  if (counters)
    watcher.counter_samples =
        each<CounterSampleRow>([counters](const CounterSampleRow& row) { counters->sample(row); });
  watcher.mpi_calls =
      each<MpiCallRow>([part, state, counters, time, &reader, id](const MpiCallRow& row) {
        const bool per_request = state->functions.is_per_request_row(row);
        if (counters) counters->mpi_call(row, per_request);
        time->sent(row.bytes_sent);  // a request's row holds what it sent
        if (per_request) return;
        time->mpi_call(row.thread_id, row.begin_ns, row.end_ns,
                       state->functions.is_polling(row.function));
        const auto duration = static_cast<double>(row.end_ns - row.begin_ns);
        cached(state->mpi, row.function, [&]() -> Stat& {
          return part->mpi_[reader.string(row.function)][id];
        }).add(duration, duration);
      });
  watcher.ranges = each<Range>([part, state, time, region_series, &reader, id](const Range& range) {
    time->record(range.begin_ns, range.end_ns);
    auto [series, added] = region_series->series.try_emplace({range.thread_id, range.name});
    if (added) series->second.first = reader.string(range.name);
    series->second.second.add(static_cast<double>(range.end_ns - range.begin_ns));
    const auto duration = static_cast<double>(range.end_ns - range.begin_ns);
    double self = duration;
    if (range.nested) {
      double& inside = state->children[{range.thread_id, range.level + 1}];
      self = std::max(0.0, duration - inside);
      inside = 0;
      state->children[{range.thread_id, range.level}] += duration;
    }
    cached(state->regions, std::pair{range.thread_id, range.name}, [&]() -> Stat& {
      return part->regions_[{id, range.thread_id, reader.string(range.name)}];
    }).add(duration, self);
  });
  watcher.activities = each<ActivityRow>([part, state, time, &reader, id](const ActivityRow& row) {
    if (!is_host_wait(row)) time->gpu_work(row.begin_ns, row.end_ns);
    const auto duration = static_cast<double>(row.end_ns - row.begin_ns);
    if (row.op == 0)
      cached(state->kernels, row.kernel_name, [&]() -> Stat& {
        if (row.kernel_name == 0) return part->kernels_["(unnamed kernel)"][id];
        std::string name = reader.string(row.kernel_name);
        if (name.starts_with(kKernelObjectNamePrefix)) {
          if (!state->names) state->names.emplace(reader);
          name = state->names->kernel_name(row);
        }
        return part->kernels_[name][id];
      }).add(duration, duration);
    else if (row.op == 1)
      cached(state->copies, row.kind, [&]() -> Stat& {
        return part->copies_[copy_name(row.domain, row.kind)][id];
      }).add(duration, duration);
  });
  // The analysis's inputs: two watchers of their own (the message ends, the doings), which
  // workers may run beside the summary's. What a watcher would make from the file at a
  // kind's first row is made on the reading thread, before that row goes to a worker.
  std::vector<WatchWorkers::Target> targets;
  targets.push_back({std::move(watcher), [state, &reader](WatchedKind kind) {
                       if (kind == WatchedKind::kActivity && !state->names)
                         state->names.emplace(reader);
                     }});
  if (waits) {
    AlignedRank::Watcher messages;
    messages.mpi_calls =
        each<MpiCallRow>([waits](const MpiCallRow& row) { waits->messages().mpi_call(row); });
    targets.push_back({std::move(messages), [waits](WatchedKind kind) {
                         if (kind == WatchedKind::kMpiCall) waits->messages().prepare();
                       }});
    AlignedRank::Watcher doings;
    doings.mpi_calls =
        each<MpiCallRow>([waits](const MpiCallRow& row) { waits->doings().mpi_call(row); });
    doings.ranges = each<Range>([waits](const Range& range) { waits->doings().range(range); });
    doings.activities =
        each<ActivityRow>([waits](const ActivityRow& row) { waits->doings().activity(row); });
    doings.api_calls =
        each<ApiCallRow>([waits](const ApiCallRow& row) { waits->doings().api_call(row); });
    targets.push_back({std::move(doings), [waits](WatchedKind kind) {
                         if (kind == WatchedKind::kApiCall || kind == WatchedKind::kActivity)
                           waits->doings().prepare_names();
                       }});
  }
  WatchWorkers::Relay relay = workers().relay(std::move(targets));
  part->feed_ = std::move(relay.feed);
  rank.watch(std::move(relay.watcher));
}

void Summary::end_watch() {
  for (const auto& part : watched_)
    if (part->feed_) WatchWorkers::flush(*part->feed_);
  workers().wait();
  std::vector<RankWaitInput> inputs = finish_wait_parts();
  for (std::size_t i = 0; i < watched_.size(); ++i) {
    const auto& part = watched_[i];
    part->feed_.reset();
    if (part->counter_part_) part->counter_part_->finish(part->counters_);
    part->counter_part_.reset();
    if (part->wait_part_) wait_inputs_.push_back(std::move(inputs[i]));
    part->wait_part_.reset();
    if (part->region_part_) {
      for (const auto& [key, series] : part->region_part_->series)
        region_input_.add(part->region_part_->rank, series.first, series.second);
      part->region_part_.reset();
    }
    if (part->time_part_) {
      part->time_part_->finish();
      rank_times_.push_back(*part->time_part_);
      part->time_part_.reset();
    }
    merge(*part);
  }
  watched_.clear();
  watched_at_.clear();
}

std::vector<RankWaitInput> Summary::finish_wait_parts() {
  // A rank's doings are put in order and its last ends spilled as it finishes: on several
  // threads, since one thread finishing every rank in turn was most of the summarising.
  std::vector<RankWaitInput> inputs(watched_.size());
  std::atomic<std::size_t> next{0};
  std::mutex failing;
  std::exception_ptr failure;
  const auto finish = [&] {
    for (std::size_t i = next++; i < watched_.size(); i = next++) {
      if (!watched_[i]->wait_part_) continue;
      try {
        inputs[i] = watched_[i]->wait_part_->finish();
      } catch (...) {
        const std::lock_guard lock(failing);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const std::size_t threads = std::min<std::size_t>(finish_threads_, watched_.size());
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(finish);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: those started, and this one, finish the rest
    }
  }
  finish();
  for (std::thread& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
  return inputs;
}

void Summary::merge(Summary& part) {
  ranks_ += part.ranks_;
  for (const auto& [function, per_rank] : part.mpi_) {
    auto& mine = mpi_[function];
    for (const auto& [rank, stat] : per_rank) mine[rank].merge(stat);
  }
  for (const auto& [key, stat] : part.regions_) regions_[key].merge(stat);
  merge_per_rank(part.kernels_, kernels_);
  merge_per_rank(part.copies_, copies_);
  counters_.merge(part.counters_);
  wait_inputs_.insert(wait_inputs_.end(), std::make_move_iterator(part.wait_inputs_.begin()),
                      std::make_move_iterator(part.wait_inputs_.end()));
  rank_times_.insert(rank_times_.end(), part.rank_times_.begin(), part.rank_times_.end());
  region_input_.merge(part.region_input_);
  wait_report_.reset();
  critical_path_.reset();
}

std::vector<RegionImbalance> Summary::region_imbalance() const {
  return merge::region_imbalance(region_input_);
}

RankSpans Summary::rank_spans() const {
  RankSpans spans;
  for (const RankTime& time : rank_times_)
    if (time.last_ns() >= time.first_ns()) spans[time.rank()] = {time.first_ns(), time.last_ns()};
  return spans;
}

std::vector<RankWaitInput> Summary::take_wait_inputs() {
  std::vector<RankWaitInput> inputs = std::move(wait_inputs_);
  wait_inputs_.clear();
  return inputs;
}

void Summary::analyse(std::vector<RankWaitInput> mine, const AnalysisExchange& exchange,
                      std::size_t threads, const std::optional<WindowSpec>& window) {
  const RankSpans spans = rank_spans();
  std::uint64_t job_begin = ~std::uint64_t{0};
  for (const auto& [rank, span] : spans) job_begin = std::min(job_begin, span.first);
  // Each of this process's threads analyses a block of its ranks as a merge process of its
  // own (nested_exchange.hpp); the process's budget is shared among them.
  threads = std::max<std::size_t>(std::min(threads, mine.size()), 1);
  NestedExchange::Meeting meeting(exchange, threads);
  const std::size_t budget = analysis_memory_ / threads;
  const auto analyse_part = [&](std::vector<RankWaitInput>& part, const AnalysisExchange& over,
                                bool keep) {
    std::string problem;
    const TimeWindow in =
        window ? resolve_window(*window, part, job_begin, over, problem) : TimeWindow{};
    WaitStateReport waits = analyse_wait_states(part, over, in, budget);
    CriticalPath path =
        find_critical_path(part, waits, over.index() == 0 ? spans : RankSpans{}, over, in);
    if (keep) {
      wait_report_ = std::move(waits);
      critical_path_ = std::move(path);
      window_problem_ = std::move(problem);
    }
  };
  std::vector<std::vector<RankWaitInput>> blocks(threads);
  for (std::size_t i = 0; i < mine.size(); ++i)
    blocks[i * threads / mine.size()].push_back(std::move(mine[i]));
  if (threads == 1) {
    analyse_part(blocks[0], NestedExchange(meeting, 0), true);
    return;
  }
  std::mutex failing;
  std::exception_ptr failure;
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      try {
        analyse_part(blocks[t], NestedExchange(meeting, t), t == 0);
      } catch (...) {
        // The others go on without this thread (its parts empty) rather than wait for it.
        {
          const std::lock_guard lock(failing);
          if (!failure) failure = std::current_exception();
        }
        meeting.leave();
      }
    });
  for (std::thread& worker : workers) worker.join();
  if (failure) std::rethrow_exception(failure);
}

const CriticalPath& Summary::critical_path() const {
  if (!critical_path_) {
    critical_path_ = find_critical_path(wait_inputs_, wait_states(), rank_spans());
  }
  return *critical_path_;
}

std::vector<RankTime> Summary::rank_times() const {
  std::vector<RankTime> times = rank_times_;
  std::sort(times.begin(), times.end(),
            [](const RankTime& a, const RankTime& b) { return a.rank() < b.rank(); });
  return times;
}

const WaitStateReport& Summary::wait_states() const {
  if (!wait_report_) wait_report_ = analyse_wait_states(wait_inputs_);
  return *wait_report_;
}

void Summary::add(const AlignedRank& rank) {
  watch(rank);
  rank.for_each_mpi_call([](const MpiCallRow&) {});
  rank.for_each_marker([](const MarkerRow&) {}, [](const Range&) {});
  rank.for_each_api_call([](const ApiCallRow&) {});
  rank.for_each_activity([](const ActivityRow&) {});
  rank.for_each_counter_sample([](const CounterSampleRow&) {});
  rank.watch({});
  rank.done();
  end_watch();
}

void Summary::print(std::FILE* out, std::size_t top) const {
  if (mpi_.empty())
    fmt::print(out, "MPI: no MPI calls recorded in {} {}\n", ranks_,
               ranks_ == 1 ? "process" : "processes");
  else
    fmt::print(out,
               "MPI: time per function over {} ranks (ms; imbalance = max / mean of the "
               "ranks)\n  {:<24} {:>10} {:>11} {:>10} {:>10} {:>10}\n",
               ranks_, "function", "calls", "total", "mean/rank", "max rank", "imbalance");
  print_per_rank(out, {&mpi_}, ranks_, mpi_.size(), 24);
  if (!kernels_.empty() || !copies_.empty()) {
    fmt::print(out,
               "GPU: top kernels and copies by total time over {} ranks (ms; imbalance = max / "
               "mean of the ranks)\n  {:<40} {:>10} {:>11} {:>10} {:>10} {:>10}\n",
               ranks_, "kernel or copy", "calls", "total", "mean/rank", "max rank", "imbalance");
    print_per_rank(out, {&kernels_, &copies_}, ranks_, top, 40);
  }
  if (!regions_.empty()) {
    fmt::print(out, "Regions and ROC-TX ranges per rank and thread (ms)\n");
    fmt::print(out, "  {:>4} {:>8} {:<20} {:>8} {:>10} {:>9} {:>9} {:>9} {:>9} {:>10}\n", "rank",
               "thread", "name", "count", "total", "mean", "min", "max", "stddev", "self");
    for (const auto& [key, stat] : regions_)
      fmt::print(
          out,
          "  {:>4} {:>8} {:<20} {:>8} {:>10.3f} {:>9.4f} {:>9.4f} {:>9.4f} {:>9.4f} {:>10.3f}\n",
          std::get<0>(key), std::get<1>(key), std::get<2>(key), stat.count, ms(stat.total_ns),
          ms(stat.mean_ns), ms(stat.min_ns), ms(stat.max_ns), ms(stat.stddev_ns()),
          ms(stat.self_ns));
  }
  counters_.print(out);
  print_region_imbalance(out, region_imbalance(), top);
  double mpi_ns = 0;
  for (const auto& [function, per_rank] : mpi_)
    for (const auto& [rank, stat] : per_rank) mpi_ns += stat.total_ns;
  if (analyse_waits_) {
    if (!critical_path().window.empty())
      fmt::print(out,
                 "Analysis window: {} (the wait states and the critical path below lie in it)\n",
                 critical_path().window);
    wait_states().print(out, mpi_ns, top);
    critical_path().print(out, top);
  } else if (!mpi_.empty()) {
    fmt::print(out,
               "Wait states and the critical path: not analysed (rocprof-merge --no-analysis)\n");
  }
}

bool Summary::write_csv(const std::string& prefix, std::string& error) const {
  CsvFile mpi(prefix + "_mpi.csv", "function,rank,calls,total_ns,mean_ns,min_ns,max_ns");
  for (const auto& [name, per_rank] : mpi_)
    for (const auto& [rank, s] : per_rank)
      mpi.row("{},{},{},{:.0f},{:.1f},{:.0f},{:.0f}", name, rank, s.count, s.total_ns, s.mean_ns,
              s.min_ns, s.max_ns);
  if (!mpi.close(error)) return false;
  CsvFile regions(prefix + "_regions.csv",
                  "rank,thread,name,count,total_ns,mean_ns,min_ns,max_ns,stddev_ns,self_ns");
  for (const auto& [key, s] : regions_)
    regions.row("{},{},{},{},{:.0f},{:.1f},{:.0f},{:.0f},{:.1f},{:.0f}", std::get<0>(key),
                std::get<1>(key), csv_text(std::get<2>(key)), s.count, s.total_ns, s.mean_ns,
                s.min_ns, s.max_ns, s.stddev_ns(), s.self_ns);
  if (!regions.close(error)) return false;
  CsvFile kernels(prefix + "_kernels.csv", "kind,name,rank,count,total_ns,mean_ns,min_ns,max_ns");
  for (const auto& [kind, table] : {std::pair{"kernel", &kernels_}, std::pair{"copy", &copies_}})
    for (const auto& [name, per_rank] : *table)
      for (const auto& [rank, s] : per_rank)
        kernels.row("{},{},{},{},{:.0f},{:.1f},{:.0f},{:.0f}", kind, csv_text(name), rank, s.count,
                    s.total_ns, s.mean_ns, s.min_ns, s.max_ns);
  return kernels.close(error) && counters_.write_csv(prefix, error) &&
         write_region_imbalance_csv(prefix, region_imbalance(), error) &&
         (!analyse_waits_ ||
          (wait_states().write_csv(prefix, error) && critical_path().write_csv(prefix, error)));
}

}  // namespace rocprof::merge
