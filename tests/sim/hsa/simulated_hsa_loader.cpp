// The simulated HSA runtime's code objects (simulated_hsa.cpp has the rest):
//   - code object readers from a file descriptor or from memory, executables, and loading a
//     code object (an ELF file) onto the GPU agent: its bytes copied into a fresh allocation
//     (the load base), the load delta and size, the URI the runtime gives it
//     ("file://PATH#offset=0&size=N", "memory://PID#offset=0xADDRESS&size=N");
//   - the AMD loader extension (hsa_system_get_major_extension_table, HSA_EXTENSION_AMD_LOADER
//     1.03): executables and the loaded code objects in them, with their attributes.
// Destroying an executable unloads its code objects.
#include <elf.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <unistd.h>

#include "tests/sim/hsa/simulated_hsa.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sim_hsa {
namespace {

struct Reader {
  std::vector<char> bytes;  // the code object
  bool from_file = false;
  std::string path;              // file: its path
  const void* memory = nullptr;  // memory: where the application keeps it
};

struct LoadedCodeObject {
  std::uint64_t handle = 0;
  std::uint64_t executable = 0;
  std::unique_ptr<char[]> image;  // the loaded copy; its address is the load base
  std::size_t size = 0;
  std::int64_t delta = 0;
  std::string uri;
  std::uint32_t storage = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_NONE;
  const void* memory = nullptr;
  int file = -1;
};

// A kernel of a loaded code object: a function symbol of its ELF, at its loaded address.
struct KernelSymbol {
  std::uint64_t executable = 0;
  std::string name;
  std::uint64_t kernel_object = 0;
};

struct Runtime {
  std::mutex mutex;
  std::uint64_t next_handle = 1;
  std::map<std::uint64_t, Reader> readers;
  std::map<std::uint64_t, bool> executables;  // handle -> frozen
  std::vector<std::unique_ptr<LoadedCodeObject>> loaded;
  std::vector<KernelSymbol> symbols;  // a symbol's handle is its index + 1
};

Runtime& runtime() {
  static auto* instance = new Runtime;
  return *instance;
}

// The lowest virtual address of the ELF's loadable segments (0 for a relocatable object).
std::uint64_t lowest_address(const std::vector<char>& bytes) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    return 0;
  Elf64_Ehdr header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  std::uint64_t lowest = UINT64_MAX;
  for (int i = 0; i < header.e_phnum; ++i) {
    const std::size_t at = header.e_phoff + static_cast<std::size_t>(i) * header.e_phentsize;
    if (at + sizeof(Elf64_Phdr) > bytes.size()) break;
    Elf64_Phdr segment{};
    std::memcpy(&segment, bytes.data() + at, sizeof segment);
    if (segment.p_type == PT_LOAD) lowest = std::min<std::uint64_t>(lowest, segment.p_vaddr);
  }
  return lowest == UINT64_MAX ? 0 : lowest;
}

// The function symbols of an ELF (.symtab, else .dynsym): name and virtual address.
std::vector<std::pair<std::string, std::uint64_t>> functions_of(const std::vector<char>& bytes) {
  std::vector<std::pair<std::string, std::uint64_t>> found;
  if (bytes.size() < sizeof(Elf64_Ehdr)) return found;
  Elf64_Ehdr header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  auto section = [&](int index) {
    Elf64_Shdr entry{};
    const std::size_t at = header.e_shoff + static_cast<std::size_t>(index) * header.e_shentsize;
    if (at + sizeof entry <= bytes.size()) std::memcpy(&entry, bytes.data() + at, sizeof entry);
    return entry;
  };
  for (const std::uint32_t wanted : {std::uint32_t{SHT_SYMTAB}, std::uint32_t{SHT_DYNSYM}}) {
    for (int i = 0; i < header.e_shnum && found.empty(); ++i) {
      const Elf64_Shdr table = section(i);
      if (table.sh_type != wanted || table.sh_entsize != sizeof(Elf64_Sym)) continue;
      const Elf64_Shdr names = section(static_cast<int>(table.sh_link));
      for (std::size_t at = table.sh_offset;
           at + sizeof(Elf64_Sym) <= table.sh_offset + table.sh_size &&
           at + sizeof(Elf64_Sym) <= bytes.size();
           at += sizeof(Elf64_Sym)) {
        Elf64_Sym symbol{};
        std::memcpy(&symbol, bytes.data() + at, sizeof symbol);
        if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0) continue;
        const std::size_t name_at = names.sh_offset + symbol.st_name;
        if (name_at >= bytes.size()) continue;
        found.emplace_back(std::string(bytes.data() + name_at), symbol.st_value);
      }
    }
    if (!found.empty()) break;
  }
  return found;
}

bool is_elf(const std::vector<char>& bytes) {
  return bytes.size() >= SELFMAG && std::memcmp(bytes.data(), ELFMAG, SELFMAG) == 0;
}

// ---- the AMD loader extension ----

hsa_status_t query_host_address(const void* /*device*/, const void** /*host*/) {
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t query_segment_descriptors(hsa_ven_amd_loader_segment_descriptor_t* /*descriptors*/,
                                       size_t* count) {
  if (count == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *count = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t query_executable(const void* device_address, hsa_executable_t* executable) {
  if (executable == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  const auto* address = static_cast<const char*>(device_address);
  for (const auto& object : state.loaded)
    if (address >= object->image.get() && address < object->image.get() + object->size) {
      executable->handle = object->executable;
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t iterate_loaded_code_objects(hsa_executable_t executable,
                                         hsa_status_t (*callback)(hsa_executable_t,
                                                                  hsa_loaded_code_object_t, void*),
                                         void* data) {
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<std::uint64_t> handles;
  {
    Runtime& state = runtime();
    const std::lock_guard lock(state.mutex);
    if (!state.executables.contains(executable.handle)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    for (const auto& object : state.loaded)
      if (object->executable == executable.handle) handles.push_back(object->handle);
  }
  for (const std::uint64_t handle : handles)
    if (const hsa_status_t status = callback(executable, hsa_loaded_code_object_t{handle}, data);
        status != HSA_STATUS_SUCCESS)
      return status;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t loaded_code_object_get_info(hsa_loaded_code_object_t handle,
                                         hsa_ven_amd_loader_loaded_code_object_info_t attribute,
                                         void* value) {
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  const auto found =
      std::find_if(state.loaded.begin(), state.loaded.end(),
                   [&](const auto& object) { return object->handle == handle.handle; });
  if (found == state.loaded.end()) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  const LoadedCodeObject& object = **found;
  switch (attribute) {
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE:
      *static_cast<hsa_executable_t*>(value) = {object.executable};
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND:
      *static_cast<std::uint32_t*>(value) = HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT:
      *static_cast<hsa_agent_t*>(value) = kGpu;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE:
      *static_cast<std::uint32_t*>(value) = object.storage;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE:
      *static_cast<std::uint64_t*>(value) = reinterpret_cast<std::uint64_t>(object.memory);
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE:
      *static_cast<std::uint64_t*>(value) = object.memory != nullptr ? object.size : 0;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE:
      *static_cast<int*>(value) = object.file;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA:
      *static_cast<std::int64_t*>(value) = object.delta;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE:
      *static_cast<std::uint64_t*>(value) = reinterpret_cast<std::uint64_t>(object.image.get());
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE:
      *static_cast<std::uint64_t*>(value) = object.size;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH:
      *static_cast<std::uint32_t*>(value) = static_cast<std::uint32_t>(object.uri.size());
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI:
      std::memcpy(value, object.uri.data(), object.uri.size());
      break;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t create_from_file_with_offset_size(hsa_file_t /*file*/, size_t /*offset*/,
                                               size_t /*size*/,
                                               hsa_code_object_reader_t* /*reader*/) {
  return HSA_STATUS_ERROR;  // not simulated
}

hsa_status_t iterate_executables(hsa_status_t (*callback)(hsa_executable_t, void*), void* data) {
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<std::uint64_t> handles;
  {
    Runtime& state = runtime();
    const std::lock_guard lock(state.mutex);
    for (const auto& [handle, frozen] : state.executables) handles.push_back(handle);
  }
  for (const std::uint64_t handle : handles)
    if (const hsa_status_t status = callback(hsa_executable_t{handle}, data);
        status != HSA_STATUS_SUCCESS)
      return status;
  return HSA_STATUS_SUCCESS;
}

const hsa_ven_amd_loader_1_03_pfn_t kLoader = {
    query_host_address,          query_segment_descriptors,   query_executable,
    iterate_loaded_code_objects, loaded_code_object_get_info, create_from_file_with_offset_size,
    iterate_executables};

}  // namespace

hsa_status_t system_get_major_extension_table(uint16_t extension, uint16_t version_major,
                                              size_t table_length, void* table) {
  if (table == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (extension != HSA_EXTENSION_AMD_LOADER || version_major != 1)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::memcpy(table, &kLoader, std::min(table_length, sizeof kLoader));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t code_object_reader_create_from_file(hsa_file_t file,
                                                 hsa_code_object_reader_t* code_object_reader) {
  if (code_object_reader == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Reader reader;
  reader.from_file = true;
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", file);
  char path[4096] = {};
  const ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0) return HSA_STATUS_ERROR_INVALID_FILE;
  reader.path.assign(path, static_cast<std::size_t>(length));
  char chunk[65536];
  for (off_t at = 0;;) {
    const ssize_t got = pread(file, chunk, sizeof chunk, at);
    if (got < 0) return HSA_STATUS_ERROR_INVALID_FILE;
    if (got == 0) break;
    reader.bytes.insert(reader.bytes.end(), chunk, chunk + got);
    at += got;
  }
  if (!is_elf(reader.bytes)) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  code_object_reader->handle = state.next_handle++;
  state.readers.emplace(code_object_reader->handle, std::move(reader));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t code_object_reader_create_from_memory(const void* code_object, size_t size,
                                                   hsa_code_object_reader_t* code_object_reader) {
  if (code_object == nullptr || size == 0 || code_object_reader == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Reader reader;
  reader.memory = code_object;
  reader.bytes.assign(static_cast<const char*>(code_object),
                      static_cast<const char*>(code_object) + size);
  if (!is_elf(reader.bytes)) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  code_object_reader->handle = state.next_handle++;
  state.readers.emplace(code_object_reader->handle, std::move(reader));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  return state.readers.erase(code_object_reader.handle) == 1
             ? HSA_STATUS_SUCCESS
             : HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
}

hsa_status_t executable_create_alt(hsa_profile_t /*profile*/,
                                   hsa_default_float_rounding_mode_t /*rounding*/,
                                   const char* /*options*/, hsa_executable_t* executable) {
  if (executable == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  executable->handle = state.next_handle++;
  state.executables.emplace(executable->handle, false);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                               hsa_code_object_reader_t code_object_reader,
                                               const char* /*options*/,
                                               hsa_loaded_code_object_t* loaded_code_object) {
  if (agent.handle != kGpu.handle) return HSA_STATUS_ERROR_INVALID_AGENT;
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  const auto frozen = state.executables.find(executable.handle);
  if (frozen == state.executables.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (frozen->second) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  const auto reader = state.readers.find(code_object_reader.handle);
  if (reader == state.readers.end()) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  auto object = std::make_unique<LoadedCodeObject>();
  object->handle = state.next_handle++;
  object->executable = executable.handle;
  object->size = reader->second.bytes.size();
  object->image = std::make_unique<char[]>(object->size);
  std::memcpy(object->image.get(), reader->second.bytes.data(), object->size);
  object->delta = static_cast<std::int64_t>(reinterpret_cast<std::uint64_t>(object->image.get()) -
                                            lowest_address(reader->second.bytes));
  char uri[4200];
  if (reader->second.from_file) {
    object->storage = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE;
    std::snprintf(uri, sizeof uri, "file://%s#offset=0&size=%zu", reader->second.path.c_str(),
                  object->size);
  } else {
    object->storage = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
    object->memory = reader->second.memory;
    std::snprintf(uri, sizeof uri, "memory://%d#offset=0x%llx&size=%zu", static_cast<int>(getpid()),
                  static_cast<unsigned long long>(  // NOLINT(google-runtime-int)
                      reinterpret_cast<std::uintptr_t>(reader->second.memory)),
                  object->size);
  }
  object->uri = uri;
  const std::uint64_t lowest = lowest_address(reader->second.bytes);
  for (const auto& [name, address] : functions_of(reader->second.bytes))
    state.symbols.push_back(
        {executable.handle, name,
         reinterpret_cast<std::uint64_t>(object->image.get()) + address - lowest});
  if (loaded_code_object != nullptr) loaded_code_object->handle = object->handle;
  state.loaded.push_back(std::move(object));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_freeze(hsa_executable_t executable, const char* /*options*/) {
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  const auto found = state.executables.find(executable.handle);
  if (found == state.executables.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (found->second) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  found->second = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_destroy(hsa_executable_t executable) {
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  if (state.executables.erase(executable.handle) == 0) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  std::erase_if(state.loaded,
                [&](const auto& object) { return object->executable == executable.handle; });
  for (KernelSymbol& symbol : state.symbols)
    if (symbol.executable == executable.handle) symbol = KernelSymbol{};
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_iterate_symbols(hsa_executable_t executable,
                                        hsa_status_t (*callback)(hsa_executable_t,
                                                                 hsa_executable_symbol_t, void*),
                                        void* data) {
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<std::uint64_t> handles;
  {
    Runtime& state = runtime();
    const std::lock_guard lock(state.mutex);
    if (!state.executables.contains(executable.handle)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    for (std::size_t i = 0; i < state.symbols.size(); ++i)
      if (state.symbols[i].executable == executable.handle) handles.push_back(i + 1);
  }
  for (const std::uint64_t handle : handles)
    if (const hsa_status_t status = callback(executable, hsa_executable_symbol_t{handle}, data);
        status != HSA_STATUS_SUCCESS)
      return status;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_symbol_get_info(hsa_executable_symbol_t symbol,
                                        hsa_executable_symbol_info_t attribute, void* value) {
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Runtime& state = runtime();
  const std::lock_guard lock(state.mutex);
  if (symbol.handle == 0 || symbol.handle > state.symbols.size() ||
      state.symbols[symbol.handle - 1].executable == 0)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  const KernelSymbol& kernel = state.symbols[symbol.handle - 1];
  switch (attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
      *static_cast<hsa_symbol_kind_t*>(value) = HSA_SYMBOL_KIND_KERNEL;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
      *static_cast<std::uint32_t*>(value) = static_cast<std::uint32_t>(kernel.name.size());
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
      std::memcpy(value, kernel.name.data(), kernel.name.size());
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
      *static_cast<std::uint64_t*>(value) = kernel.kernel_object;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

}  // namespace sim_hsa
