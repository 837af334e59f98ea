#pragma once
// Names of a rank's API calls and device work, from the op-name table its file carries.

#include <cstdint>
#include <map>
#include <string>

#include "lib/format/rank_file_reader.hpp"
#include "lib/format/records.hpp"

namespace rocprof::merge {

class OpNames {
 public:
  explicit OpNames(const format::RankFileReader& reader);

  // The op's name, or "op N" where the file names none.
  std::string operator()(std::uint8_t domain, std::uint32_t op) const;
  // A dispatch's kernel name, a copy's name by its kind ("memcpy HtoD" for CUDA,
  // "CopyHostToDevice" for HIP, as in the summary), else the op's name.
  std::string of_activity(const format::ActivityRow& row) const;
  // Whether of_activity names the row by its copy kind rather than its op.
  static bool is_named_copy(const format::ActivityRow& row);
  // A dispatch's kernel name; one recorded by address ("kernel object 0x...") named from the
  // file's kernel_symbols where they hold it. "" for a row without one.
  std::string kernel_name(const format::ActivityRow& row) const;

 private:
  static std::uint64_t key(std::uint8_t domain, std::uint32_t op) {
    return (std::uint64_t{domain} << 32) | op;
  }
  const format::RankFileReader& reader_;
  std::map<std::uint64_t, std::string> names_;
  std::map<std::uint64_t, format::StringId> kernels_by_object_;  // kernel_symbols
};

}  // namespace rocprof::merge
