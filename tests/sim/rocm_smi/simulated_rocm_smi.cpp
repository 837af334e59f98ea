// A simulated ROCm SMI (librocm_smi64.so.1), built against Debian's real rocm_smi.h so that
// its functions have the real library's signatures: two simulated MI250X GCDs whose readings
// follow a busy percentage the test sets per device (SIM_ROCM_SMI_BUSY_<device>, 0 to 100).
// Only the functions rocprof-mpi's ROCm SMI backend reads are here. No AMD GPU exists on the
// machines that run the tests; this stands in for one.
#include <rocm_smi/rocm_smi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr uint32_t kDevices = 2;
bool started = false;

uint32_t busy_of(uint32_t device) {
  const std::string name = "SIM_ROCM_SMI_BUSY_" + std::to_string(device);
  const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
  const long percent = value == nullptr ? 0 : std::strtol(value, nullptr, 10);
  return static_cast<uint32_t>(percent < 0 ? 0 : percent > 100 ? 100 : percent);
}

rsmi_status_t check(uint32_t device) {
  if (!started) return RSMI_STATUS_INIT_ERROR;
  return device < kDevices ? RSMI_STATUS_SUCCESS : RSMI_STATUS_INVALID_ARGS;
}

}  // namespace

extern "C" {

rsmi_status_t rsmi_init(uint64_t /*init_flags*/) {
  started = true;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_shut_down() {
  started = false;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t* num_devices) {
  if (!started) return RSMI_STATUS_INIT_ERROR;
  *num_devices = kDevices;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t dv_ind, char* name, size_t len) {
  if (const rsmi_status_t status = check(dv_ind); status != RSMI_STATUS_SUCCESS) return status;
  std::snprintf(name, len, "Simulated AMD Instinct MI250X GCD %u", dv_ind);
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t* busy_percent) {
  if (const rsmi_status_t status = check(dv_ind); status != RSMI_STATUS_SUCCESS) return status;
  *busy_percent = busy_of(dv_ind);
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv_ind, uint32_t* busy_percent) {
  if (const rsmi_status_t status = check(dv_ind); status != RSMI_STATUS_SUCCESS) return status;
  *busy_percent = busy_of(dv_ind) / 2;
  return RSMI_STATUS_SUCCESS;
}

// The system clock steps up with the load: 500, 1200, 1700 MHz; the memory clock is 1600 MHz.
rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv_ind, rsmi_clk_type_t clk_type,
                                        rsmi_frequencies_t* f) {
  if (const rsmi_status_t status = check(dv_ind); status != RSMI_STATUS_SUCCESS) return status;
  std::memset(f, 0, sizeof *f);
  if (clk_type == RSMI_CLK_TYPE_MEM) {
    f->num_supported = 1;
    f->frequency[0] = 1600000000ULL;
    return RSMI_STATUS_SUCCESS;
  }
  if (clk_type != RSMI_CLK_TYPE_SYS) return RSMI_STATUS_NOT_SUPPORTED;
  f->num_supported = 3;
  f->frequency[0] = 500000000ULL;
  f->frequency[1] = 1200000000ULL;
  f->frequency[2] = 1700000000ULL;
  const uint32_t busy = busy_of(dv_ind);
  f->current = busy == 0 ? 0 : busy < 50 ? 1 : 2;
  return RSMI_STATUS_SUCCESS;
}

// 100 W idle, 3 W more per busy percent.
rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv_ind, uint32_t /*sensor_ind*/, uint64_t* power) {
  if (const rsmi_status_t status = check(dv_ind); status != RSMI_STATUS_SUCCESS) return status;
  *power = (100ULL + 3ULL * busy_of(dv_ind)) * 1000000ULL;
  return RSMI_STATUS_SUCCESS;
}

// 40 C idle, one degree more per 5 busy percent.
rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv_ind, uint32_t sensor_type,
                                       rsmi_temperature_metric_t metric, int64_t* temperature) {
  if (const rsmi_status_t status = check(dv_ind); status != RSMI_STATUS_SUCCESS) return status;
  if (sensor_type != RSMI_TEMP_TYPE_EDGE || metric != RSMI_TEMP_CURRENT)
    return RSMI_STATUS_NOT_SUPPORTED;
  *temperature = (40 + static_cast<int64_t>(busy_of(dv_ind)) / 5) * 1000;
  return RSMI_STATUS_SUCCESS;
}

// 1 GiB of VRAM in use on device 0, 2 GiB on device 1.
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type,
                                        uint64_t* used) {
  if (const rsmi_status_t status = check(dv_ind); status != RSMI_STATUS_SUCCESS) return status;
  if (mem_type != RSMI_MEM_TYPE_VRAM) return RSMI_STATUS_NOT_SUPPORTED;
  *used = (uint64_t{dv_ind} + 1) << 30;
  return RSMI_STATUS_SUCCESS;
}

}  // extern "C"
