// librocprofiler64v2: the rocprofiler v2 device profiling API (rocprofiler/v2/rocprofiler.h)
// over the counter sources of this machine. Every call takes one lock: sessions are few and
// polled at human rates, and a poll blocks by definition.
#include <rocprofiler/v2/rocprofiler.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lib/device/counter_source.hpp"
#include "lib/device/gpu_counters.hpp"
#include "lib/device/host_counters.hpp"

namespace rocprof::device {
namespace {

struct Session {
  // A source and what a poll reads of it: its counters which[i] into the poll's places[i]
  // (the order the counters were named in).
  struct Source {
    std::unique_ptr<CounterSource> counters;
    std::vector<std::size_t> which;
    std::vector<std::size_t> places;
  };
  std::vector<Source> sources;  // the host's first
  bool active = false;
};

struct State {
  std::mutex mutex;
  bool initialized = false;
  std::uint64_t next_handle = 1;
  std::map<std::uint64_t, Session> sessions;
};

State& state() {
  static State instance;
  return instance;
}

// The counter named `name` in `source`, or false.
bool find_counter(const CounterSource& source, const char* name, std::size_t& index) {
  const auto& counters = source.counters();
  for (index = 0; index < counters.size(); ++index)
    if (counters[index].name == name) return true;
  return false;
}

rocprofiler_status_t create(const char** names, std::uint64_t count, rocprofiler_session_id_t* id,
                            int cpu, int gpu, State& all) {
  if (names == nullptr || id == nullptr || count == 0) return ROCPROFILER_STATUS_ERROR;
  if (cpu < -1) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
  std::unique_ptr<CounterSource> host = host_counters(cpu);
  if (!host) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
  Session session;
  session.sources.push_back({std::move(host), {}, {}});
  constexpr std::size_t kHost = 0;
  constexpr std::size_t kGpu = 1;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (names[i] == nullptr) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    std::size_t source = kHost;
    std::size_t counter = 0;
    if (!find_counter(*session.sources[kHost].counters, names[i], counter)) {
      if (!is_gpu_counter(names[i])) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
      // The GPU's source, made for its first counter: a GPU counter of a GPU (or a
      // management library) this machine lacks is a missing agent, not an unknown name.
      if (session.sources.size() == kGpu) {
        std::string why;
        std::unique_ptr<CounterSource> device = gpu_counters(gpu, why);
        if (!device) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
        session.sources.push_back({std::move(device), {}, {}});
      }
      source = kGpu;
      if (!find_counter(*session.sources[kGpu].counters, names[i], counter))
        return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    }
    session.sources[source].which.push_back(counter);
    session.sources[source].places.push_back(i);
  }
  id->handle = all.next_handle++;
  all.sessions.emplace(id->handle, std::move(session));
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t poll(Session& session, rocprofiler_device_profile_metric_t* data) {
  if (data == nullptr) return ROCPROFILER_STATUS_ERROR;
  if (!session.active) return ROCPROFILER_STATUS_ERROR_SESSION_NOT_ACTIVE;
  for (const Session::Source& source : session.sources) {
    if (source.which.empty()) continue;  // only the GPU's counters were named
    std::vector<double> read(source.which.size(), 0.0);
    source.counters->read(source.which, read);
    const auto& counters = source.counters->counters();
    for (std::size_t i = 0; i < read.size(); ++i) {
      rocprofiler_device_profile_metric_t& metric = data[source.places[i]];
      std::memset(metric.metric_name, 0, sizeof metric.metric_name);
      const std::string& name = counters[source.which[i]].name;
      std::strncpy(metric.metric_name, name.c_str(), sizeof metric.metric_name - 1);
      metric.value.value = read[i];
    }
  }
  return ROCPROFILER_STATUS_SUCCESS;
}

// Runs `action` on the session `id` under the lock, with the checks every session call makes.
template <typename Action>
rocprofiler_status_t with_session(rocprofiler_session_id_t id, Action&& action) {
  State& all = state();
  try {
    const std::lock_guard lock(all.mutex);
    if (!all.initialized) return ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED;
    const auto found = all.sessions.find(id.handle);
    if (found == all.sessions.end()) return ROCPROFILER_STATUS_ERROR_SESSION_NOT_FOUND;
    return action(found->second, all);
  } catch (...) {  // a device that failed to answer: the caller gets a status, not an exception
    return ROCPROFILER_STATUS_ERROR;
  }
}

}  // namespace
}  // namespace rocprof::device

using rocprof::device::Session;
using rocprof::device::State;

extern "C" {

ROCPROFILER_EXPORT uint32_t rocprofiler_version_major() { return ROCPROFILER_VERSION_MAJOR; }
ROCPROFILER_EXPORT uint32_t rocprofiler_version_minor() { return ROCPROFILER_VERSION_MINOR; }

ROCPROFILER_EXPORT const char* rocprofiler_error_str(rocprofiler_status_t status) {
  switch (status) {
    case ROCPROFILER_STATUS_SUCCESS:
      return "success";
    case ROCPROFILER_STATUS_ERROR_ALREADY_INITIALIZED:
      return "rocprofiler is initialized already";
    case ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED:
      return "rocprofiler is not initialized (call rocprofiler_initialize first)";
    case ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND:
      return "no such CPU or GPU on this machine (or no management library for its GPUs)";
    case ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND:
      return "no counter of that name on this device (rocprof-mpi --list-counters lists them)";
    case ROCPROFILER_STATUS_ERROR_SESSION_NOT_FOUND:
      return "no such session (never created, or destroyed already)";
    case ROCPROFILER_STATUS_ERROR_SESSION_NOT_ACTIVE:
      return "the session is not started";
    case ROCPROFILER_STATUS_ERROR_HAS_ACTIVE_SESSION:
      return "the session is started already";
    case ROCPROFILER_STATUS_ERROR:
      return "a null argument, no counters, or a device that failed to answer";
    default:
      return "an error of the rocprofiler API that device profiling does not return";
  }
}

ROCPROFILER_EXPORT rocprofiler_status_t rocprofiler_initialize() {
  State& all = rocprof::device::state();
  const std::lock_guard lock(all.mutex);
  if (all.initialized) return ROCPROFILER_STATUS_ERROR_ALREADY_INITIALIZED;
  all.initialized = true;
  return ROCPROFILER_STATUS_SUCCESS;
}

ROCPROFILER_EXPORT rocprofiler_status_t rocprofiler_finalize() {
  State& all = rocprof::device::state();
  const std::lock_guard lock(all.mutex);
  if (!all.initialized) return ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED;
  all.sessions.clear();
  all.initialized = false;
  return ROCPROFILER_STATUS_SUCCESS;
}

ROCPROFILER_EXPORT rocprofiler_status_t rocprofiler_device_profiling_session_create(
    const char** counter_names, uint64_t num_counters, rocprofiler_session_id_t* session_id,
    int cpu_index, int gpu_index) {
  State& all = rocprof::device::state();
  try {
    const std::lock_guard lock(all.mutex);
    if (!all.initialized) return ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED;
    return rocprof::device::create(counter_names, num_counters, session_id, cpu_index, gpu_index,
                                   all);
  } catch (...) {
    return ROCPROFILER_STATUS_ERROR;
  }
}

ROCPROFILER_EXPORT rocprofiler_status_t
rocprofiler_device_profiling_session_start(rocprofiler_session_id_t session_id) {
  return rocprof::device::with_session(session_id, [](Session& session, State&) {
    if (session.active) return ROCPROFILER_STATUS_ERROR_HAS_ACTIVE_SESSION;
    for (const auto& source : session.sources) source.counters->start();
    session.active = true;
    return ROCPROFILER_STATUS_SUCCESS;
  });
}

ROCPROFILER_EXPORT rocprofiler_status_t rocprofiler_device_profiling_session_poll(
    rocprofiler_session_id_t session_id, rocprofiler_device_profile_metric_t* data) {
  return rocprof::device::with_session(session_id, [data](Session& session, State&) {
    return rocprof::device::poll(session, data);
  });
}

ROCPROFILER_EXPORT rocprofiler_status_t
rocprofiler_device_profiling_session_stop(rocprofiler_session_id_t session_id) {
  return rocprof::device::with_session(session_id, [](Session& session, State&) {
    if (!session.active) return ROCPROFILER_STATUS_ERROR_SESSION_NOT_ACTIVE;
    session.active = false;
    return ROCPROFILER_STATUS_SUCCESS;
  });
}

ROCPROFILER_EXPORT rocprofiler_status_t
rocprofiler_device_profiling_session_destroy(rocprofiler_session_id_t session_id) {
  return rocprof::device::with_session(session_id, [session_id](Session&, State& all) {
    all.sessions.erase(session_id.handle);
    return ROCPROFILER_STATUS_SUCCESS;
  });
}

}  // extern "C"
