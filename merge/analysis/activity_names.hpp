// How the analysis names what a rank was doing, where the name is not a record's own: time no
// record covers (host code outside any traced call or region), and the tool's own work, which
// is never the application's.
#pragma once

#include <string>
#include <string_view>

namespace rocprof::merge {

// Time of a rank no record covers.
inline constexpr std::string_view kUntracedHostWork = "(host work no tracer saw)";
// The call rocprof-mpi records for its clock synchronisation inside MPI_Init and
// MPI_Finalize (mpi/clock/clock_sync.cpp).
inline constexpr std::string_view kClockSyncCall = "rocprof_mpi_clock_sync";
inline constexpr std::string_view kClockSyncActivity =
    "rocprof_mpi_clock_sync (rocprof-mpi itself, not the application)";

// An activity's name as the outputs show it: "" (no record) and the tool's own call named
// for what they are, any other name as it is.
inline std::string activity_label(std::string_view name) {
  if (name.empty()) return std::string(kUntracedHostWork);
  if (name == kClockSyncCall) return std::string(kClockSyncActivity);
  return std::string(name);
}

}  // namespace rocprof::merge
