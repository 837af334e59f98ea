#pragma once
// A rank's user annotations (rocprofsys_user_*annotated*), by the id of the marker they belong
// to, with their values decoded for the exporters.

#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "lib/format/rank_file_reader.hpp"
#include "lib/format/records.hpp"

namespace rocprof::merge {

struct AnnotationValue {
  enum class Kind : std::uint8_t { kInt, kUint, kDouble, kString };
  std::string_view name;
  Kind kind = Kind::kUint;
  std::int64_t int_value = 0;
  std::uint64_t uint_value = 0;  // the recorded bits, whatever the kind
  double double_value = 0;
  std::string_view text;
};

class UserAnnotations {
 public:
  explicit UserAnnotations(const format::RankFileReader& reader) : reader_(reader) {
    if (reader.row_count<format::AnnotationRow>() > 0)
      for (const format::AnnotationRow& row : reader.read_all<format::AnnotationRow>())
        by_marker_.emplace(row.marker_id, row);
  }

  // Calls visit(AnnotationValue) for each annotation of marker `id`, in recorded order.
  template <typename Visit>
  void for_marker(std::uint64_t id, Visit&& visit) const {
    if (by_marker_.empty()) return;
    const auto [first, last] = by_marker_.equal_range(id);
    for (auto it = first; it != last; ++it) visit(decode(it->second));
  }

 private:
  AnnotationValue decode(const format::AnnotationRow& row) const {
    using format::AnnotationType;
    AnnotationValue value;
    value.name = reader_.string(row.name);
    value.kind = AnnotationValue::Kind::kUint;
    value.uint_value = row.value;
    switch (row.type) {
      case AnnotationType::kString:
        value.kind = AnnotationValue::Kind::kString;
        value.text = reader_.string(row.text);
        break;
      case AnnotationType::kFloat64:
      case AnnotationType::kFloat32:
        value.kind = AnnotationValue::Kind::kDouble;
        std::memcpy(&value.double_value, &row.value, sizeof value.double_value);
        break;
      case AnnotationType::kInt64:
      case AnnotationType::kInt32:
      case AnnotationType::kInt16:
        value.kind = AnnotationValue::Kind::kInt;
        value.int_value = static_cast<std::int64_t>(row.value);
        break;
      default:
        break;
    }
    return value;
  }

  const format::RankFileReader& reader_;
  std::unordered_multimap<std::uint64_t, format::AnnotationRow> by_marker_;
};

}  // namespace rocprof::merge
