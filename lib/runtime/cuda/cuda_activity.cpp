#include "lib/runtime/cuda/cuda_activity.hpp"

#include <climits>
#include <cstring>

#include <rocprof-mpi/cuda_domains.h>

namespace rocprof::runtime::cuda {
namespace {

// CUPTI's device or context id of graph work that starts on the host.
constexpr std::uint32_t kOnHost = INT_MAX;

format::ActivityRow blank_row(std::uint32_t op) noexcept {
  format::ActivityRow row;
  std::memset(&row, 0, sizeof row);
  row.domain = ROCPROF_MPI_DOMAIN_CUDA_OPS;
  row.op = op;
  return row;
}

// The fields every record of GPU work has: its times, its launch and where it ran.
template <typename Record>
format::ActivityRow device_row(std::uint32_t op, const Record& record) noexcept {
  format::ActivityRow row = blank_row(op);
  row.begin_ns = record.start;
  row.end_ns = record.end;
  row.correlation_id = record.correlationId;
  row.device_id = static_cast<std::int32_t>(record.deviceId);
  row.queue_id = queue_of(record.deviceId, record.streamId);
  row.context_id = record.contextId;
  return row;
}

format::MemoryKind memory_kind(unsigned cupti_kind) noexcept {
  using format::MemoryKind;
  switch (cupti_kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
      return MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
      return MemoryKind::kArray;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
      return MemoryKind::kManaged;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return MemoryKind::kDeviceStatic;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return MemoryKind::kManagedStatic;
    default:
      return MemoryKind::kUnknown;
  }
}

}  // namespace

std::uint64_t queue_of(std::uint32_t device, std::uint32_t stream) noexcept {
  return (std::uint64_t{device} << 32) | stream;
}

bool convert_activity(const CUpti_Activity& record, ConvertedActivity& out) noexcept {
  out.kernel_name = nullptr;
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto& kernel = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
      out.row = device_row(ROCPROF_MPI_CUDA_OP_KERNEL, kernel);
      out.kernel_name = kernel.name;
      const std::int32_t grid[3] = {kernel.gridX, kernel.gridY, kernel.gridZ};
      const std::int32_t block[3] = {kernel.blockX, kernel.blockY, kernel.blockZ};
      for (int axis = 0; axis < 3; ++axis) {
        out.row.grid[axis] = static_cast<std::uint32_t>(grid[axis]);
        out.row.block[axis] = static_cast<std::uint32_t>(block[axis]);
      }
      out.row.shared_bytes =
          static_cast<std::uint32_t>(kernel.staticSharedMemory + kernel.dynamicSharedMemory);
      out.row.registers = kernel.registersPerThread;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& copy = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
      out.row = device_row(ROCPROF_MPI_CUDA_OP_MEMCPY, copy);
      out.row.bytes = copy.bytes;
      out.row.kind = copy.copyKind;
      out.row.src_kind = memory_kind(copy.srcKind);
      out.row.dst_kind = memory_kind(copy.dstKind);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& set = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
      out.row = device_row(ROCPROF_MPI_CUDA_OP_MEMSET, set);
      out.row.bytes = set.bytes;
      out.row.dst_kind = memory_kind(set.memoryKind);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      // A host wait: no device in the record; the stream (if any) names what was waited for.
      const auto& wait = reinterpret_cast<const CUpti_ActivitySynchronization2&>(record);
      out.row = blank_row(ROCPROF_MPI_CUDA_OP_SYNCHRONIZATION);
      out.row.begin_ns = wait.start;
      out.row.end_ns = wait.end;
      out.row.correlation_id = wait.correlationId;
      out.row.device_id = -1;
      out.row.queue_id = wait.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : wait.streamId;
      out.row.kind = static_cast<std::uint32_t>(wait.type);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      const auto& graph = reinterpret_cast<const CUpti_ActivityGraphTrace2&>(record);
      out.row = device_row(ROCPROF_MPI_CUDA_OP_GRAPH_LAUNCH, graph);
      out.row.kind = graph.graphId;
      // A graph whose first node runs on the host names no device there: take the last's.
      if (graph.deviceId == kOnHost) {
        out.row.device_id = static_cast<std::int32_t>(graph.endDeviceId);
        out.row.queue_id = queue_of(graph.endDeviceId, graph.streamId);
      }
      if (graph.contextId == kOnHost) out.row.context_id = graph.endContextId;
      return true;
    }
    default:
      return false;
  }
}

const char* cuda_op_name(std::uint32_t op) noexcept {
  static constexpr const char* kNames[ROCPROF_MPI_CUDA_OP_NUMBER] = {
      "KERNEL", "MEMCPY", "MEMSET", "SYNCHRONIZATION", "GRAPH_LAUNCH"};
  return op < ROCPROF_MPI_CUDA_OP_NUMBER ? kNames[op] : nullptr;
}

}  // namespace rocprof::runtime::cuda
