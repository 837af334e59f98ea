// The reference of the CUDA tracing-overhead benchmark: a minimal CUPTI client, preloaded
// into the program. It does what rocprof-mpi's CUDA backend asks of CUPTI (runtime and driver
// API callbacks, kernel, copy, memset and synchronisation activity) and nothing more: each
// callback reads the clock, each activity record is counted. What rocprof-mpi costs beyond
// this is the cost of keeping the records.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

std::atomic<unsigned long long> g_records{0};
std::atomic<unsigned long long> g_calls{0};

unsigned long long now() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<unsigned long long>(ts.tv_sec) * 1000000000ULL + ts.tv_nsec;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto& info = *static_cast<const CUpti_CallbackData*>(data);
  if (info.callbackSite == CUPTI_API_ENTER)
    *info.correlationData = now();
  else if (now() >= *info.correlationData)
    g_calls.fetch_add(1, std::memory_order_relaxed);
}

void CUPTIAPI on_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = std::size_t{8} << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI on_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    g_records.fetch_add(1, std::memory_order_relaxed);
  std::free(buffer);
}

void finish() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "cupti_minimal: %llu API calls, %llu activity records\n", g_calls.load(),
               g_records.load());
}

__attribute__((constructor)) void start() {
  CUpti_SubscriberHandle subscriber = nullptr;
  cuptiActivityRegisterTimestampCallback([]() -> uint64_t { return now(); });
  cuptiActivityRegisterCallbacks(on_requested, on_completed);
  cuptiSubscribe(&subscriber, on_callback, nullptr);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION})
    cuptiActivityEnable(kind);
  std::atexit(finish);
}

}  // namespace
