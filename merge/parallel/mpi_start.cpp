#include "merge/parallel/mpi_start.hpp"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): before any thread
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// The value an Open MPI parameter file gives `name` ("name = value"; the last one counts),
// nullopt if it gives none or cannot be read.
std::optional<std::string> file_parameter(const std::string& path, std::string_view name) {
  std::ifstream file(path);
  std::string line;
  std::optional<std::string> value;
  while (std::getline(file, line)) {
    const std::string_view text = trimmed(line);
    if (text.empty() || text.front() == '#') continue;
    const std::size_t equals = text.find('=');
    if (equals != std::string_view::npos && trimmed(text.substr(0, equals)) == name)
      value = std::string(trimmed(text.substr(equals + 1)));
  }
  return value;
}

// A parameter's value as Open MPI would take it: the environment, then the user's file, then
// the installation's (Debian's place, or a relocated installation's). `chosen_elsewhere`:
// a file named by OMPI_MCA_mca_base_param_files could give it too (not read here).
std::optional<std::string> parameter(std::string_view name, bool& chosen_elsewhere) {
  if (auto value = environment(fmt::format("OMPI_MCA_{}", name).c_str())) return value;
  if (environment("OMPI_MCA_mca_base_param_files")) chosen_elsewhere = true;
  std::vector<std::string> files;
  if (const auto home = environment("HOME")) files.push_back(*home + "/.openmpi/mca-params.conf");
  if (const auto prefix = environment("OPAL_PREFIX"))
    files.push_back(*prefix + "/etc/openmpi-mca-params.conf");
  files.emplace_back("/etc/openmpi/openmpi-mca-params.conf");
  for (const std::string& file : files)
    if (auto value = file_parameter(file, name)) return value;
  return std::nullopt;
}

std::string_view one_node_setting() {
  const char* setting = std::getenv("ROCPROF_MERGE_ONE_NODE_MPI");  // NOLINT(concurrency-mt-unsafe)
  return setting == nullptr ? "" : setting;
}

}  // namespace

std::string one_node_mpi_setting_problem() {
  const std::string_view setting = one_node_setting();
  if (setting.empty() || setting == "auto" || setting == "off") return {};
  return fmt::format("ROCPROF_MERGE_ONE_NODE_MPI is '{}': use auto (the default) or off", setting);
}

std::optional<std::string> network_layers_left_out(const LaunchPlace& place) {
  if (!place.one_node || place.processes < 2 || one_node_setting() == "off" ||
      !one_node_mpi_setting_problem().empty())
    return std::nullopt;
  bool chosen_elsewhere = false;
  const std::optional<std::string> pml = parameter("pml", chosen_elsewhere);
  const std::optional<std::string> mtl = parameter("mtl", chosen_elsewhere);
  if (chosen_elsewhere) return std::nullopt;
  // A pml or an mtl named (not a list of those to leave out) is a choice: it stays.
  if ((pml && !pml->starts_with('^')) || (mtl && !mtl->starts_with('^'))) return std::nullopt;
  if (!pml) return "^cm";
  // Those left out already stay left out; cm may be one of them.
  std::string_view left_out = std::string_view(*pml).substr(1);
  while (!left_out.empty()) {
    const std::size_t comma = left_out.find(',');
    if (trimmed(left_out.substr(0, comma)) == "cm") return std::nullopt;
    left_out = comma == std::string_view::npos ? std::string_view{} : left_out.substr(comma + 1);
  }
  return *pml + ",cm";
}

bool leave_out_network_layers(const LaunchPlace& place) {
  const std::optional<std::string> value = network_layers_left_out(place);
  // NOLINTNEXTLINE(concurrency-mt-unsafe): before any thread, as the caller promises
  return value && ::setenv("OMPI_MCA_pml", value->c_str(), 1) == 0;
}

}  // namespace rocprof::merge
