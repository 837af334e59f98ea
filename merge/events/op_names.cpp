#include "merge/events/op_names.hpp"

#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "merge/events/gpu_names.hpp"

namespace rocprof::merge {

OpNames::OpNames(const format::RankFileReader& reader) : reader_(reader) {
  for (const format::OpNameRow& op : reader.read_all<format::OpNameRow>())
    names_[key(op.domain, op.op)] = reader.string(op.name);
  if (reader.row_count<format::KernelSymbolRow>() > 0)
    for (const format::KernelSymbolRow& kernel : reader.read_all<format::KernelSymbolRow>())
      kernels_by_object_.emplace(kernel.kernel_object, kernel.name);
}

std::string OpNames::operator()(std::uint8_t domain, std::uint32_t op) const {
  const auto found = names_.find(key(domain, op));
  return found != names_.end() ? found->second : fmt::format("op {}", op);
}

std::string OpNames::kernel_name(const format::ActivityRow& row) const {
  if (row.kernel_name == 0) return {};
  std::string name = reader_.string(row.kernel_name);
  const std::string_view prefix = format::kKernelObjectNamePrefix;
  if (kernels_by_object_.empty() || !name.starts_with(prefix)) return name;
  std::uint64_t object = 0;
  const char* digits = name.data() + prefix.size();
  const auto [end, code] = std::from_chars(digits, name.data() + name.size(), object, 16);
  if (code != std::errc{} || end != name.data() + name.size()) return name;
  const auto found = kernels_by_object_.find(object);
  return found == kernels_by_object_.end() ? name : reader_.string(found->second);
}

std::string OpNames::of_activity(const format::ActivityRow& row) const {
  if (row.kernel_name != 0) return kernel_name(row);
  if (is_named_copy(row)) return copy_name(row.domain, row.kind);
  return (*this)(row.domain, row.op);
}

bool OpNames::is_named_copy(const format::ActivityRow& row) {
  return (row.domain == ROCPROF_MPI_DOMAIN_CUDA_OPS && row.op == ROCPROF_MPI_CUDA_OP_MEMCPY) ||
         (row.domain == kHipOpsDomain && row.op == 1 &&
          rocprof_mpi_hip_command_name(row.kind) != nullptr);
}

}  // namespace rocprof::merge
