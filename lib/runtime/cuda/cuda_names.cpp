#include "lib/runtime/cuda/cuda_names.hpp"

#include <cupti.h>

#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include <rocprof-mpi/cuda_domains.h>

#include "lib/runtime/cuda/cuda_activity.hpp"
#include "lib/runtime/cuda/cupti_library.hpp"

namespace rocprof::runtime::cuda {
namespace {

// Names without their suffix, made once per op and kept for the process's life.
class NameTable {
 public:
  const char* find(std::uint32_t domain, std::uint32_t op) {
    const std::uint64_t key = (std::uint64_t{domain} << 32) | op;
    const std::lock_guard lock(mutex_);
    if (const auto found = names_.find(key); found != names_.end()) return found->second;
    const char* name = lookup(domain, op);
    names_.emplace(key, name);
    return name;
  }

 private:
  const char* lookup(std::uint32_t domain, std::uint32_t op) {
    const CUpti_CallbackDomain cupti_domain = domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API
                                                  ? CUPTI_CB_DOMAIN_RUNTIME_API
                                                  : CUPTI_CB_DOMAIN_DRIVER_API;
    std::string error;
    const CuptiLibrary* cupti = load_cupti(error);
    const char* raw = nullptr;
    if (cupti == nullptr || cupti->callback_name(cupti_domain, op, &raw) != CUPTI_SUCCESS ||
        raw == nullptr || std::strcmp(raw, "INVALID") == 0)
      return nullptr;
    return texts_.emplace_back(without_version_suffix(raw)).c_str();
  }

  std::mutex mutex_;
  std::unordered_map<std::uint64_t, const char*> names_;
  std::deque<std::string> texts_;  // a deque never moves what it holds
};

NameTable& name_table() {
  static auto* table = new NameTable();  // never destroyed: names outlive every caller
  return *table;
}

}  // namespace

bool is_cuda_domain(std::uint32_t domain) noexcept {
  return domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API ||
         domain == ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API || domain == ROCPROF_MPI_DOMAIN_CUDA_OPS;
}

std::uint32_t cuda_op_count(std::uint32_t domain) noexcept {
  switch (domain) {
    case ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API:
      return CUPTI_RUNTIME_TRACE_CBID_SIZE;
    case ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API:
      return CUPTI_DRIVER_TRACE_CBID_SIZE;
    case ROCPROF_MPI_DOMAIN_CUDA_OPS:
      return ROCPROF_MPI_CUDA_OP_NUMBER;
    default:
      return 0;
  }
}

const char* cuda_op_string(std::uint32_t domain, std::uint32_t op) noexcept {
  if (domain == ROCPROF_MPI_DOMAIN_CUDA_OPS) return cuda_op_name(op);
  if (op == 0 || op >= cuda_op_count(domain)) return nullptr;
  try {
    return name_table().find(domain, op);
  } catch (...) {
    return nullptr;
  }
}

std::string_view without_version_suffix(std::string_view name) noexcept {
  const std::size_t suffix = name.rfind("_v");
  if (suffix == std::string_view::npos || suffix + 2 == name.size() ||
      name.find_first_not_of("0123456789", suffix + 2) != std::string_view::npos)
    return name;
  return name.substr(0, suffix);
}

}  // namespace rocprof::runtime::cuda
