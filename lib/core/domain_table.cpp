#include "lib/core/domain_table.hpp"

#include <array>
#include <cstring>
#include <iterator>

#include <rocprof-mpi/hip_commands.h>
#include <roctracer/roctracer_ext.h>
#include <roctracer/roctracer_hip.h>
#include <roctracer/roctracer_hsa.h>
#include <roctracer/roctracer_roctx.h>

#include "lib/core/domain_backends.hpp"

namespace rocprof::core {
namespace {

// HSA API names in HSA_API_ID_* order, generated from the installed hsa_api_trace.h.
constexpr const char* kHsaApiNames[] = {
#define ROCPROF_HSA_API(name) #name,
#include "hsa_api_names.inc"
#undef ROCPROF_HSA_API
};
static_assert(std::size(kHsaApiNames) == HSA_API_ID_NUMBER,
              "generated HSA name list and enum disagree");

constexpr const char* kAsyncOpNames[] = {"DISPATCH", "COPY", "BARRIER", "RESERVED1"};
constexpr const char* kExtOpNames[] = {"MARK", "EXTERN_ID"};
constexpr const char* kRoctxNames[] = {"roctxMarkA", "roctxRangePushA", "roctxRangePop",
                                       "roctxRangeStartA", "roctxRangeStop"};
static_assert(std::size(kRoctxNames) == ROCTX_API_ID_NUMBER);
constexpr const char* kHsaEvtNames[] = {"ALLOCATE", "DEVICE",  "MEMCOPY",
                                        "SUBMIT",   "KSYMBOL", "CODEOBJ"};
static_assert(std::size(kHsaEvtNames) == HSA_EVT_ID_NUMBER);

constexpr std::array<const char*, ACTIVITY_DOMAIN_NUMBER> kDomainNames = {
    "HSA_API", "HSA_OPS", "HIP_OPS", "HIP_API", "KFD_API", "EXT_API", "ROCTX", "HSA_EVT"};

const char* hip_api_op_name(std::uint32_t op) noexcept {
  if (op < HIP_API_ID_FIRST || op > HIP_API_ID_LAST) return nullptr;
  const char* name = hip_api_name(op);
  // hip_api_name answers "unknown" for ids the installed runtime left unassigned.
  return std::strcmp(name, "unknown") == 0 ? nullptr : name;
}

template <std::size_t N>
const char* from_list(const char* const (&names)[N], std::uint32_t op) noexcept {
  return op < N ? names[op] : nullptr;
}

}  // namespace

bool is_known_domain(std::uint32_t domain) noexcept {
  return domain < ACTIVITY_DOMAIN_NUMBER || domain_backend(domain) != nullptr;
}

bool is_supported_domain(std::uint32_t domain) noexcept {
  return is_known_domain(domain) && domain != ACTIVITY_DOMAIN_KFD_API;
}

std::uint32_t op_count(std::uint32_t domain) noexcept {
  switch (domain) {
    case ACTIVITY_DOMAIN_HSA_API:
      return HSA_API_ID_NUMBER;
    case ACTIVITY_DOMAIN_HSA_OPS:
      return HSA_OP_ID_NUMBER;
    case ACTIVITY_DOMAIN_HIP_OPS:
      return HIP_OP_ID_NUMBER;
    case ACTIVITY_DOMAIN_HIP_API:
      return HIP_API_ID_LAST + 1;
    case ACTIVITY_DOMAIN_EXT_API:
      return std::size(kExtOpNames);
    case ACTIVITY_DOMAIN_ROCTX:
      return ROCTX_API_ID_NUMBER;
    case ACTIVITY_DOMAIN_HSA_EVT:
      return HSA_EVT_ID_NUMBER;
    default: {
      const DomainBackend* backend = domain_backend(domain);
      return backend != nullptr ? backend->op_count(domain) : 0;
    }
  }
}
static_assert(HIP_API_ID_LAST + 1 <= kMaxOpsPerDomain && HSA_API_ID_NUMBER <= kMaxOpsPerDomain,
              "raise kMaxOpsPerDomain for the installed runtime headers");

bool is_valid_op(std::uint32_t domain, std::uint32_t op) noexcept {
  return op_name(domain, op, 0) != nullptr;
}

const char* op_name(std::uint32_t domain, std::uint32_t op, std::uint32_t kind) noexcept {
  switch (domain) {
    case ACTIVITY_DOMAIN_HSA_API:
      return from_list(kHsaApiNames, op);
    case ACTIVITY_DOMAIN_HSA_OPS:
      return from_list(kAsyncOpNames, op);
    case ACTIVITY_DOMAIN_HIP_OPS:
      if (const char* command = rocprof_mpi_hip_command_name(kind); command != nullptr)
        return command;
      return op < HIP_OP_ID_NUMBER ? kAsyncOpNames[op] : nullptr;
    case ACTIVITY_DOMAIN_HIP_API:
      return hip_api_op_name(op);
    case ACTIVITY_DOMAIN_EXT_API:
      return from_list(kExtOpNames, op);
    case ACTIVITY_DOMAIN_ROCTX:
      return from_list(kRoctxNames, op);
    case ACTIVITY_DOMAIN_HSA_EVT:
      return from_list(kHsaEvtNames, op);
    default: {
      const DomainBackend* backend = domain_backend(domain);
      return backend != nullptr ? backend->op_name(domain, op) : nullptr;
    }
  }
}

std::optional<OpCode> op_code(std::uint32_t domain, const char* name) noexcept {
  if (name == nullptr) return std::nullopt;
  if (domain == ACTIVITY_DOMAIN_HIP_OPS) {
    if (const std::uint32_t kind = rocprof_mpi_hip_command_kind(name); kind != 0) {
      const bool is_copy = kind != ROCPROF_MPI_HIP_KERNEL_EXECUTION;
      return OpCode{is_copy ? HIP_OP_ID_COPY : HIP_OP_ID_DISPATCH, kind};
    }
  }
  const std::uint32_t count = op_count(domain);
  for (std::uint32_t op = 0; op < count; ++op) {
    const char* candidate = op_name(domain, op, 0);
    if (candidate != nullptr && std::strcmp(candidate, name) == 0) return OpCode{op, 0};
  }
  return std::nullopt;
}

const char* domain_name(std::uint32_t domain) noexcept {
  switch (domain) {
    case ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API:
      return "CUDA_RUNTIME_API";
    case ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API:
      return "CUDA_DRIVER_API";
    case ROCPROF_MPI_DOMAIN_CUDA_OPS:
      return "CUDA_OPS";
    default:
      return domain < ACTIVITY_DOMAIN_NUMBER ? kDomainNames[domain] : "unknown";
  }
}

}  // namespace rocprof::core
