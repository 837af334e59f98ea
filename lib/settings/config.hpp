// The recorder's settings, read once from ROCPROF_MPI_* environment variables at start
// (docs/RECORDER.md lists them). Invalid values are reported, never guessed around.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/format/compression.hpp"
#include "lib/format/rank_list.hpp"

namespace rocprof::settings {

// Which record sources are recorded.
struct Domains {
  bool roctx = true;
  bool hip_api = true;
  bool hsa_api = true;
  bool hip_ops = true;
  bool hsa_ops = true;
  bool mpi = true;
  bool counters = true;
  // CUDA through CUPTI: only when named (it loads CUPTI into the process); `all` leaves it out.
  bool cuda = false;
};

// World ranks to trace ("0,4-7"); empty: all (the format module's: rank files record it).
using format::parse_rank_list;
using format::RankList;

// How MPI calls are timed (ROCPROF_MPI_TIMESTAMPS).
enum class Timestamps {
  kAuto,          // TSC ticks where the TSC is invariant and trusted, else clock_gettime
  kClockGettime,  // clock_gettime always
};

struct Config {
  std::string output_directory = "rocprof-mpi-output";  // placeholders allowed
  std::string output_file = "%rank%.h5";                // placeholders allowed
  format::Compression compression{};
  std::uint32_t flush_interval_ms = 1000;
  std::uint64_t buffer_bytes = std::uint64_t{1} << 20;  // per-thread buffer of the pool
  std::uint32_t signal_flush_timeout_ms = 3000;  // longest a fatal signal waits for the flush
  Domains domains{};
  RankList ranks{};        // ROCPROF_MPI_RANKS
  std::string ranks_text;  // as given, "" for all: written into the rank file
  bool announce = false;   // ROCPROF_MPI_ANNOUNCE=1: rank 0 says where the files are at exit
  // ROCPROF_MPI_HELPER_CPUS: where the recorder's own threads (writer, pool) run. `all`
  // (true): on any CPU the process's cpuset allows, even when the rank is bound to fewer;
  // `rank` (false): on the rank's CPUs, as they inherit.
  bool helpers_on_all_cpus = true;
  // ROCPROF_MPI_HELPER_NICE: how much lower than the application's the recorder's threads'
  // priority is, 0..19. 0 keeps the flush deadline when every core is busy.
  int helper_nice = 0;
  Timestamps timestamps = Timestamps::kAuto;
  // ROCPROF_MPI_DEVICE_COUNTERS: the counters sampled periodically ("CPU_UTIL,GPU_UTIL"; none
  // when empty), every ROCPROF_MPI_COUNTER_INTERVAL.
  std::vector<std::string> device_counters;
  std::uint32_t counter_interval_ms = 10;
  // ROCPROF_MPI_FLUSH_LOG: a file to which the writer appends each flush's start and end
  // (CLOCK_BOOTTIME), so that a test killing the process can tell whether the kill fell
  // inside a flush; empty: none.
  std::string flush_log;
};

// Reads the environment. On a bad value returns false with `error` naming the variable, its
// value and what is accepted.
bool read_config(Config& config, std::string& error);

// Parsers, exposed for tests. Durations take ms (default), s or us suffixes; sizes K, M, G.
bool parse_duration_ms(const std::string& text, std::uint32_t& out);
bool parse_bytes(const std::string& text, std::uint64_t& out);
bool parse_domains(const std::string& text, Domains& out, std::string& error);
// A comma-separated list of counter names (spaces around names ignored); false with `error`
// for an empty list or name.
bool parse_counter_names(const std::string& text, std::vector<std::string>& out,
                         std::string& error);

}  // namespace rocprof::settings
