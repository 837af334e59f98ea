#include "mpi/clock/clock_sync.hpp"

#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include <rocprof-mpi/recorder.h>

#include "mpi/runtime/mpi_state.hpp"

namespace rocprof::mpi {
namespace {

constexpr int kPingPongs = 12;
constexpr int kWarmUp = 2;
constexpr int kTag = 0x7c5;

// What makes two ranks' clocks the same clock: host and time namespace.
int clock_domain_color() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char* c = host; *c != '\0'; ++c)
    hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3ULL;
  struct stat info {};
  if (stat("/proc/self/ns/time", &info) == 0) hash = (hash ^ info.st_ino) * 0x100000001b3ULL;
  return static_cast<int>(hash & 0x3fffffff);
}

struct Measurement {
  std::int64_t offset_ns = 0;  // partner minus us
  std::uint64_t round_trip_ns = ULLONG_MAX;
  std::uint64_t local_ns = 0;
};

// We ask `partner` for its time kPingPongs times and keep the fastest answer.
Measurement measure_against(int partner, MPI_Comm comm) {
  Measurement best;
  for (int i = 0; i < kWarmUp + kPingPongs; ++i) {
    const std::uint64_t sent = now_ns();
    std::uint64_t partner_time = 0;
    PMPI_Send(&sent, 1, MPI_UINT64_T, partner, kTag, comm);
    PMPI_Recv(&partner_time, 1, MPI_UINT64_T, partner, kTag, comm, MPI_STATUS_IGNORE);
    const std::uint64_t received = now_ns();
    const std::uint64_t round_trip = received - sent;
    if (i >= kWarmUp && round_trip < best.round_trip_ns) {
      const std::uint64_t midpoint = sent + round_trip / 2;
      best.round_trip_ns = round_trip;
      best.local_ns = midpoint;
      best.offset_ns = static_cast<std::int64_t>(partner_time - midpoint);
    }
  }
  return best;
}

// The groups a measurement works in: the ranks that share this rank's clock (its leader
// first), and the leaders (MPI_COMM_NULL on the other ranks). Made at the first measurement
// (same_clock is then never null) and kept until MPI_Finalize: a split is collective and
// costs a round of its own, which the later measurements (at world barriers, in
// MPI_Finalize) need not pay again.
struct ClockGroups {
  MPI_Comm same_clock = MPI_COMM_NULL;
  MPI_Comm leaders = MPI_COMM_NULL;
};

ClockGroups& clock_groups() noexcept {
  static ClockGroups groups;
  return groups;
}

// The partner side: answer each ping with our time at its arrival.
void answer(int partner, MPI_Comm comm) {
  for (int i = 0; i < kWarmUp + kPingPongs; ++i) {
    std::uint64_t ping = 0;
    PMPI_Recv(&ping, 1, MPI_UINT64_T, partner, kTag, comm, MPI_STATUS_IGNORE);
    const std::uint64_t now = now_ns();
    PMPI_Send(&now, 1, MPI_UINT64_T, partner, kTag, comm);
  }
}

}  // namespace

ClockSyncResult synchronise_clocks() noexcept {
  ClockSyncResult result;
  int initialized = 0;
  int finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized == 0 || finalized != 0) return result;
  const std::uint64_t started = now_ns();

  ClockGroups& groups = clock_groups();
  if (groups.same_clock == MPI_COMM_NULL) {
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    // Ranks sharing a clock; world rank order keeps rank 0 the leader of its group.
    PMPI_Comm_split(MPI_COMM_WORLD, clock_domain_color(), world_rank, &groups.same_clock);
    int local_rank = 0;
    PMPI_Comm_rank(groups.same_clock, &local_rank);
    PMPI_Comm_split(MPI_COMM_WORLD, local_rank == 0 ? 0 : MPI_UNDEFINED, world_rank,
                    &groups.leaders);
  }
  MPI_Comm same_clock = groups.same_clock;
  MPI_Comm leaders = groups.leaders;
  const bool leader = leaders != MPI_COMM_NULL;

  // offset, round trip, uncertainty, local time: filled by leaders, then shared in groups.
  std::int64_t values[4] = {0, 0, 0, 0};
  if (leader) {
    int index = 0;
    int count = 1;
    PMPI_Comm_rank(leaders, &index);
    PMPI_Comm_size(leaders, &count);
    std::int64_t my_offset = 0;  // to the reference (leader 0 is world rank 0's group)
    std::uint64_t my_uncertainty = 0;
    std::uint64_t my_round_trip = 0;
    std::uint64_t my_local = now_ns();
    // Round k: leaders [2^k, 2^(k+1)) measure against index - 2^k, already synchronised.
    for (int step = 1; step < count; step *= 2) {
      if (index >= step && index < 2 * step) {
        const int partner = index - step;
        const Measurement m = measure_against(partner, leaders);
        std::int64_t partner_state[2] = {0, 0};  // its offset and uncertainty to the reference
        PMPI_Recv(partner_state, 2, MPI_INT64_T, partner, kTag + 1, leaders, MPI_STATUS_IGNORE);
        my_offset = m.offset_ns + partner_state[0];
        my_round_trip = m.round_trip_ns;
        my_uncertainty = m.round_trip_ns / 2 + static_cast<std::uint64_t>(partner_state[1]);
        my_local = m.local_ns;
      } else if (index < step && index + step < count) {
        answer(index + step, leaders);
        const std::int64_t state[2] = {my_offset, static_cast<std::int64_t>(my_uncertainty)};
        PMPI_Send(state, 2, MPI_INT64_T, index + step, kTag + 1, leaders);
      }
    }
    values[0] = my_offset;
    values[1] = static_cast<std::int64_t>(my_round_trip);
    values[2] = static_cast<std::int64_t>(my_uncertainty);
    values[3] = static_cast<std::int64_t>(my_local);
  }
  PMPI_Bcast(values, 4, MPI_INT64_T, 0, same_clock);

  result.offset_ns = values[0];
  result.round_trip_ns = static_cast<std::uint64_t>(values[1]);
  result.uncertainty_ns = static_cast<std::uint64_t>(values[2]);
  result.local_ns = static_cast<std::uint64_t>(values[3]);
  result.duration_ns = now_ns() - started;
  rocprof_mpi_record_clock_sample(result.local_ns, result.offset_ns, result.round_trip_ns,
                                  result.uncertainty_ns, 0);
  // The measurement's own cost, visible on the timeline as a call of the tool.
  rocprof_mpi_mpi_call_t call{};
  call.begin_ns = started;
  call.end_ns = now_ns();
  call.communicator = 1;
  call.peer = -1;
  call.tag = -1;
  rocprof_mpi_record_mpi_call("rocprof_mpi_clock_sync", &call);
  return result;
}

void release_clock_groups() noexcept {
  ClockGroups& groups = clock_groups();
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (groups.same_clock == MPI_COMM_NULL || finalized != 0) return;
  if (groups.leaders != MPI_COMM_NULL) PMPI_Comm_free(&groups.leaders);
  PMPI_Comm_free(&groups.same_clock);  // MPI_COMM_NULL again: a later measurement remakes it
}

}  // namespace rocprof::mpi
