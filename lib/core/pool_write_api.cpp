// extern "C" shim of rocprof-mpi/pool_write.h: private record kinds into a pool.
#include <cstring>

#include <rocprof-mpi/pool_write.h>

#include "lib/core/pool.hpp"
#include "lib/core/thread_state.hpp"
#include "lib/core/tracer_state.hpp"

using namespace rocprof::core;

static_assert(ROCPROF_MPI_SLOT_BYTES == sizeof(activity_record_t));

extern "C" ROCTRACER_API roctracer_status_t rocprof_mpi_pool_write(roctracer_pool_t* handle,
                                                                   const void* slots,
                                                                   uint32_t slot_count,
                                                                   const char* text) {
  if (handle == nullptr || slots == nullptr || slot_count == 0 ||
      slot_count > ROCPROF_MPI_MAX_SLOTS)
    return ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT;
  std::uint32_t domain = 0;
  std::memcpy(&domain, slots, sizeof domain);
  if (domain < ROCPROF_MPI_PRIVATE_DOMAIN_BASE) return ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT;
  ThreadState& state = this_thread_state();
  if ((!tracing_running() || state.suspended) && (domain & ROCPROF_MPI_ALWAYS_RECORDED) == 0)
    return ROCTRACER_STATUS_ERROR;
  if (state.is_pool_thread) return ROCTRACER_STATUS_ERROR;
  // The handle is the pool itself; the caller guarantees it is open.
  auto* pool = reinterpret_cast<Pool*>(handle);
  const std::size_t length = text == nullptr ? 0 : strnlen(text, Pool::kMaxMessageBytes - 1);
  const std::size_t text_bytes = text == nullptr ? 0 : length + 1;
  roctracer_status_t status = ROCTRACER_STATUS_ERROR;
  enter_hot_path(state);
  Pool::Reservation space{};
  if (pool->reserve(state, slot_count, text_bytes, space)) {
    std::memcpy(space.records, slots, std::size_t{slot_count} * ROCPROF_MPI_SLOT_BYTES);
    if (text != nullptr) {
      std::memcpy(space.message, text, length);
      space.message[length] = '\0';
      const char* copy = space.message;
      std::memcpy(reinterpret_cast<char*>(space.records) + 8, &copy, sizeof copy);
    }
    Pool::publish(space);
    status = ROCTRACER_STATUS_SUCCESS;
  }
  leave_hot_path(state);
  return status;
}

extern "C" ROCTRACER_API roctracer_status_t rocprof_mpi_pool_reserve(
    roctracer_pool_t* handle, uint32_t slot_count, rocprof_mpi_pool_reservation_t* reservation) {
  if (handle == nullptr || reservation == nullptr || slot_count == 0 ||
      slot_count > ROCPROF_MPI_MAX_SLOTS)
    return ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT;
  if (!tracing_running()) return ROCTRACER_STATUS_ERROR;
  ThreadState& state = this_thread_state();
  if (state.is_pool_thread || state.suspended) return ROCTRACER_STATUS_ERROR;
  auto* pool = reinterpret_cast<Pool*>(handle);
  // Left on success: rocprof_mpi_pool_commit leaves the hot path.
  enter_hot_path(state);
  Pool::Reservation space{};
  if (!pool->reserve(state, slot_count, 0, space)) {
    leave_hot_path(state);
    return ROCTRACER_STATUS_ERROR;
  }
  reservation->slots = space.records;
  reservation->internal = space.chunk;
  return ROCTRACER_STATUS_SUCCESS;
}

extern "C" ROCTRACER_API void rocprof_mpi_pool_commit(
    const rocprof_mpi_pool_reservation_t* reservation) {
  if (reservation == nullptr || reservation->internal == nullptr) return;
  Pool::Reservation space{};
  space.chunk = static_cast<Chunk*>(reservation->internal);
  Pool::publish(space);
  leave_hot_path(this_thread_state());
}

extern "C" ROCTRACER_API void rocprof_mpi_set_thread_tracing(int on) {
  this_thread_state().suspended = on == 0;
}

extern "C" ROCTRACER_API roctracer_status_t
rocprof_mpi_pool_stamp_markers_in_ticks(roctracer_pool_t* handle) {
  if (handle == nullptr) return ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT;
  reinterpret_cast<Pool*>(handle)->stamp_markers_in_ticks();
  return ROCTRACER_STATUS_SUCCESS;
}
