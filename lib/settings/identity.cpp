#include "lib/settings/identity.hpp"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace rocprof::settings {
namespace {

// Read at start only; the library never calls setenv.
const char* env(const char* name) { return std::getenv(name); }  // NOLINT(concurrency-mt-unsafe)

std::int32_t first_number(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* text = env(name);
    if (text == nullptr) continue;
    std::int32_t value = -1;
    const std::string_view view = text;
    const auto [end, code] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (code == std::errc{} && end == view.data() + view.size() && value >= 0) return value;
  }
  return -1;
}

}  // namespace

Identity identity_from_environment() {
  Identity identity;
  identity.rank = first_number({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"});
  identity.size = first_number({"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"});
  // A scheduler's job id, else the PMIx namespace mpirun gives each of its jobs (made safe
  // for file names).
  for (const char* name :
       {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "PMIX_NAMESPACE"}) {
    if (const char* value = env(name); value != nullptr && *value != '\0') {
      identity.job_id = value;
      for (char& c : identity.job_id)
        if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '-' && c != '_')
          c = '_';
      break;
    }
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) identity.hostname = host;
  identity.pid = static_cast<std::uint32_t>(getpid());
  return identity;
}

namespace {

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

// No value may turn a component of the pattern into an empty one, '.' or '..' (which would
// move the file out of the directory the pattern names: '%env{X}%/f' with X unset is /f).
bool same_components(std::string_view pattern, std::string_view expanded, std::string& error) {
  const auto before = components(pattern);
  const auto after = components(expanded);
  for (std::size_t i = 0; i < after.size() && i < before.size(); ++i) {
    const std::string_view part = after[i];
    if ((part.empty() || part == "." || part == "..") && part != before[i]) {
      error = fmt::format(
          "'{}' expands to '{}': a placeholder may not make a path component empty, '.' or "
          "'..'",
          pattern, expanded);
      return false;
    }
  }
  return true;
}

}  // namespace

bool expand_placeholders(const std::string& pattern, const Identity& identity, std::string& out,
                         std::string& error) {
  std::string result;
  std::size_t position = 0;
  while (position < pattern.size()) {
    const std::size_t open = pattern.find('%', position);
    if (open == std::string::npos) {
      result.append(pattern, position);
      break;
    }
    result.append(pattern, position, open - position);
    const std::size_t close = pattern.find('%', open + 1);
    if (close == std::string::npos) {
      error = fmt::format(
          "unterminated placeholder in '{}' (use %rank%, %size%, %pid%, "
          "%hostname%, %job%, %env{{NAME}}%)",
          pattern);
      return false;
    }
    const std::string_view name(pattern.data() + open + 1, close - open - 1);
    std::string value;
    if (name == "rank") {
      value =
          identity.rank >= 0 ? std::to_string(identity.rank) : fmt::format("pid{}", identity.pid);
    } else if (name == "size") {
      value = identity.size >= 0 ? std::to_string(identity.size) : "unknown";
    } else if (name == "pid") {
      value = std::to_string(identity.pid);
    } else if (name == "hostname") {
      value = identity.hostname;
    } else if (name == "job") {
      value = identity.job_id.empty() ? fmt::format("pid{}", identity.pid) : identity.job_id;
    } else if (name.starts_with("env{") && name.ends_with("}") && name.size() > 5) {
      const std::string variable(name.substr(4, name.size() - 5));
      const char* text = env(variable.c_str());
      value = text != nullptr ? text : "";
    } else {
      error = fmt::format(
          "unknown placeholder '%{}%' in '{}' (use %rank%, %size%, %pid%, "
          "%hostname%, %job%, %env{{NAME}}%)",
          name, pattern);
      return false;
    }
    // Every value alike (a host name in a UTS namespace, a job id): none may add components.
    if (value.find('/') != std::string::npos) {
      error = fmt::format(
          "'%{}%' in '{}' expands to '{}', which has a '/': a placeholder may not add "
          "path components",
          name, pattern, value);
      return false;
    }
    result += value;
    position = close + 1;
  }
  if (!same_components(pattern, result, error)) return false;
  out = std::move(result);
  return true;
}

}  // namespace rocprof::settings
