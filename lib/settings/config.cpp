#include "lib/settings/config.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

namespace rocprof::settings {
namespace {

// Read once at start, before the recorder starts threads; nothing in the library calls setenv.
const char* env(const char* name) { return std::getenv(name); }  // NOLINT(concurrency-mt-unsafe)

bool split_number(std::string_view text, std::uint64_t& value, std::string_view& suffix) {
  const auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (code != std::errc{} || end == text.data()) return false;
  suffix = text.substr(static_cast<std::size_t>(end - text.data()));
  return true;
}

}  // namespace

bool parse_duration_ms(const std::string& text, std::uint32_t& out) {
  std::uint64_t value = 0;
  std::string_view suffix;
  if (!split_number(text, value, suffix)) return false;
  std::uint64_t ms = 0;
  if (suffix.empty() || suffix == "ms")
    ms = value;
  else if (suffix == "s")
    ms = value * 1000;
  else
    return false;
  if (ms == 0 || ms > 3'600'000) return false;
  out = static_cast<std::uint32_t>(ms);
  return true;
}

bool parse_bytes(const std::string& text, std::uint64_t& out) {
  std::uint64_t value = 0;
  std::string_view suffix;
  if (!split_number(text, value, suffix)) return false;
  std::uint64_t scale = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB")
    scale = 1ULL << 10;
  else if (suffix == "M" || suffix == "MiB")
    scale = 1ULL << 20;
  else if (suffix == "G" || suffix == "GiB")
    scale = 1ULL << 30;
  else if (!suffix.empty())
    return false;
  out = value * scale;
  return true;
}

bool parse_domains(const std::string& text, Domains& out, std::string& error) {
  Domains domains{false, false, false, false, false, false, false, false};
  std::string_view rest = text;
  bool any = false;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (name == "all") {
      const bool cuda = domains.cuda;
      domains = Domains{};
      domains.cuda = cuda;
    } else if (name == "roctx" || name == "marker") {
      domains.roctx = true;
    } else if (name == "hip_api") {
      domains.hip_api = true;
    } else if (name == "hsa_api") {
      domains.hsa_api = true;
    } else if (name == "hip_ops") {
      domains.hip_ops = true;
    } else if (name == "hsa_ops") {
      domains.hsa_ops = true;
    } else if (name == "mpi") {
      domains.mpi = true;
    } else if (name == "counters") {
      domains.counters = true;
    } else if (name == "cuda") {
      domains.cuda = true;
    } else {
      error = fmt::format(
          "unknown domain '{}' (use a comma-separated list of all, roctx, hip_api, hsa_api, "
          "hip_ops, hsa_ops, mpi, counters, cuda)",
          name);
      return false;
    }
    any = true;
  }
  if (!any) {
    error = "no domain given";
    return false;
  }
  out = domains;
  return true;
}

bool parse_counter_names(const std::string& text, std::vector<std::string>& out,
                         std::string& error) {
  std::vector<std::string> names;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) {
      error =
          "a counter name is empty (give NAME,NAME,...; rocprof-mpi --list-counters lists them)";
      return false;
    }
    names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  out = std::move(names);
  return true;
}

bool read_config(Config& config, std::string& error) {
  if (const char* value = env("ROCPROF_MPI_OUTPUT_DIR")) {
    if (*value == '\0') {
      error = "ROCPROF_MPI_OUTPUT_DIR is empty";
      return false;
    }
    config.output_directory = value;
  }
  if (const char* value = env("ROCPROF_MPI_OUTPUT_FILE")) {
    const std::string_view name = value;
    if (name.empty() || name.find('/') != std::string_view::npos) {
      error = fmt::format("ROCPROF_MPI_OUTPUT_FILE='{}' must be a non-empty file name without '/'",
                          name);
      return false;
    }
    config.output_file = value;
  }
  if (const char* value = env("ROCPROF_MPI_COMPRESSION")) {
    std::string problem;
    if (!format::Compression::parse(value, config.compression, problem)) {
      error = fmt::format("ROCPROF_MPI_COMPRESSION: {}", problem);
      return false;
    }
  }
  if (const char* value = env("ROCPROF_MPI_FLUSH_INTERVAL")) {
    if (!parse_duration_ms(value, config.flush_interval_ms)) {
      error = fmt::format(
          "ROCPROF_MPI_FLUSH_INTERVAL='{}' is not a duration between 1ms and 3600s (e.g. 500ms, "
          "2s)",
          value);
      return false;
    }
  }
  if (const char* value = env("ROCPROF_MPI_BUFFER_SIZE")) {
    if (!parse_bytes(value, config.buffer_bytes) || config.buffer_bytes < 4096 ||
        config.buffer_bytes > (std::uint64_t{1} << 30)) {
      error = fmt::format(
          "ROCPROF_MPI_BUFFER_SIZE='{}' is not a size between 4K and 1G (e.g. 1M, 65536)", value);
      return false;
    }
  }
  if (const char* value = env("ROCPROF_MPI_FLUSH_LOG")) config.flush_log = value;
  if (const char* value = env("ROCPROF_MPI_SIGNAL_FLUSH_TIMEOUT")) {
    if (!parse_duration_ms(value, config.signal_flush_timeout_ms)) {
      error =
          fmt::format("ROCPROF_MPI_SIGNAL_FLUSH_TIMEOUT='{}' is not a duration (e.g. 3s)", value);
      return false;
    }
  }
  if (const char* value = env("ROCPROF_MPI_RANKS")) {
    std::string problem;
    if (!parse_rank_list(value, config.ranks, problem)) {
      error = fmt::format("ROCPROF_MPI_RANKS: {}", problem);
      return false;
    }
    config.ranks_text = value;
  }
  if (const char* value = env("ROCPROF_MPI_ANNOUNCE"))
    config.announce = std::string_view(value) == "1";
  if (const char* value = env("ROCPROF_MPI_HELPER_CPUS")) {
    const std::string_view where = value;
    if (where != "all" && where != "rank") {
      error = fmt::format("ROCPROF_MPI_HELPER_CPUS='{}' must be all or rank", where);
      return false;
    }
    config.helpers_on_all_cpus = where == "all";
  }
  if (const char* value = env("ROCPROF_MPI_HELPER_NICE")) {
    const std::string_view text = value;
    int nice = -1;
    const auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), nice);
    if (code != std::errc{} || end != text.data() + text.size() || nice < 0 || nice > 19) {
      error = fmt::format("ROCPROF_MPI_HELPER_NICE='{}' must be a number from 0 to 19", text);
      return false;
    }
    config.helper_nice = nice;
  }
  if (const char* value = env("ROCPROF_MPI_TIMESTAMPS")) {
    const std::string_view how = value;
    if (how != "auto" && how != "clock_gettime") {
      error = fmt::format("ROCPROF_MPI_TIMESTAMPS='{}' must be auto or clock_gettime", how);
      return false;
    }
    config.timestamps = how == "auto" ? Timestamps::kAuto : Timestamps::kClockGettime;
  }
  if (const char* value = env("ROCPROF_MPI_DEVICE_COUNTERS"); value != nullptr && *value != '\0') {
    std::string problem;
    if (!parse_counter_names(value, config.device_counters, problem)) {
      error = fmt::format("ROCPROF_MPI_DEVICE_COUNTERS='{}': {}", value, problem);
      return false;
    }
  }
  if (const char* value = env("ROCPROF_MPI_COUNTER_INTERVAL")) {
    if (!parse_duration_ms(value, config.counter_interval_ms)) {
      error = fmt::format(
          "ROCPROF_MPI_COUNTER_INTERVAL='{}' is not a duration between 1ms and 3600s (e.g. 10ms, "
          "1s)",
          value);
      return false;
    }
  }
  if (const char* value = env("ROCPROF_MPI_DOMAINS")) {
    std::string problem;
    if (!parse_domains(value, config.domains, problem)) {
      error = fmt::format("ROCPROF_MPI_DOMAINS='{}': {}", value, problem);
      return false;
    }
  }
  // Counters asked for by name are recorded whatever the domains say.
  if (!config.device_counters.empty()) config.domains.counters = true;
  return true;
}

}  // namespace rocprof::settings
