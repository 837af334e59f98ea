#include "lib/recorder/cuda_binding.hpp"

#include <rocprof-mpi/cuda_recording.h>

#include <array>

#include "lib/recorder/private_write.hpp"

namespace rocprof::recorder {
namespace {

void record_api_call(const void* call, const char* symbol) {
  write_private_into<format::ApiCallRow>(
      recording_pool(), kCudaApiDomain, symbol,
      [&](format::ApiCallRow& row) { row = *static_cast<const format::ApiCallRow*>(call); });
}

void record_activity(const void* work, const char* kernel) {
  write_private_into<format::ActivityRow>(
      recording_pool(), kCudaActivityDomain, kernel,
      [&](format::ActivityRow& row) { row = *static_cast<const format::ActivityRow*>(work); });
}

constexpr rocprof_mpi_cuda_sink_t kSink{record_api_call, record_activity};

}  // namespace

bool start_cuda_recording(std::string& error) {
  std::array<char, 512> why{};
  if (rocprof_mpi_cuda_record(&kSink, why.data(), why.size()) == ROCTRACER_STATUS_SUCCESS)
    return true;
  error = why.data();
  return false;
}

void flush_cuda_recording(bool completed_only) noexcept {
  if (completed_only)
    rocprof_mpi_cuda_flush_completed();
  else
    rocprof_mpi_cuda_flush();
}

std::uint64_t cuda_records_dropped() noexcept { return rocprof_mpi_cuda_dropped_records(); }

}  // namespace rocprof::recorder
