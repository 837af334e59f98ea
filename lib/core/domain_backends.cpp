#include "lib/core/domain_backends.hpp"

#include <atomic>

namespace rocprof::core {
namespace {

// Filled during static initialisation, read afterwards: no lock needed, the count is
// published last.
constinit const DomainBackend* g_backends[kMaxDomainBackends] = {};
constinit std::atomic<int> g_count{0};

}  // namespace

void register_domain_backend(const DomainBackend& backend) noexcept {
  const int count = g_count.load(std::memory_order_relaxed);
  if (count == kMaxDomainBackends) return;
  g_backends[count] = &backend;
  g_count.store(count + 1, std::memory_order_release);
}

const DomainBackend* domain_backend(std::uint32_t domain) noexcept {
  const int count = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i)
    if (g_backends[i]->owns(domain)) return g_backends[i];
  return nullptr;
}

void flush_domain_backends() noexcept {
  const int count = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) g_backends[i]->flush();
}

}  // namespace rocprof::core
