// Runtime backends that bring domains of their own to the roctracer API (CUDA, through
// CUPTI). Each registers here when the library loads, so the API and the domain table reach
// it without the core knowing any backend (the core sits below lib/runtime).
#pragma once

#include <cstdint>
#include <string>

namespace rocprof::core {

struct DomainBackend {
  bool (*owns)(std::uint32_t domain) noexcept;
  // Op ids of one of its domains are 0 .. op_count - 1.
  std::uint32_t (*op_count)(std::uint32_t domain) noexcept;
  // nullptr when `op` is not one of the domain's.
  const char* (*op_name)(std::uint32_t domain, std::uint32_t op) noexcept;
  // The first time one of its domains is enabled; false, saying why, when it cannot trace.
  bool (*start)(std::string& why);
  // Before a pool is flushed: the backend hands over the records it still holds.
  void (*flush)() noexcept;
};

// From a static initialiser; `backend` lives as long as the process. At most
// kMaxDomainBackends; more are ignored.
inline constexpr int kMaxDomainBackends = 4;
void register_domain_backend(const DomainBackend& backend) noexcept;

// The backend that owns `domain`, nullptr when none does.
const DomainBackend* domain_backend(std::uint32_t domain) noexcept;

// Every registered backend's flush.
void flush_domain_backends() noexcept;

}  // namespace rocprof::core
