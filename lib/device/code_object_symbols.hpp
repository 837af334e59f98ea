// The kernels of a GPU code object (an ELF): their names and the addresses of their kernel
// descriptors in the code object, which plus the load delta are the kernel objects dispatch
// packets carry.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rocprof::device {

// (name, address) of each kernel: the "NAME.kd" descriptor symbols of an AMDGPU code object
// (".kd" dropped); in an ELF without descriptors, its function symbols. Empty for bytes that
// are not a 64-bit ELF.
std::vector<std::pair<std::string, std::uint64_t>> kernel_symbols(std::span<const char> elf);

}  // namespace rocprof::device
