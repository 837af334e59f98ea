#include "merge/events/op_names.hpp"

#include <fmt/format.h>

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
  return row.kernel_name != 0 ? reader_.string(row.kernel_name) : (*this)(row.domain, row.op);
}

}  // namespace rocprof::merge
