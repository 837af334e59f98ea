// Communicator bookkeeping: a job-wide id for every communicator and the translation of its
// ranks to world ranks.
//
// Ids need no communication: a communicator's id is a hash of its members' world ranks (both
// groups of an intercommunicator) and of how many communicators with exactly those members
// this process has seen created before. Every member takes part in each such creation, in
// the same order (blocking collective creation cannot be reordered without deadlock), so all
// members compute the same id. MPI_COMM_WORLD is 1.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace rocprof::mpi {

inline constexpr std::uint64_t kWorldCommunicatorId = 1;

// Job-wide id of `comm` (0 for MPI_COMM_NULL); registers it lazily if it was not seen.
std::uint64_t communicator_id(MPI_Comm comm) noexcept;

// World rank of `rank` in `comm` (the remote group of an intercommunicator), -1 for
// MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT or a process outside MPI_COMM_WORLD.
std::int32_t world_rank(MPI_Comm comm, int rank) noexcept;

// Number of processes a collective on `comm` exchanges with (remote size for
// intercommunicators).
int exchange_size(MPI_Comm comm) noexcept;

// A communicator was just created by `creator` from `parent`: give it its id in creation
// order and record it (communicators table). Call on every process that took part, with
// MPI_COMM_NULL where it got none (that still counts the creation... only for members).
void communicator_created(MPI_Comm parent, MPI_Comm created, const char* creator) noexcept;

// Before MPI_Comm_free / MPI_Comm_disconnect: its handle may be reused afterwards.
void communicator_freed(MPI_Comm comm) noexcept;

// MPI_Init done: world and self are known.
void communicators_start() noexcept;

}  // namespace rocprof::mpi
