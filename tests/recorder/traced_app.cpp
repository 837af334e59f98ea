// A small traced program for the recorder's system tests. It records ROC-TX ranges and marks
// and, through the recorder API when the recorder is preloaded, MPI calls, counter and clock
// samples; then it ends the way the test asks. Usage: traced_app MODE ITERATIONS [ARG]
//   exit CODE         record, return CODE from main
//   thread-exit CODE  worker threads record; one calls exit(CODE) while others still run
//   raise SIG         record, then raise SIG (no handler of its own)
//   handled SIG       installs its own handler for SIG that prints and _exit(42)s, then raises
//   continue SIG      installs a handler that just sets a flag; records more after it, exits 0
//   segv / abort      record, then fault on a null pointer / call abort()
//   hang              record, print "recorded N", keep going until killed
//   fork-record       record, fork a child that records ITERATIONS ranges and prints how
//                     much its resident memory grew ("child grew N kB")
//   fork [9]          record, fork a child that records and exits, record again after it
//                     (with 9: flush through the recorder API while the child sleeps, then
//                     SIGKILL itself as soon as the child is gone)
//   shells            record, then 25 system() and 25 popen() shell commands
//   quick-exit CODE   record, flush through the recorder API, then _exit(CODE)
//   quick-exit-unflushed CODE
//                     record, then _exit(CODE) at once
//   spawn             record, then run /bin/true and `traced_app exit ITERATIONS 0` (fork +
//                     exec), waiting for each
//   wrap              record nothing, run `traced_app exit ITERATIONS 0` and wait (a wrapper
//                     script's shell)
//   exec-wrap         record nothing, then become `traced_app exit ITERATIONS 0` (execv, no
//                     fork: a wrapper script's `exec ./app`)
//   exec-after        record, then become `traced_app exit ITERATIONS 0` (execv)
//   rate              ROC-TX ranges at ITERATIONS ranges a second (0: as fast as it can),
//                     from ARG threads (1 if absent), until killed; prints "started" once the
//                     first range is recorded
//   timed-marks       ITERATIONS marks, 1 ms apart, each printed as "mark BEFORE AFTER" with
//                     CLOCK_BOOTTIME ns read just before and just after it
//   close-loop, close-range, closefrom, close-raw
//                     close every descriptor above 2 (close() up to 1024, close_range(),
//                     closefrom(), or the raw system call), then write ITERATIONS lines to
//                     ./mydata.txt, each inside a ROC-TX range
#include <dlfcn.h>
#include <fcntl.h>
#include <roctracer/roctx.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <rocprof-mpi/recorder.h>

namespace {

// The recorder API, if the recorder is loaded (it is preloaded, not linked).
struct RecorderApi {
  decltype(&rocprof_mpi_record_mpi_call) mpi_call = nullptr;
  decltype(&rocprof_mpi_record_counter_sample) counter = nullptr;
  decltype(&rocprof_mpi_record_clock_sample) clock = nullptr;
  decltype(&rocprof_mpi_record_counter_session) session = nullptr;
  decltype(&rocprof_mpi_recorder_flush) flush = nullptr;
  RecorderApi() {
    mpi_call =
        reinterpret_cast<decltype(mpi_call)>(dlsym(RTLD_DEFAULT, "rocprof_mpi_record_mpi_call"));
    counter = reinterpret_cast<decltype(counter)>(
        dlsym(RTLD_DEFAULT, "rocprof_mpi_record_counter_sample"));
    clock =
        reinterpret_cast<decltype(clock)>(dlsym(RTLD_DEFAULT, "rocprof_mpi_record_clock_sample"));
    session = reinterpret_cast<decltype(session)>(
        dlsym(RTLD_DEFAULT, "rocprof_mpi_record_counter_session"));
    flush = reinterpret_cast<decltype(flush)>(dlsym(RTLD_DEFAULT, "rocprof_mpi_recorder_flush"));
  }
};
const RecorderApi api;

std::atomic<bool> g_flag{false};

// One iteration: a range around a mark (3 markers), an MPI call and a counter sample.
void iteration(int i) {
  roctxRangePushA("iteration");
  roctxMarkA(("step " + std::to_string(i % 10)).c_str());
  if (api.mpi_call != nullptr) {
    rocprof_mpi_mpi_call_t call{};
    call.begin_ns = 1000U + static_cast<std::uint64_t>(i) * 10U;
    call.end_ns = call.begin_ns + 5;
    call.bytes_sent = 8U * static_cast<std::uint64_t>(i);
    call.peer = i % 4;
    call.tag = 99;
    api.mpi_call("MPI_Send", &call);
  }
  if (api.counter != nullptr)
    api.counter(1, "iterations", 2000U + static_cast<std::uint64_t>(i), i);
  roctxRangePop();
}

void record(int iterations) {
  if (api.session != nullptr) api.session(1, -1, "app counters", 1);
  if (api.clock != nullptr) api.clock(500, -7000, 2000, 1000, 0);
  for (int i = 0; i < iterations; ++i) iteration(i);
}

void print_and_exit(int signal_number) {
  char line[64];
  const int length = std::snprintf(line, sizeof line, "app handler %d\n", signal_number);
  [[maybe_unused]] const ssize_t written = write(STDOUT_FILENO, line, static_cast<size_t>(length));
  _exit(42);
}

void set_flag(int /*signal_number*/) { g_flag.store(true); }

// What daemons and some HPC codes do at start: nothing inherited stays open.
void close_every_descriptor(const std::string& way) {
  constexpr int kLimit = 1024;
  if (way == "close-loop")
    for (int fd = 3; fd < kLimit; ++fd) close(fd);
  else if (way == "close-range")
    close_range(3, ~0U, 0);
  else if (way == "closefrom")
    closefrom(3);
  else
    for (int fd = 3; fd < kLimit; ++fd) syscall(SYS_close, fd);
}

int write_lines(int count) {
  const int fd = open("mydata.txt", O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return 1;
  for (int i = 0; i < count; ++i) {
    roctxRangePushA("line");
    const std::string line = "line " + std::to_string(i) + "\n";
    if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 1;
    roctxRangePop();
  }
  if (close(fd) != 0) return 1;
  std::printf("app done\n");
  return 0;
}

// VmRSS of this process in kB, -1 if unreadable.
long resident_kb() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, status) != nullptr)
    if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
  std::fclose(status);
  return kb;
}

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// Ranges at `per_second` in total (0: flat out), in bursts every millisecond; never returns.
[[noreturn]] void record_at_rate(int per_second, int threads) {
  const auto worker = [per_second, threads] {
    const std::uint64_t per_burst =
        per_second > 0 ? std::max<std::uint64_t>(1, per_second / 1000 / threads) : 1000;
    std::uint64_t next = monotonic_ns();
    while (true) {
      for (std::uint64_t i = 0; i < per_burst; ++i) {
        roctxRangePushA("ranged");
        roctxRangePop();
      }
      if (per_second == 0) continue;
      next += 1'000'000;
      const std::uint64_t now = monotonic_ns();
      if (next > now) usleep(static_cast<useconds_t>((next - now) / 1000));
    }
  };
  roctxRangePushA("ranged");
  roctxRangePop();
  std::printf("started\n");
  for (int t = 1; t < threads; ++t) std::thread(worker).detach();
  worker();
  std::abort();  // unreachable
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODE ITERATIONS [ARG]\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int iterations = std::atoi(argv[2]);
  const int arg = argc > 3 ? std::atoi(argv[3]) : 0;
  std::setvbuf(stdout, nullptr, _IONBF, 0);

  if (mode == "exit") {
    record(iterations);
    std::printf("app done\n");
    return arg;
  }
  if (mode == "rate") {
    record_at_rate(iterations, arg > 0 ? arg : 1);
    return 0;
  }
  if (mode == "timed-marks") {
    const auto boottime = [] {
      timespec ts{};
      clock_gettime(CLOCK_BOOTTIME, &ts);
      return static_cast<unsigned long long>(ts.tv_sec) * 1'000'000'000ULL +
             static_cast<unsigned long long>(ts.tv_nsec);
    };
    for (int i = 0; i < iterations; ++i) {
      const unsigned long long before = boottime();
      roctxMarkA("timed");
      const unsigned long long after = boottime();
      std::printf("mark %llu %llu\n", before, after);
      usleep(1000);
    }
    return 0;
  }
  if (mode == "shells") {
    record(iterations);
    for (int i = 0; i < 25; ++i) {
      if (std::system("true && true") != 0) return 1;
      std::FILE* pipe = popen("echo shell", "r");
      if (pipe == nullptr) return 1;
      char line[32] = {};
      if (std::fgets(line, sizeof line, pipe) == nullptr || std::strcmp(line, "shell\n") != 0)
        return 1;
      if (pclose(pipe) != 0) return 1;
    }
    std::printf("shells done\n");
    return 0;
  }
  if (mode == "quick-exit" || mode == "quick-exit-unflushed") {
    record(iterations);
    if (mode == "quick-exit" && api.flush != nullptr) api.flush();
    _exit(arg);
  }
  if (mode == "exec-wrap" || mode == "exec-after") {
    if (mode == "exec-after") record(iterations);
    const std::string count = std::to_string(iterations);
    const char* next[] = {argv[0], "exit", count.c_str(), "0", nullptr};
    execv(argv[0], const_cast<char* const*>(next));
    return 127;
  }
  if (mode == "spawn" || mode == "wrap") {
    if (mode == "spawn") record(iterations);
    const std::string count = std::to_string(iterations);
    const char* true_program[] = {"/bin/true", nullptr};
    const char* traced_child[] = {argv[0], "exit", count.c_str(), "0", nullptr};
    std::vector<const char* const*> children = {true_program, traced_child};
    if (mode == "wrap") children.erase(children.begin());
    for (const char* const* child_argv : children) {
      const pid_t child = fork();
      if (child == 0) {
        execv(child_argv[0], const_cast<char* const*>(child_argv));
        _exit(127);
      }
      int status = 0;
      waitpid(child, &status, 0);
    }
    std::printf("%s\n", mode == "spawn" ? "spawned" : "wrapped");
    return 0;
  }
  if (mode == "thread-exit") {
    std::vector<std::thread> workers;
    workers.reserve(4);
    std::atomic<int> finished{0};
    for (int t = 0; t < 4; ++t)
      workers.emplace_back([&] {
        record(iterations);
        finished.fetch_add(1);
      });
    while (finished.load() < 4) std::this_thread::yield();
    // exit() from a thread other than main, the workers not joined: what this mode tests.
    std::thread([&] { std::exit(arg); }).join();  // NOLINT(concurrency-mt-unsafe)
    return 0;
  }
  if (mode == "raise" || mode == "handled" || mode == "continue") {
    if (mode == "handled") signal(arg, print_and_exit);
    if (mode == "continue") {
      struct sigaction action {};
      action.sa_handler = set_flag;
      sigaction(arg, &action, nullptr);
    }
    record(iterations);
    raise(arg);
    if (mode == "continue" && g_flag.load()) {
      record(iterations);  // the process goes on after its handler ran
      std::printf("app continued\n");
      return 0;
    }
    return 1;
  }
  if (mode == "segv") {
    record(iterations);
    volatile int* nowhere = nullptr;
    return *nowhere;
  }
  if (mode == "abort") {
    record(iterations);
    std::abort();
  }
  if (mode == "fork-record") {
    // A child that goes on without exec and records ITERATIONS ranges: how much its resident
    // memory grew (kB), from /proc/self/status before and getrusage's peak after.
    record(10);
    const pid_t child = fork();
    if (child == 0) {
      const long before = resident_kb();
      for (int i = 0; i < iterations; ++i) {
        roctxRangePushA("child");
        roctxRangePop();
      }
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      std::printf("child grew %ld kB\n", usage.ru_maxrss - before);
      std::exit(0);  // NOLINT(concurrency-mt-unsafe)
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (mode == "fork") {
    record(iterations);
    const pid_t child = fork();
    if (child == 0) {
      usleep(150000);      // while the parent goes on recording and flushing
      record(iterations);  // the child's records have no writer: never in the parent's file
      // Runs atexit handlers (HDF5's included) in the child, which has this one thread.
      std::exit(0);  // NOLINT(concurrency-mt-unsafe)
    }
    record(iterations);
    if (arg == SIGKILL) {
      // Everything so far on disk before the child exits, whatever the load on the machine:
      // a child that wrote the file's state at the fork over it
      // would lose these records.
      if (api.flush != nullptr) api.flush();
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (arg == SIGKILL) raise(SIGKILL);  // before the next flush could repair anything
    usleep(100000);
    record(iterations);
    std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
  }
  if (mode.starts_with("close")) {
    close_every_descriptor(mode);
    return write_lines(iterations);
  }
  if (mode == "hang") {
    record(iterations);
    std::printf("recorded %d\n", iterations);
    for (int i = 0;; ++i) {
      iteration(i);
      usleep(1000);
    }
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
