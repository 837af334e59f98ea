// extern "C" shims of rocprof-mpi/recorder.h, and the library constructor that starts
// recording when the library is loaded (preloaded by rocprof-mpi, or linked).
#include <rocprof-mpi/recorder.h>

#include "lib/recorder/private_write.hpp"
#include "lib/recorder/recorder.hpp"

using namespace rocprof::recorder;
using namespace rocprof::format;

namespace {

__attribute__((constructor)) void start_at_load() { start_recording(); }

// thread_id and function are the recorder's to fill.
void fill_mpi_row(MpiCallRow& row, const rocprof_mpi_mpi_call_t& call) noexcept {
  row.begin_ns = call.begin_ns;
  row.end_ns = call.end_ns;
  row.external_id = call.external_id;
  row.communicator = call.communicator;
  row.request = call.request;
  row.bytes_sent = call.bytes_sent;
  row.bytes_received = call.bytes_received;
  row.peer = call.peer;
  row.tag = call.tag;
}

}  // namespace

extern "C" {

int rocprof_mpi_recorder_active(void) { return active_pool() != nullptr ? 1 : 0; }

int rocprof_mpi_record_mpi_call(const char* function, const rocprof_mpi_mpi_call_t* call) {
  if (call == nullptr) return -1;
  return write_private<MpiCallRow>(kMpiCallDomain, function,
                                   [&](MpiCallRow& row) { fill_mpi_row(row, *call); });
}

}  // extern "C"

namespace {

// The MPI layer's path, once per MPI call: the record is written in place in the pool.
int record_static_mpi_call(PrivateDomain domain, const char* function,
                           const rocprof_mpi_mpi_call_t* call) noexcept {
  roctracer_pool_t* pool = active_pool();
  if (call == nullptr || pool == nullptr) return -1;
  rocprof_mpi_pool_reservation_t space{};
  if (rocprof_mpi_pool_reserve(pool, PrivateRecord<MpiCallRow>::kSlots, &space) !=
      ROCTRACER_STATUS_SUCCESS)
    return -1;
  auto& record = *static_cast<PrivateRecord<MpiCallRow>*>(space.slots);
  record.header.domain = domain;
  record.header.thread_id = current_thread_id();
  record.header.text = function;
  fill_mpi_row(record.row, *call);
  rocprof_mpi_pool_commit(&space);
  return 0;
}

}  // namespace

extern "C" {

int rocprof_mpi_record_mpi_call_static_name(const char* function,
                                            const rocprof_mpi_mpi_call_t* call) {
  return record_static_mpi_call(kMpiStaticNameCallDomain, function, call);
}

int rocprof_mpi_mpi_call_ticks(void) { return recording_in_ticks() ? 1 : 0; }

int rocprof_mpi_record_mpi_call_ticks(const char* function, const rocprof_mpi_mpi_call_t* call) {
  return record_static_mpi_call(kMpiTickCallDomain, function, call);
}

int rocprof_mpi_record_communicator(const char* creator,
                                    const rocprof_mpi_communicator_t* communicator) {
  if (communicator == nullptr) return -1;
  return write_private<CommunicatorRow>(kCommunicatorDomain, creator, [&](CommunicatorRow& row) {
    row.created_ns = communicator->created_ns;
    row.communicator = communicator->communicator;
    row.parent = communicator->parent;
    row.size = communicator->size;
    row.remote_size = communicator->remote_size;
    row.rank = communicator->rank;
  });
}

int rocprof_mpi_record_counter_sample(uint32_t session, const char* counter, uint64_t timestamp_ns,
                                      double value) {
  return write_private<CounterSampleRow>(kCounterSampleDomain, counter, [&](CounterSampleRow& row) {
    row.session = session;
    row.timestamp_ns = timestamp_ns;
    row.value = value;
  });
}

int rocprof_mpi_record_counter_session(uint32_t session, int32_t device_id, const char* name,
                                       uint64_t start_ns) {
  return write_private<CounterSessionRow>(kCounterSessionDomain, name, [&](CounterSessionRow& row) {
    row.session = session;
    row.device_id = device_id;
    row.start_ns = start_ns;
  });
}

int rocprof_mpi_record_clock_sample(uint64_t local_ns, int64_t offset_ns, uint64_t round_trip_ns,
                                    uint64_t uncertainty_ns, int32_t reference_rank) {
  return write_private<ClockSampleRow>(kClockSampleDomain, nullptr, [&](ClockSampleRow& row) {
    row.local_ns = local_ns;
    row.offset_ns = offset_ns;
    row.round_trip_ns = round_trip_ns;
    row.uncertainty_ns = uncertainty_ns;
    row.reference_rank = reference_rank;
  });
}

uint64_t rocprof_mpi_counter_devices(void) { return counter_devices(); }

void rocprof_mpi_sample_counter_devices(uint64_t devices) { sample_counter_devices(devices); }

void rocprof_mpi_set_identity(int32_t rank, int32_t size) { set_identity(rank, size); }

void rocprof_mpi_recorder_flush(void) { flush_now(); }

}  // extern "C"
