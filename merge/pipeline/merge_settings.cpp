#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "merge/parallel/merge_group.hpp"
#include "merge/parallel/mpi_start.hpp"
#include "merge/pipeline/cpu_budget.hpp"
#include "merge/pipeline/merge_options.hpp"

namespace rocprof::merge {
namespace {

// A count of helpers from the environment (`name`=auto|N, N up to 64): nullopt for auto (or
// unset). `problem` says why if misspelt.
std::optional<std::size_t> helpers_asked(const char* name, std::string_view helpers,
                                         std::string& problem) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  const std::string text = value == nullptr ? "auto" : value;
  if (text == "auto") return std::nullopt;
  std::size_t count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (error != std::errc{} || end != text.data() + text.size() || count > 64) {
    if (problem.empty())
      problem =
          fmt::format("{} is '{}': give auto or a number of {} (0 to 64)", name, text, helpers);
    return 0;
  }
  return count;
}

// ROCPROF_MERGE_ANALYSIS_MEMORY: MiB, 1 to 1048576; `fallback` if unset.
std::size_t analysis_memory_asked(std::size_t fallback, std::string& problem) {
  const char* value =
      std::getenv("ROCPROF_MERGE_ANALYSIS_MEMORY");  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr || *value == '\0') return fallback;
  const std::string_view text = value;
  std::size_t mib = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), mib);
  if (error != std::errc{} || end != text.data() + text.size() || mib < 1 || mib > (1U << 20)) {
    if (problem.empty())
      problem = fmt::format(
          "ROCPROF_MERGE_ANALYSIS_MEMORY is '{}': give the MiB of message ends and collective "
          "calls a merge process may hold (1 to 1048576)",
          text);
    return fallback;
  }
  return mib << 20;
}

// ROCPROF_MERGE_PROCESSES=auto|all|N: what bounds the processes that merge.
MergingLimits merging_asked(std::string& problem) {
  const char* value = std::getenv("ROCPROF_MERGE_PROCESSES");  // NOLINT(concurrency-mt-unsafe)
  const std::string_view text = value == nullptr ? "auto" : value;
  if (text == "auto" || text.empty()) return {};
  if (text == "all") return {.records_per_process = 0, .cpus_per_process = 0};
  std::size_t most = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), most);
  if (error == std::errc{} && end == text.data() + text.size() && most > 0)
    return {.records_per_process = 0, .cpus_per_process = 0, .most = most};
  if (problem.empty())
    problem = fmt::format(
        "ROCPROF_MERGE_PROCESSES is '{}': give auto (the merge picks how many of its processes "
        "merge, the default), all, or a number of them (1 or more)",
        text);
  return {};
}

}  // namespace

MergeSettings merge_settings_from_environment() {
  MergeSettings settings;
  try {
    settings.direct_io = BlockFile::direct_io_from_environment();
  } catch (const std::exception& error) {
    settings.problem = error.what();
  }
  settings.check_helpers =
      helpers_asked("ROCPROF_MERGE_CHECK_HELPERS", "helper processes", settings.problem);
  settings.encode_helpers =
      helpers_asked("ROCPROF_MERGE_ENCODE_HELPERS", "helper threads", settings.problem);
  settings.analysis_memory = analysis_memory_asked(settings.analysis_memory, settings.problem);
  settings.merging = merging_asked(settings.problem);
  if (settings.problem.empty()) settings.problem = one_node_mpi_setting_problem();
  if (settings.problem.empty()) settings.problem = send_thread_setting_problem();
  return settings;
}

CheckHelperSetting check_helper_setting(std::optional<std::size_t> asked,
                                        std::size_t processes_on_node) {
  CheckHelperSetting setting;
  std::error_code code;
  setting.executable = std::filesystem::read_symlink("/proc/self/exe", code).string();
  if (code) setting.executable.clear();  // none then: every file is checked here
  const unsigned cpus = cpus_per_process(static_cast<int>(processes_on_node));
  setting.count = asked ? *asked : std::clamp<std::size_t>(cpus, 1, 8);
  return setting;
}

std::size_t spill_helpers(std::size_t processes_on_node) {
  const unsigned cpus = cpus_per_process(static_cast<int>(processes_on_node));
  return std::clamp<std::size_t>(cpus, 1, 8);
}

}  // namespace rocprof::merge
