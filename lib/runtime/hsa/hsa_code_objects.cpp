#include "lib/runtime/hsa/hsa_code_objects.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <string_view>

namespace rocprof::runtime::hsa {
namespace {

using ExtensionTable = hsa_status_t (*)(uint16_t, uint16_t, size_t, void*);

// The loader extension of the runtime in the process, or false.
bool loader_table(hsa_ven_amd_loader_1_03_pfn_t& table) {
  void* runtime = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (runtime == nullptr) return false;
  const auto get_table =
      reinterpret_cast<ExtensionTable>(dlsym(runtime, "hsa_system_get_major_extension_table"));
  std::memset(&table, 0, sizeof table);
  return get_table != nullptr &&
         get_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof table, &table) == HSA_STATUS_SUCCESS &&
         table.hsa_ven_amd_loader_iterate_executables != nullptr &&
         table.hsa_ven_amd_loader_executable_iterate_loaded_code_objects != nullptr &&
         table.hsa_ven_amd_loader_loaded_code_object_get_info != nullptr;
}

struct Listing {
  const hsa_ven_amd_loader_1_03_pfn_t* table;
  std::vector<LoadedCodeObject> objects;
};

template <typename Value>
bool info(const Listing& listing, hsa_loaded_code_object_t object,
          hsa_ven_amd_loader_loaded_code_object_info_t attribute, Value& value) {
  return listing.table->hsa_ven_amd_loader_loaded_code_object_get_info(object, attribute, &value) ==
         HSA_STATUS_SUCCESS;
}

hsa_status_t add_object(hsa_executable_t /*executable*/, hsa_loaded_code_object_t object,
                        void* data) {
  auto& listing = *static_cast<Listing*>(data);
  LoadedCodeObject found;
  std::uint32_t storage = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_NONE;
  std::uint32_t uri_length = 0;
  if (!info(listing, object, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE,
            found.load_base) ||
      !info(listing, object, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, uri_length))
    return HSA_STATUS_SUCCESS;  // a code object the runtime cannot describe: skipped
  info(listing, object, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, found.load_size);
  info(listing, object, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA, found.load_delta);
  info(listing, object, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE,
       storage);
  found.uri.assign(uri_length, '\0');
  if (uri_length > 0 && listing.table->hsa_ven_amd_loader_loaded_code_object_get_info(
                            object, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI,
                            found.uri.data()) != HSA_STATUS_SUCCESS)
    found.uri.clear();
  if (storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY) {
    found.from_memory = true;
    info(listing, object,
         HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE,
         found.memory_base);
    info(listing, object,
         HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE,
         found.memory_size);
  }
  listing.objects.push_back(std::move(found));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t add_executable(hsa_executable_t executable, void* data) {
  auto& listing = *static_cast<Listing*>(data);
  listing.table->hsa_ven_amd_loader_executable_iterate_loaded_code_objects(executable, add_object,
                                                                           data);
  return HSA_STATUS_SUCCESS;
}

// A number of a URI's range ("0x1f", "31", "037").
std::uint64_t uri_number(std::string_view text) {
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text.front() == '0') {
    base = 8;
  }
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value, base);
  return value;
}

// `name`'s value in a URI's range ("#offset=N&size=N"), 0 if absent.
std::uint64_t range_value(std::string_view range, std::string_view name) {
  for (std::size_t at = 0; at < range.size();) {
    std::size_t end = range.find('&', at);
    if (end == std::string_view::npos) end = range.size();
    const std::string_view field = range.substr(at, end - at);
    if (field.starts_with(name) && field.size() > name.size() && field[name.size()] == '=')
      return uri_number(field.substr(name.size() + 1));
    at = end + 1;
  }
  return 0;
}

// A URI-encoded path ("%20" for a space) as the file system knows it.
std::string decoded_path(std::string_view encoded) {
  std::string path;
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] == '%' && i + 2 < encoded.size()) {
      unsigned value = 0;
      std::from_chars(encoded.data() + i + 1, encoded.data() + i + 3, value, 16);
      path.push_back(static_cast<char>(value));
      i += 2;
    } else {
      path.push_back(encoded[i]);
    }
  }
  return path;
}

std::vector<char> file_bytes(std::string_view uri) {
  std::string_view rest = uri.substr(std::string_view("file://").size());
  const std::size_t split = rest.find_first_of("#?");
  const std::string_view range = split == std::string_view::npos ? "" : rest.substr(split + 1);
  const std::string path = decoded_path(rest.substr(0, split));
  const std::uint64_t offset = range_value(range, "offset");
  std::uint64_t size = range_value(range, "size");
  const int file = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file < 0) return {};
  if (size == 0) {  // to the file's end
    const off_t end = ::lseek(file, 0, SEEK_END);
    size = end > static_cast<off_t>(offset) ? static_cast<std::uint64_t>(end) - offset : 0;
  }
  std::vector<char> bytes(size);
  std::uint64_t done = 0;
  while (done < size) {
    const ssize_t got =
        ::pread(file, bytes.data() + done, size - done, static_cast<off_t>(offset + done));
    if (got <= 0) break;
    done += static_cast<std::uint64_t>(got);
  }
  ::close(file);
  bytes.resize(done);
  return bytes;
}

}  // namespace

std::vector<LoadedCodeObject> loaded_code_objects() {
  hsa_ven_amd_loader_1_03_pfn_t table{};
  if (!loader_table(table)) return {};
  Listing listing{&table, {}};
  table.hsa_ven_amd_loader_iterate_executables(add_executable, &listing);
  return std::move(listing.objects);
}

std::vector<char> code_object_bytes(const LoadedCodeObject& object) {
  if (object.from_memory) {
    if (object.memory_base == 0 || object.memory_size == 0) return {};
    // The runtime gives the application's buffer as a number.
    const auto* begin = reinterpret_cast<const char*>(  // NOLINT(performance-no-int-to-ptr)
        object.memory_base);
    return {begin, begin + object.memory_size};
  }
  if (object.uri.starts_with("file://")) return file_bytes(object.uri);
  return {};
}

}  // namespace rocprof::runtime::hsa
