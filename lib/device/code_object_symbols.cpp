#include "lib/device/code_object_symbols.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace rocprof::device {
namespace {

template <typename Struct>
bool read_at(std::span<const char> bytes, std::uint64_t offset, Struct& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof out) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof out);
  return true;
}

}  // namespace

std::vector<std::pair<std::string, std::uint64_t>> kernel_symbols(std::span<const char> elf) {
  std::vector<std::pair<std::string, std::uint64_t>> descriptors;
  std::vector<std::pair<std::string, std::uint64_t>> functions;
  Elf64_Ehdr header{};
  if (!read_at(elf, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    return {};
  for (std::uint32_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr table{};
    if (!read_at(elf, header.e_shoff + std::uint64_t{i} * header.e_shentsize, table) ||
        (table.sh_type != SHT_SYMTAB && table.sh_type != SHT_DYNSYM) ||
        table.sh_entsize != sizeof(Elf64_Sym))
      continue;
    Elf64_Shdr names{};
    if (!read_at(elf, header.e_shoff + std::uint64_t{table.sh_link} * header.e_shentsize, names))
      continue;
    for (std::uint64_t at = 0; at + sizeof(Elf64_Sym) <= table.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol{};
      if (!read_at(elf, table.sh_offset + at, symbol) || symbol.st_value == 0) continue;
      const std::uint64_t name_at = names.sh_offset + symbol.st_name;
      if (name_at >= elf.size()) continue;
      const std::string name(elf.data() + name_at,
                             strnlen(elf.data() + name_at, elf.size() - name_at));
      const auto type = ELF64_ST_TYPE(symbol.st_info);
      if (type == STT_OBJECT && name.size() > 3 && name.ends_with(".kd"))
        descriptors.emplace_back(name.substr(0, name.size() - 3), symbol.st_value);
      else if (type == STT_FUNC && !name.empty())
        functions.emplace_back(name, symbol.st_value);
    }
  }
  // A symbol in both the static and the dynamic table is one kernel.
  auto& found = descriptors.empty() ? functions : descriptors;
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return std::move(found);
}

}  // namespace rocprof::device
