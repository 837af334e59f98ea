#include "lib/recorder/recorder.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <hdf5.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <rocprof-mpi/pool_stats.h>
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_ext.h>
#include <roctracer/roctracer_hip.h>

#include "lib/format/rank_file_writer.hpp"
#include "lib/recorder/code_object_recording.hpp"
#include "lib/recorder/counter_sampling.hpp"
#include "lib/recorder/crash_signals.hpp"
#include "lib/recorder/helper_threads.hpp"
#include "lib/recorder/tick_clock.hpp"
#include "lib/settings/config.hpp"
#ifdef ROCPROF_HAVE_CUDA
#include "lib/recorder/cuda_binding.hpp"
#endif
#include "lib/recorder/descriptor_guard.hpp"
#include "lib/recorder/private_write.hpp"
#include "lib/recorder/record_sink.hpp"
#include "lib/runtime/hip/hip_args.hpp"
#include "lib/settings/identity.hpp"
#include "lib/util/environment.hpp"

namespace rocprof::recorder {
namespace {

using settings::Config;
using settings::Domains;
using settings::expand_placeholders;
using settings::Identity;
using settings::identity_from_environment;
using settings::read_config;
using settings::Timestamps;

constexpr const char* kToolVersion = "0.1.0";
constexpr int kMaxUniqueSuffix = 1000;

std::uint64_t clock_ns(clockid_t clock) noexcept {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

void message(const std::string& text) noexcept {
  // One line, one write: ranks' messages do not interleave mid-line.
  const std::string line = "rocprof-mpi: " + text + "\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
}

std::vector<std::string> command_line() {
  std::ifstream stream("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> arguments;
  std::string argument;
  while (std::getline(stream, argument, '\0')) arguments.push_back(argument);
  return arguments;
}

// The recording state; created once, never destroyed (threads may still record at exit).
struct State {
  Config config;
  Identity identity;
  std::string path;
  // The output name was taken (a file of an earlier run, or another process's): this process
  // writes beside it under a numbered name.
  bool beside_another = false;
  std::mutex writer_mutex;  // pool thread (appends) vs writer thread (flushes)
  std::unique_ptr<format::RankFileWriter> writer;
  std::unique_ptr<RecordSink> sink;
  // MPI calls and ROC-TX records stamped with TSC ticks (converted by the sink), else with
  // the trace clock.
  bool in_ticks = false;
  roctracer_pool_t* pool = nullptr;
  std::thread writer_thread;
  // Requests to the writer thread: the handler bumps `requested` and `wake_word` and wakes
  // the thread (a futex: no descriptor the application could close); the thread answers by
  // raising `completed` to the generation it served.
  std::atomic<std::uint32_t> wake_word{0};
  std::atomic<std::uint64_t> requested{0};
  std::atomic<std::uint64_t> completed{0};
  std::atomic<bool> close_requested{false};
  std::atomic<bool> closed{false};
  std::atomic<bool> failed{false};  // a write failed: records are dropped from then on
  bool failure_reported = false;    // writer thread only
  std::string failure_reason;       // writer thread only; empty: the writer's error
  std::atomic<std::int32_t> new_rank{-2};
  std::atomic<std::int32_t> new_size{-2};
  int owner_pid = 0;
  // The traced process this one descends from (fork + exec), 0 if none.
  std::uint32_t parent_pid = 0;
  std::atomic<bool> removed{false};  // its file held no event and was removed at the end
};

State* g_state = nullptr;
int g_file_fd = -1;
std::atomic<roctracer_pool_t*> g_active_pool{nullptr};
std::atomic<roctracer_pool_t*> g_recording_pool{nullptr};
std::once_flag g_finish_once;
std::atomic<bool> g_in_ticks{false};
std::atomic<bool> g_forked{false};        // this process started another (fork)
std::atomic<bool> g_exec_pending{false};  // the process is about to exec another program
__attribute__((tls_model("initial-exec"))) thread_local bool tl_recorder_thread = false;
__attribute__((tls_model("initial-exec"))) thread_local std::uint32_t tl_thread_id = 0;

format::RankFileStatus current_status(State& state) {
  format::RankFileStatus status;
  rocprof_mpi_pool_stats_t stats{};
  if (state.pool != nullptr &&
      rocprof_mpi_pool_stats(state.pool, &stats) == ROCTRACER_STATUS_SUCCESS)
    status.records_dropped = stats.dropped_records;
#ifdef ROCPROF_HAVE_CUDA
  status.records_dropped += cuda_records_dropped();
#endif
  status.last_flush_clock_ns = clock_ns(CLOCK_BOOTTIME);
  return status;
}

void stop_routing(State& state) {
  // Routes point at our pool; removing them stops new records (waits for threads inside the
  // recording hot path, so never called from a signal handler or the pool thread).
  for (std::uint32_t domain :
       {ACTIVITY_DOMAIN_ROCTX, ACTIVITY_DOMAIN_HIP_API, ACTIVITY_DOMAIN_HSA_API,
        ACTIVITY_DOMAIN_HIP_OPS, ACTIVITY_DOMAIN_HSA_OPS})
    roctracer_disable_domain_activity(static_cast<activity_domain_t>(domain));
  g_active_pool.store(nullptr, std::memory_order_relaxed);
  g_recording_pool.store(nullptr, std::memory_order_relaxed);
  (void)state;
}

void report_failure(State& state, const std::string& why) {
  if (state.failure_reported) return;
  state.failure_reported = true;
  message(fmt::format("{}; tracing is off from here, the application continues", why));
}

// Sleeps until `deadline_ns` (CLOCK_MONOTONIC) or a request. Flushes are due at fixed
// deadlines, one interval after the previous flush began, so that a slow flush (a starved
// writer, a large backlog) does not push every later one back by its own length.
void wait_for_wake(State& state, std::uint32_t seen, std::uint64_t deadline_ns) noexcept {
  const std::uint64_t now = clock_ns(CLOCK_MONOTONIC);
  if (deadline_ns <= now) return;
  const std::uint64_t wait_ns = deadline_ns - now;
  timespec timeout{static_cast<time_t>(wait_ns / 1'000'000'000ULL),
                   static_cast<long>(wait_ns % 1'000'000'000ULL)};
  // Returns at once when the word changed since `seen` (a request came meanwhile).
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state.wake_word), FUTEX_WAIT_PRIVATE, seen,
          &timeout, nullptr, 0);
}

void wake_writer(State& state) noexcept {
  state.wake_word.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state.wake_word), FUTEX_WAKE_PRIVATE, 1,
          nullptr, nullptr, 0);
}

// The application may have closed the file's descriptor behind libc's back (raw system
// calls) and opened a file of its own under that number: the guard no longer recognises it
// (descriptor_guard.hpp), and nothing may be written.
bool file_still_ours(State& state) {
  if (descriptor_guarded(state.writer->file_descriptor())) return true;
  const int lost = state.writer->file_descriptor();
  unguard_descriptor(lost);
  state.writer->abandon();
  state.failure_reason = fmt::format(
      "the application closed the trace file's descriptor ({}) without the C library; "
      "nothing more is written to {}",
      lost, state.path);
  state.failed.store(true);
  return false;
}

// TSC ticks for MPI calls and ROC-TX where the TSC can stand for time, unless the clock is
// asked for.
bool use_tsc(const Config& config) {
  if (!(config.domains.mpi || config.domains.roctx) ||
      config.timestamps == Timestamps::kClockGettime)
    return false;
  std::string why;
  return tsc_is_usable(why);
}

// Appends "begin NS" or "end NS" (CLOCK_BOOTTIME) to ROCPROF_MPI_FLUSH_LOG, if set. Opened
// for each line: the application may close descriptors it did not open.
void log_flush(const std::string& log, const char* what) {
  if (log.empty()) return;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string line = fmt::format("{} {}\n", what, clock_ns(CLOCK_BOOTTIME));
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

// Writer thread: one flush per interval or request; the last request closes the file.
// `seen`: the wake word as its creator read it before starting the thread, so that a request
// made before the thread first runs (a program that ends at once, a starved helper) wakes it
// rather than waiting for the interval's end.
void writer_loop(State& state, std::uint32_t seen) {
  tl_recorder_thread = true;
  become_helper_thread(state.config.helpers_on_all_cpus, state.config.helper_nice);
  const std::uint64_t interval_ns = std::uint64_t{state.config.flush_interval_ms} * 1'000'000ULL;
  std::uint64_t flush_began_ns = clock_ns(CLOCK_MONOTONIC);
  while (true) {
    wait_for_wake(state, seen, flush_began_ns + interval_ns);
    flush_began_ns = clock_ns(CLOCK_MONOTONIC);
    seen = state.wake_word.load(std::memory_order_acquire);
    const std::uint64_t generation = state.requested.load(std::memory_order_acquire);
    const bool close = state.close_requested.load(std::memory_order_acquire);
    // Everything recorded before this point reaches the sink: CUPTI's buffers first (they
    // go into the pool from this thread), so that GPU work is as fresh as the rest...
#ifdef ROCPROF_HAVE_CUDA
    if (state.config.domains.cuda) flush_cuda_recording(/*completed_only=*/!close);
#endif
    // The GPU code objects loaded since, for the dispatches named only by address.
    if (state.config.domains.hsa_ops || state.config.domains.hip_ops) record_new_code_objects();
    roctracer_flush_activity_expl(state.pool);
    bool ok = true;
    {
      const std::lock_guard lock(state.writer_mutex);
      if (!state.failed.load() && !state.closed.load() && file_still_ours(state)) {
        if (const std::int32_t rank = state.new_rank.exchange(-2); rank != -2)
          state.writer->set_identity(rank, state.new_size.load());
        const format::RankFileStatus status = current_status(state);
        // ...and the file, with the run's last clock pair.
        if (close && !state.sink->finish_clock_pairs()) state.failed.store(true);
        if (close) unguard_descriptor(state.writer->file_descriptor());
        log_flush(state.config.flush_log, "begin");
        ok = close ? state.writer->close(status) : state.writer->flush(status);
        log_flush(state.config.flush_log, "end");
        if (!ok) state.failed.store(true);
        if (close && ok) state.closed.store(true);
      }
    }
    if (state.failed.load() && !state.failure_reported) {
      report_failure(state,
                     !state.failure_reason.empty()
                         ? state.failure_reason
                         : fmt::format("writing the trace failed: {}", state.writer->error()));
      stop_routing(state);
    }
    state.completed.store(generation, std::memory_order_release);
    if (close) return;
  }
}

void on_buffer(const char* begin, const char* end, void* /*arg*/) {
  State& state = *g_state;
  if (!tl_recorder_thread) {  // first delivery on the pool's thread
    tl_recorder_thread = true;
    become_helper_thread(state.config.helpers_on_all_cpus, state.config.helper_nice);
  }
  const std::lock_guard lock(state.writer_mutex);
  if (state.failed.load(std::memory_order_relaxed) ||
      state.closed.load(std::memory_order_relaxed) || !file_still_ours(state))
    return;
  if (!state.sink->consume(begin, end)) state.failed.store(true);
}

// Processes a traced process starts (fork + exec: helpers, shells, Open MPI's orted in a
// singleton run) inherit its environment, preload included. The variable names the nearest
// traced ancestor, so that such a descendant knows it is not the rank's own process.
constexpr const char* kRecorderPidVariable = "ROCPROF_MPI_RECORDER_PID";
constexpr std::string_view kExecKeptSuffix = ":exec";

std::uint32_t mark_descendants() {
  std::uint32_t parent = 0;
  if (const char* text = std::getenv(kRecorderPidVariable)) {  // NOLINT(concurrency-mt-unsafe)
    const std::string_view digits = text;
    std::uint32_t value = 0;
    const auto [end, code] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const bool parsed = code == std::errc{};
    const std::string_view rest(end, static_cast<std::size_t>(digits.data() + digits.size() - end));
    const auto self = static_cast<std::uint32_t>(getpid());
    // Another pid: a descendant. The same pid: this program was exec'd without a fork and is
    // the same process; with kExecKeptSuffix the image before it kept a file with events of
    // its own, and this one records as its continuation (a file of its own, parent itself).
    if (parsed && rest.empty() && value != self) parent = value;
    if (parsed && rest == kExecKeptSuffix && value == self) parent = self;
  }
  // From the library's constructor, before the program's threads exist.
  setenv(kRecorderPidVariable, std::to_string(getpid()).c_str(), 1);  // NOLINT
  return parent;
}

// A descendant that recorded no event leaves no file: a shell, /bin/true or orted would
// otherwise claim its parent's rank beside it. Nor does a process that recorded nothing but
// started others: a wrapper script's shell, whose command is the rank's real program.
bool recorded_nothing(const format::RankFileWriter& writer) {
  // Thread and op names and clock pairs describe events; they are none themselves.
  for (const format::Table* table : format::all_tables())
    if (table != &format::table_of<format::ThreadRow>() &&
        table != &format::table_of<format::OpNameRow>() &&
        table != &format::table_of<format::TickCalibrationRow>() && writer.rows(*table) > 0)
      return false;
  return true;
}

// The recorder shares the process's HDF5 with the application: an application that brings
// its own build may make our H5* calls resolve into it. Recording then needs the same
// major.minor version (ABI) and a thread-safe build (our writer runs beside its threads).
bool hdf5_usable() {
  unsigned major = 0;
  unsigned minor = 0;
  unsigned release = 0;
  H5get_libversion(&major, &minor, &release);
  hbool_t thread_safe = false;
  H5is_library_threadsafe(&thread_safe);
  Dl_info where{};
  dladdr(reinterpret_cast<void*>(&H5get_libversion), &where);
  const char* library = where.dli_fname != nullptr ? where.dli_fname : "?";
  if (major != H5_VERS_MAJOR || minor != H5_VERS_MINOR) {
    message(
        fmt::format("the process uses HDF5 {}.{}.{} ({}), the recorder needs {}.{}; tracing "
                    "is off",
                    major, minor, release, library, H5_VERS_MAJOR, H5_VERS_MINOR));
    return false;
  }
  if (!thread_safe) {
    message(
        fmt::format("the process uses an HDF5 built without thread safety ({}); the "
                    "recorder's writer thread cannot share it; tracing is off",
                    library));
    return false;
  }
  return true;
}

bool open_output(State& state) {
  std::string directory;
  std::string file;
  std::string error;
  if (!expand_placeholders(state.config.output_directory, state.identity, directory, error) ||
      !expand_placeholders(state.config.output_file, state.identity, file, error)) {
    message(fmt::format("{}; tracing is off", error));
    return false;
  }
  std::error_code code;
  std::filesystem::create_directories(directory, code);
  if (code) {
    message(fmt::format("cannot create the output directory {}: {}; tracing is off", directory,
                        code.message()));
    return false;
  }
  format::RankMetadata metadata;
  metadata.tool_version = kToolVersion;
  metadata.job_id = state.identity.job_id;
  metadata.rank = state.identity.rank;
  metadata.size = state.identity.size;
  metadata.hostname = state.identity.hostname;
  metadata.pid = state.identity.pid;
  metadata.command_line = command_line();
  metadata.start_realtime_ns = clock_ns(CLOCK_REALTIME);
  metadata.start_clock_ns = clock_ns(CLOCK_BOOTTIME);
  metadata.compression = state.config.compression.to_string();
  metadata.flush_interval_ms = state.config.flush_interval_ms;
  metadata.traced_ranks = state.config.ranks_text;
  metadata.timestamp_source = state.in_ticks ? "tsc" : "clock_gettime";
  metadata.parent_pid = state.parent_pid;

  const std::filesystem::path wanted = std::filesystem::path(directory) / file;
  for (int attempt = 0; attempt <= kMaxUniqueSuffix; ++attempt) {
    std::filesystem::path candidate = wanted;
    if (attempt > 0)
      candidate.replace_filename(
          fmt::format("{}.{}{}", wanted.stem().string(), attempt, wanted.extension().string()));
    state.writer = format::RankFileWriter::create(candidate.string(), metadata,
                                                  state.config.compression, error);
    if (state.writer) {
      state.path = candidate.string();
      // A program the rank started shares its rank's name by design: nothing to say.
      if (attempt > 0 && state.parent_pid == 0) {
        state.beside_another = true;
        message(fmt::format(
            "{} already exists (a file of an earlier run in this directory, or another process "
            "with the same output name); writing {} instead. rocprof-merge refuses two runs in "
            "one directory: trace into an empty one (rocprof-mpi -d DIR-%job%)",
            wanted.string(), state.path));
      }
      return true;
    }
    if (error.find("File exists") == std::string::npos) break;
  }
  message(fmt::format("{}; tracing is off", error));
  if (!state.path.empty()) std::filesystem::remove(state.path, code);
  return false;
}

// Exit of a HIP call with arguments worth keeping: they go into the pool just ahead of the
// call's own record (written right after this callback returns), with the same correlation id.
void on_hip_api(std::uint32_t /*domain*/, std::uint32_t op, const void* opaque, void* /*arg*/) {
  const auto& data = *static_cast<const hip_api_data_t*>(opaque);
  if (data.phase != ACTIVITY_API_PHASE_EXIT) return;
  ApiArgsRow decoded{};
  runtime::hip::KernelRef kernel;
  if (!runtime::hip::decode_hip_args(op, data, decoded, kernel)) return;
  const char* name = runtime::hip::kernel_name(kernel);
  write_private<ApiArgsRow>(kApiArgsDomain, name, [&](ApiArgsRow& row) {
    row = decoded;
    row.correlation_id = data.correlation_id;
  });
}

void enable_domains(State& state) {
  const Domains& d = state.config.domains;
  const std::pair<bool, std::uint32_t> routes[] = {
      {d.roctx, ACTIVITY_DOMAIN_ROCTX},     {d.hip_api, ACTIVITY_DOMAIN_HIP_API},
      {d.hsa_api, ACTIVITY_DOMAIN_HSA_API}, {d.hip_ops, ACTIVITY_DOMAIN_HIP_OPS},
      {d.hsa_ops, ACTIVITY_DOMAIN_HSA_OPS},
  };
  for (const auto& [enabled, domain] : routes)
    if (enabled)
      roctracer_enable_domain_activity_expl(static_cast<activity_domain_t>(domain), state.pool);
  if (d.hip_api)
    for (const std::uint32_t op : runtime::hip::hip_ops_with_args())
      roctracer_enable_op_callback(ACTIVITY_DOMAIN_HIP_API, op, on_hip_api, nullptr);
}

void wait_completed(State& state, std::uint64_t generation, std::uint32_t timeout_ms) noexcept {
  // Polls with nanosleep: async-signal-safe, and bounded so a stuck writer never hangs us.
  const timespec step{0, 1'000'000};
  for (std::uint32_t waited = 0; waited < timeout_ms; ++waited) {
    if (state.completed.load(std::memory_order_acquire) >= generation) return;
    nanosleep(&step, nullptr);
  }
}

std::uint64_t request(State& state, bool close) noexcept {
  if (close) state.close_requested.store(true, std::memory_order_release);
  const std::uint64_t generation = state.requested.fetch_add(1, std::memory_order_acq_rel) + 1;
  wake_writer(state);
  return generation;
}

// In a forked child: HDF5 would write its copy of the file's state through the shared file
// descriptor when the child exits (a stale superblock over the parent's). Point that
// descriptor at an anonymous file instead, and stop recording. Only system calls: a child of
// a threaded process may run nothing else before exec.
void detach_in_child() noexcept {
  g_active_pool.store(nullptr, std::memory_order_relaxed);
  g_recording_pool.store(nullptr, std::memory_order_relaxed);
  if (g_file_fd < 0) return;
  const int scratch = memfd_create("rocprof-mpi-forked-child", MFD_CLOEXEC);
  if (scratch >= 0) {
    dup3(scratch, g_file_fd, O_CLOEXEC);
    ::close(scratch);
  }
}

// Whether this process is the first of its node in the job (or alone), by the launchers'
// local rank variables.
bool first_on_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* value = std::getenv(name))  // NOLINT(concurrency-mt-unsafe)
      return std::string_view(value) == "0";
  return true;
}

bool usable_here(const State* state) noexcept {
  // A forked child shares the parent's file descriptor but has no writer thread: it must
  // never touch the parent's file.
  return state != nullptr && state->owner_pid == getpid();
}

// The interposed sigaction/signal/close* work only when this library comes before the C
// library in the lookup order (first in LD_PRELOAD).
void warn_if_not_first() noexcept {
  Dl_info ours{};
  Dl_info found{};
  if (dladdr(reinterpret_cast<void*>(&warn_if_not_first), &ours) == 0 ||
      dladdr(dlsym(RTLD_DEFAULT, "close"), &found) == 0 || ours.dli_fbase == found.dli_fbase)
    return;
  message(
      fmt::format("{} is not first in LD_PRELOAD: the program's own signal handlers and "
                  "descriptor closing are not kept from the recorder's (put it first)",
                  ours.dli_fname != nullptr ? ours.dli_fname : "librocprof-mpi.so"));
}

}  // namespace

roctracer_pool_t* active_pool() noexcept { return g_active_pool.load(std::memory_order_relaxed); }
bool recording_in_ticks() noexcept { return g_in_ticks.load(std::memory_order_acquire); }
roctracer_pool_t* recording_pool() noexcept {
  return g_recording_pool.load(std::memory_order_relaxed);
}

bool on_recorder_thread() noexcept { return tl_recorder_thread; }

std::uint32_t current_thread_id() noexcept {
  if (tl_thread_id == 0) [[unlikely]]
    tl_thread_id = static_cast<std::uint32_t>(syscall(SYS_gettid));
  return tl_thread_id;
}

void start_recording() noexcept {
  try {
    auto state = std::make_unique<State>();
    std::string error;
    if (!read_config(state->config, error)) {
      message(fmt::format("{}; tracing is off", error));
      return;
    }
    state->identity = identity_from_environment();
    state->in_ticks = use_tsc(state->config);
    state->owner_pid = getpid();
    state->parent_pid = mark_descendants();
    // Not one of the ranks asked for: no file, no message, nothing recorded.
    if (!state->config.ranks.contains(state->identity.rank)) return;
    if (const std::string problem = device_counters_problem(state->config); !problem.empty()) {
      message(fmt::format("{}; tracing is off", problem));
      return;
    }
    // Once per node (its first process), as the samples themselves would be.
    if (state->parent_pid == 0 && first_on_node())
      if (const std::string why = gpu_counters_unavailable(state->config); !why.empty())
        message(fmt::format("{}; the rest is recorded", why));
    if (!hdf5_usable() || !open_output(*state)) return;
    // Guarded before anything is recorded: from then on the file is known by its identity.
    g_file_fd = state->writer->file_descriptor();
    guard_descriptor(g_file_fd);
    state->sink = std::make_unique<RecordSink>(*state->writer, state->in_ticks);
    g_in_ticks.store(state->in_ticks, std::memory_order_release);
    g_state = state.get();
    roctracer_properties_t properties{};
    properties.buffer_size = state->config.buffer_bytes;
    properties.buffer_callback_fun = on_buffer;
    if (roctracer_open_pool_expl(&properties, &state->pool) != ROCTRACER_STATUS_SUCCESS) {
      message(
          fmt::format("cannot open the record pool: {}; tracing is off", roctracer_error_string()));
      g_state = nullptr;
      unguard_descriptor(g_file_fd);
      g_file_fd = -1;
      state->writer.reset();  // no file is left behind by a process that records nothing
      std::error_code ignored;
      std::filesystem::remove(state->path, ignored);
      return;
    }
    if (state->in_ticks) rocprof_mpi_pool_stamp_markers_in_ticks(state->pool);
    enable_domains(*state);
    if (state->config.domains.cuda) {
#ifdef ROCPROF_HAVE_CUDA
      if (std::string why; !start_cuda_recording(why))
        message(fmt::format("CUDA tracing is off: {}; the rest is recorded", why));
#else
      message("CUDA tracing is off: this build has no CUDA backend; the rest is recorded");
#endif
    }
    // A program that can call rocprofsys_user_start_trace starts with tracing off, as with
    // rocprofiler-systems, unless ROCPROFSYS_INIT_ENABLED is true (user regions, clock
    // samples and communicators are recorded either way).
    if (dlsym(RTLD_DEFAULT, "rocprofsys_user_start_trace") != nullptr &&
        !util::environment_flag("ROCPROFSYS_INIT_ENABLED").value_or(false))
      roctracer_stop();
    state->writer_thread = std::thread(writer_loop, std::ref(*state),
                                       state->wake_word.load(std::memory_order_acquire));
    g_active_pool.store(
        state->config.domains.mpi || state->config.domains.counters ? state->pool : nullptr,
        std::memory_order_relaxed);
    g_recording_pool.store(state->pool, std::memory_order_relaxed);
    pthread_atfork(
        nullptr, [] { g_forked.store(true, std::memory_order_relaxed); }, detach_in_child);
    g_state = state.release();  // lives until the process ends
    // A process alone in its job samples its devices from here; the ranks of a parallel job
    // share them out at MPI_Init (rocprof_mpi_counter_devices).
    if (g_state->identity.size <= 1)
      start_counter_sampling(g_state->config, counter_devices_wanted(g_state->config));
    install_crash_handlers();
    warn_if_not_first();
    std::atexit(finish_recording);
  } catch (const std::exception& error) {
    g_state = nullptr;
    message(fmt::format("cannot start: {}; tracing is off", error.what()));
  }
}

namespace {

// Closes the file (waiting at most `timeout_ms` for the writer), once, whichever way the
// process ends first.
void finish(std::uint32_t timeout_ms) noexcept {
  State* state = g_state;
  if (!usable_here(state)) return;
  std::call_once(g_finish_once, [state, timeout_ms] {
    try {
      stop_counter_sampling();  // its last readings go into the file
      const std::uint64_t generation = request(*state, /*close=*/true);
      wait_completed(*state, generation, timeout_ms);
      if (state->completed.load() >= generation && state->writer_thread.joinable())
        state->writer_thread.join();
      else if (state->writer_thread.joinable())
        state->writer_thread.detach();
      if ((state->parent_pid != 0 || g_forked.load() || g_exec_pending.load()) &&
          state->closed.load() && recorded_nothing(*state->writer)) {
        std::error_code ignored;
        std::filesystem::remove(state->path, ignored);
        state->removed.store(true);
        return;
      }
      // The announcement is the last image's to make.
      if (state->config.announce && state->identity.rank <= 0 && state->parent_pid == 0 &&
          !state->failed.load() && !g_exec_pending.load()) {
        const std::string directory = std::filesystem::path(state->path).parent_path().string();
        if (state->beside_another)
          message(fmt::format(
              "trace files are in {}, beside files that were there before (this rank's is {}): "
              "move this run's files to a directory of their own, then merge them with: "
              "rocprof-merge DIR -o trace.pftrace",
              directory, std::filesystem::path(state->path).filename().string()));
        else
          message(
              fmt::format("trace files are in {}; merge them with: rocprof-merge {} -o "
                          "trace.pftrace",
                          directory, directory));
      }
      const format::RankFileStatus status = current_status(*state);
      // After a write failure its message was the one; drops then mean nothing more.
      if (status.records_dropped > 0 && !state->failed.load())
        message(
            fmt::format("{} records were dropped because recording outran the writer "
                        "(raise ROCPROF_MPI_BUFFER_SIZE or ROCPROF_POOL_MAX_BYTES); the count "
                        "is in {}",
                        status.records_dropped, state->path));
    } catch (...) {
      // Never let the recorder change how the process exits.
    }
  });
}

}  // namespace

void finish_recording() noexcept { finish(60'000); }

void finish_at_quick_exit() noexcept {
  State* state = g_state;
  if (!usable_here(state) || tl_recorder_thread) return;
  // As at a fatal signal: the file is closed if the writer manages within the signal timeout
  // (an MPI library's fatal error handler ends the rank this way); else it keeps the last
  // flush and gives back its reserved space.
  finish(state->config.signal_flush_timeout_ms);
  release_reservation_at_exit();
}

std::string prepare_exec() noexcept {
  State* state = g_state;
  if (!usable_here(state)) return {};
  try {
    // exec skips atexit: close the file now. An image that recorded nothing (a wrapper
    // script's shell) leaves no file, and the next one records as the process's own.
    g_exec_pending.store(true);
    finish_recording();
    return fmt::format("{}={}{}", kRecorderPidVariable, getpid(),
                       state->removed.load() ? "" : kExecKeptSuffix);
  } catch (...) {
    return {};
  }
}

void flush_from_signal(bool close) noexcept {
  State* state = g_state;
  if (!usable_here(state) || state->closed.load(std::memory_order_acquire)) return;
  const std::uint64_t generation = request(*state, close);
  // On our own threads the writer could be the one interrupted: never wait for ourselves.
  if (tl_recorder_thread) return;
  wait_completed(*state, generation, state->config.signal_flush_timeout_ms);
}

void release_reservation_at_exit() noexcept {
  State* state = g_state;
  if (!usable_here(state) || state->closed.load(std::memory_order_acquire) ||
      state->failed.load(std::memory_order_acquire))
    return;
  // Only while no write is under way (one that is would be cut short by the truncation);
  // the lock is kept: the process is going, nothing more may be written.
  if (!state->writer_mutex.try_lock()) return;
  state->writer->release_reservation();
}

void flush_now() noexcept {
  State* state = g_state;
  if (!usable_here(state) || state->closed.load(std::memory_order_acquire) || tl_recorder_thread)
    return;
  wait_completed(*state, request(*state, /*close=*/false), 60'000);
}

std::uint64_t counter_devices() noexcept {
  const State* state = g_state;
  if (!usable_here(state) || active_pool() == nullptr) return 0;
  try {
    return counter_devices_wanted(state->config);
  } catch (...) {
    return 0;
  }
}

void sample_counter_devices(std::uint64_t devices) noexcept {
  const State* state = g_state;
  if (!usable_here(state) || active_pool() == nullptr) return;
  start_counter_sampling(state->config, devices);
}

void set_identity(std::int32_t rank, std::int32_t size) noexcept {
  State* state = g_state;
  if (!usable_here(state)) return;
  state->new_size.store(size, std::memory_order_relaxed);
  state->new_rank.store(rank, std::memory_order_release);
}

}  // namespace rocprof::recorder
