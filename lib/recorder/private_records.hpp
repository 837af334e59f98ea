// How the recorder's own record kinds travel through a roctracer pool: a 16-byte header
// (private domain, thread, text pointer) followed by the row, in 64-byte slots
// (rocprof-mpi/pool_write.h). Only the recorder writes and reads these.
#pragma once

#include <cstdint>

#include <rocprof-mpi/pool_write.h>

#include "lib/format/records.hpp"
#include "lib/runtime/hip/hip_args.hpp"

namespace rocprof::recorder {

enum PrivateDomain : std::uint32_t {
  kMpiCallDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 1,
  kCounterSampleDomain,
  kCounterSessionDomain,
  kApiArgsDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 5,  // decoded arguments of an API call
  kMpiStaticNameCallDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 7,  // the name pointer is static
  // The same with begin and end in TSC ticks, converted to ns by the sink.
  kMpiTickCallDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 12,
  // GPU code objects and their kernels (code_object_recording.hpp); the text is the URI, the
  // kernel's mangled name.
  kCodeObjectDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 13,
  kKernelSymbolDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 14,
  // CUDA API calls and GPU work (lib/runtime/cuda); their text is the kernel's mangled name.
  kCudaApiDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 10,
  kCudaActivityDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + 11,
  // Written even while the application has tracing stopped.
  kClockSampleDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + ROCPROF_MPI_ALWAYS_RECORDED + 4,
  kCommunicatorDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + ROCPROF_MPI_ALWAYS_RECORDED + 6,
  kUserMarkerDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + ROCPROF_MPI_ALWAYS_RECORDED + 8,
  // An annotation of the user marker written just after it (same thread); its text is the
  // name, then for a string value kAnnotationSeparator and the value.
  kUserAnnotationDomain = ROCPROF_MPI_PRIVATE_DOMAIN_BASE + ROCPROF_MPI_ALWAYS_RECORDED + 9,
};

inline constexpr char kAnnotationSeparator = '\x1f';

// kApiArgsDomain's row: a HIP call's decoded arguments (lib/runtime/hip/hip_args.hpp).
using runtime::hip::ApiArgsRow;

struct SlotHeader {
  std::uint32_t domain;
  std::uint32_t thread_id;
  const char* text;  // replaced by the pool with the address of its copy of the text
};
static_assert(sizeof(SlotHeader) == 16);

template <typename Row>
struct PrivateRecord {
  SlotHeader header;
  Row row;
  static constexpr std::uint32_t kSlots =
      (sizeof(SlotHeader) + sizeof(Row) + ROCPROF_MPI_SLOT_BYTES - 1) / ROCPROF_MPI_SLOT_BYTES;
};

// Slots a record of `domain` occupies: 1 for any but the private kinds below (roctracer's
// records, and kinds this build does not know, which a reader skips).
inline std::uint32_t private_slots(std::uint32_t domain) noexcept {
  switch (domain) {
    case kMpiCallDomain:
    case kMpiStaticNameCallDomain:
    case kMpiTickCallDomain:
      return PrivateRecord<format::MpiCallRow>::kSlots;
    case kCounterSampleDomain:
      return PrivateRecord<format::CounterSampleRow>::kSlots;
    case kCounterSessionDomain:
      return PrivateRecord<format::CounterSessionRow>::kSlots;
    case kClockSampleDomain:
      return PrivateRecord<format::ClockSampleRow>::kSlots;
    case kCommunicatorDomain:
      return PrivateRecord<format::CommunicatorRow>::kSlots;
    case kApiArgsDomain:
      return PrivateRecord<ApiArgsRow>::kSlots;
    case kUserMarkerDomain:
      return PrivateRecord<format::MarkerRow>::kSlots;
    case kCudaApiDomain:
      return PrivateRecord<format::ApiCallRow>::kSlots;
    case kCudaActivityDomain:
      return PrivateRecord<format::ActivityRow>::kSlots;
    case kUserAnnotationDomain:
      return PrivateRecord<format::AnnotationRow>::kSlots;
    case kCodeObjectDomain:
      return PrivateRecord<format::CodeObjectRow>::kSlots;
    case kKernelSymbolDomain:
      return PrivateRecord<format::KernelSymbolRow>::kSlots;
    default:
      return 1;
  }
}

static_assert(PrivateRecord<format::MpiCallRow>::kSlots <= ROCPROF_MPI_MAX_SLOTS);
static_assert(PrivateRecord<format::ApiCallRow>::kSlots <= ROCPROF_MPI_MAX_SLOTS);
static_assert(PrivateRecord<format::ActivityRow>::kSlots <= ROCPROF_MPI_MAX_SLOTS);

}  // namespace rocprof::recorder
