// The simulated HSA runtime's parts, shared between its files.
#pragma once

#include <hsa/hsa.h>

#include <cstddef>
#include <cstdint>

namespace sim_hsa {

inline constexpr hsa_agent_t kGpu{1};
inline constexpr hsa_agent_t kCpu{2};

// Code objects and the AMD loader extension (simulated_hsa_loader.cpp).
hsa_status_t system_get_major_extension_table(uint16_t extension, uint16_t version_major,
                                              size_t table_length, void* table);
hsa_status_t code_object_reader_create_from_file(hsa_file_t file,
                                                 hsa_code_object_reader_t* code_object_reader);
hsa_status_t code_object_reader_create_from_memory(const void* code_object, size_t size,
                                                   hsa_code_object_reader_t* code_object_reader);
hsa_status_t code_object_reader_destroy(hsa_code_object_reader_t code_object_reader);
hsa_status_t executable_create_alt(hsa_profile_t profile,
                                   hsa_default_float_rounding_mode_t rounding, const char* options,
                                   hsa_executable_t* executable);
hsa_status_t executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                               hsa_code_object_reader_t code_object_reader,
                                               const char* options,
                                               hsa_loaded_code_object_t* loaded_code_object);
hsa_status_t executable_freeze(hsa_executable_t executable, const char* options);
hsa_status_t executable_destroy(hsa_executable_t executable);
// The kernels of an executable's code objects: their ELF function symbols.
hsa_status_t executable_iterate_symbols(hsa_executable_t executable,
                                        hsa_status_t (*callback)(hsa_executable_t,
                                                                 hsa_executable_symbol_t, void*),
                                        void* data);
hsa_status_t executable_symbol_get_info(hsa_executable_symbol_t symbol,
                                        hsa_executable_symbol_info_t attribute, void* value);

}  // namespace sim_hsa
