// What each tracing domain contains: how many ops, their names, and which are traceable.
#pragma once

#include <cstdint>
#include <optional>

#include <rocprof-mpi/cuda_domains.h>
#include <roctracer/roctracer.h>

namespace rocprof::core {

// Largest op count of any domain (the CUDA driver API's); sizes the per-op tables.
inline constexpr std::uint32_t kMaxOpsPerDomain = 1024;

// Domains the per-op tables hold: roctracer's, then rocprof-mpi's CUDA domains
// (rocprof-mpi/cuda_domains.h), whose ids follow ACTIVITY_DOMAIN_NUMBER.
inline constexpr std::uint32_t kDomainSlots = ROCPROF_MPI_DOMAIN_CUDA_OPS + 1;

// True for a value inside activity_domain_t (KFD included), and for the CUDA domains where
// this library was built with CUDA's headers.
bool is_known_domain(std::uint32_t domain) noexcept;

// True for domains this implementation can trace (every known one but KFD_API).
// True for the CUDA domains, whose ops (and thus tracing) need CUPTI at run time.
bool is_supported_domain(std::uint32_t domain) noexcept;

// Number of op ids of a supported domain (ids are 0 .. count-1); 0 for others.
std::uint32_t op_count(std::uint32_t domain) noexcept;

// True when `op` names an operation of `domain` (gaps in the HIP id space are false).
bool is_valid_op(std::uint32_t domain, std::uint32_t op) noexcept;

// Static name of an op, or nullptr. For HIP_OPS, a non-zero `kind` naming a HIP command
// kind returns the command's name.
const char* op_name(std::uint32_t domain, std::uint32_t op, std::uint32_t kind) noexcept;

// Reverse lookup by name; kind is 0 except for HIP command-kind names.
struct OpCode {
  std::uint32_t op;
  std::uint32_t kind;
};
std::optional<OpCode> op_code(std::uint32_t domain, const char* name) noexcept;

// Human name of a domain for messages ("HIP_API").
const char* domain_name(std::uint32_t domain) noexcept;

}  // namespace rocprof::core
