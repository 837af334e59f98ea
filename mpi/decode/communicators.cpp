#include "mpi/decode/communicators.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include <rocprof-mpi/recorder.h>

#include "mpi/runtime/mpi_state.hpp"

namespace rocprof::mpi {
namespace {

struct CommInfo {
  std::uint64_t id = 0;
  std::vector<std::int32_t> peers_world;  // world rank of each rank point-to-point addresses
  int exchange_size = 0;
};

struct Registry {
  std::shared_mutex mutex;
  std::unordered_map<MPI_Comm, std::shared_ptr<const CommInfo>> by_handle;
  std::unordered_map<std::uint64_t, std::uint64_t> creations_by_members;  // member hash -> count
};

Registry& registry() {
  static auto* instance = new Registry();  // used until exit
  return *instance;
}

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  // FNV-1a over the 8 bytes of value.
  for (int i = 0; i < 8; ++i) {
    hash ^= (value >> (8 * i)) & 0xff;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::vector<std::int32_t> world_ranks_of(MPI_Group group) {
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  std::vector<int> world(static_cast<std::size_t>(size), MPI_UNDEFINED);
  MPI_Group world_group = MPI_GROUP_NULL;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  if (size > 0) PMPI_Group_translate_ranks(group, size, ranks.data(), world_group, world.data());
  PMPI_Group_free(&world_group);
  std::vector<std::int32_t> result(world.begin(), world.end());
  for (auto& rank : result)
    if (rank == MPI_UNDEFINED) rank = -1;
  return result;
}

// Members (local group, then remote group of an intercommunicator) and what p2p ranks mean.
struct Membership {
  std::vector<std::int32_t> local;
  std::vector<std::int32_t> remote;
  bool inter = false;
};

Membership membership(MPI_Comm comm) {
  Membership m;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  m.inter = inter != 0;
  MPI_Group group = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  m.local = world_ranks_of(group);
  PMPI_Group_free(&group);
  if (m.inter) {
    PMPI_Comm_remote_group(comm, &group);
    m.remote = world_ranks_of(group);
    PMPI_Group_free(&group);
  }
  return m;
}

std::uint64_t member_hash(const Membership& m) {
  std::vector<std::int32_t> a = m.local;
  std::vector<std::int32_t> b = m.remote;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (m.inter && b < a) std::swap(a, b);  // both sides of an intercommunicator agree
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  hash = mix(hash, a.size());
  for (std::int32_t rank : a) hash = mix(hash, static_cast<std::uint64_t>(rank));
  hash = mix(hash, b.size());
  for (std::int32_t rank : b) hash = mix(hash, static_cast<std::uint64_t>(rank));
  return hash;
}

std::shared_ptr<const CommInfo> make_info(MPI_Comm comm, std::uint64_t id, const Membership& m) {
  auto info = std::make_shared<CommInfo>();
  info->id = id;
  info->peers_world = m.inter ? m.remote : m.local;
  info->exchange_size = static_cast<int>(info->peers_world.size());
  (void)comm;
  return info;
}

std::shared_ptr<const CommInfo> find(MPI_Comm comm) {
  Registry& r = registry();
  const std::shared_lock lock(r.mutex);
  const auto found = r.by_handle.find(comm);
  return found == r.by_handle.end() ? nullptr : found->second;
}

std::shared_ptr<const CommInfo> info_of(MPI_Comm comm) {
  if (auto info = find(comm)) return info;
  // Not created through a wrapper (or before MPI_Init): an id from its members alone, salted
  // so it cannot equal an id given in creation order.
  const Membership m = membership(comm);
  const std::uint64_t id = mix(member_hash(m), 0x5a17ULL) | 2;
  auto info = make_info(comm, id, m);
  Registry& r = registry();
  const std::unique_lock lock(r.mutex);
  return r.by_handle.emplace(comm, info).first->second;
}

void record(std::uint64_t id, std::uint64_t parent, const Membership& m, MPI_Comm comm,
            const char* creator) {
  int rank = -1;
  PMPI_Comm_rank(comm, &rank);
  rocprof_mpi_communicator_t row{};
  row.created_ns = now_ns();
  row.communicator = id;
  row.parent = parent;
  row.size = static_cast<std::int32_t>(m.local.size());
  row.remote_size = m.inter ? static_cast<std::int32_t>(m.remote.size()) : 0;
  row.rank = rank;
  rocprof_mpi_record_communicator(creator, &row);
}

}  // namespace

std::uint64_t communicator_id(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_NULL) return 0;
  if (comm == MPI_COMM_WORLD) return kWorldCommunicatorId;
  try {
    return info_of(comm)->id;
  } catch (...) {
    return 0;
  }
}

std::int32_t world_rank(MPI_Comm comm, int rank) noexcept {
  if (rank < 0) return -1;  // MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT are negative
  if (comm == MPI_COMM_WORLD) return rank;
  try {
    const auto info = info_of(comm);
    return static_cast<std::size_t>(rank) < info->peers_world.size()
               ? info->peers_world[static_cast<std::size_t>(rank)]
               : -1;
  } catch (...) {
    return -1;
  }
}

int exchange_size(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_NULL) return 0;
  if (comm == MPI_COMM_WORLD) return mpi_state().world_size.load(std::memory_order_relaxed);
  try {
    return info_of(comm)->exchange_size;
  } catch (...) {
    return 0;
  }
}

void communicator_created(MPI_Comm parent, MPI_Comm created, const char* creator) noexcept {
  if (created == MPI_COMM_NULL) return;
  try {
    const Membership m = membership(created);
    const std::uint64_t hash = member_hash(m);
    Registry& r = registry();
    std::uint64_t id = 0;
    {
      const std::unique_lock lock(r.mutex);
      const std::uint64_t order = r.creations_by_members[hash]++;
      id = mix(hash, order) & ~std::uint64_t{2};  // bit 1 clear: never a lazily made id
      if (id <= kWorldCommunicatorId) id += 4;
      r.by_handle[created] = make_info(created, id, m);
    }
    record(id, communicator_id(parent), m, created, creator);
  } catch (...) {
    // Bookkeeping must never fail the application's call.
  }
}

void communicator_freed(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF) return;
  Registry& r = registry();
  const std::unique_lock lock(r.mutex);
  r.by_handle.erase(comm);
}

void communicators_start() noexcept {
  try {
    const Membership world = membership(MPI_COMM_WORLD);
    record(kWorldCommunicatorId, 0, world, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    communicator_created(MPI_COMM_NULL, MPI_COMM_SELF, "MPI_COMM_SELF");
  } catch (...) {
  }
}

}  // namespace rocprof::mpi
