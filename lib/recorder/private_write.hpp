// Writes one private record into the recorder's pool from the calling thread (the hot path
// of the recorder API and of the HIP argument callback).
#pragma once

#include <cstring>
#include <utility>

#include <rocprof-mpi/pool_write.h>

#include "lib/recorder/private_records.hpp"
#include "lib/recorder/recorder.hpp"

namespace rocprof::recorder {

// `fill(row)` completes the zeroed row; `text` (may be NULL) is copied next to it. 0 when
// written, -1 when not recording or dropped.
// `static_text`, if given, travels as a pointer instead (it must outlive the recorder).
// Into `pool` (nullptr: not recording).
template <typename Row, typename Fill>
int write_private_into(roctracer_pool_t* pool, std::uint32_t domain, const char* text, Fill&& fill,
                       const char* static_text = nullptr) noexcept {
  if (pool == nullptr) return -1;
  // Whole slots, so the copy into the pool never reads past the object.
  union {
    PrivateRecord<Row> record;
    unsigned char bytes[PrivateRecord<Row>::kSlots * ROCPROF_MPI_SLOT_BYTES];
  } slots;
  std::memset(&slots, 0, sizeof slots);
  slots.record.header.domain = domain;
  slots.record.header.thread_id = current_thread_id();
  slots.record.header.text = static_text;
  fill(slots.record.row);
  return rocprof_mpi_pool_write(pool, slots.bytes, PrivateRecord<Row>::kSlots, text) ==
                 ROCTRACER_STATUS_SUCCESS
             ? 0
             : -1;
}

// Into the pool of the MPI and counter records (active_pool()).
template <typename Row, typename Fill>
int write_private(std::uint32_t domain, const char* text, Fill&& fill,
                  const char* static_text = nullptr) noexcept {
  return write_private_into<Row>(active_pool(), domain, text, std::forward<Fill>(fill),
                                 static_text);
}

}  // namespace rocprof::recorder
