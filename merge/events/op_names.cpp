#include "merge/events/op_names.hpp"

#include <fmt/format.h>

#include "merge/events/gpu_names.hpp"

namespace rocprof::merge {

OpNames::OpNames(const format::RankFileReader& reader) : reader_(reader) {
  for (const format::OpNameRow& op : reader.read_all<format::OpNameRow>())
    names_[key(op.domain, op.op)] = reader.string(op.name);
}

std::string OpNames::operator()(std::uint8_t domain, std::uint32_t op) const {
  const auto found = names_.find(key(domain, op));
  return found != names_.end() ? found->second : fmt::format("op {}", op);
}

std::string OpNames::of_activity(const format::ActivityRow& row) const {
  if (row.kernel_name != 0) return reader_.string(row.kernel_name);
  if (is_named_copy(row)) return copy_name(row.domain, row.kind);
  return (*this)(row.domain, row.op);
}

bool OpNames::is_named_copy(const format::ActivityRow& row) {
  return (row.domain == ROCPROF_MPI_DOMAIN_CUDA_OPS && row.op == ROCPROF_MPI_CUDA_OP_MEMCPY) ||
         (row.domain == kHipOpsDomain && row.op == 1 &&
          rocprof_mpi_hip_command_name(row.kind) != nullptr);
}

}  // namespace rocprof::merge
