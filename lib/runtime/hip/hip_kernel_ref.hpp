// Which kernel a HIP launch call starts, and its name from the HIP runtime in the process:
// the recorder names the launch's API record with it, the HIP backend the dispatch.
#pragma once

#include <dlfcn.h>

#include <cstdint>

#include <roctracer/roctracer_hip.h>

namespace rocprof::runtime::hip {

// How to find a launched kernel's name: by the host function it was registered for, or by
// the module function.
struct KernelRef {
  enum class Kind : std::uint8_t { kNone, kHostFunction, kModuleFunction } kind = Kind::kNone;
  const void* handle = nullptr;
  const void* stream = nullptr;
};

// The kernel the HIP API call `op` launches (kNone for calls that launch none).
inline KernelRef launched_kernel(std::uint32_t op, const hip_api_data_t& data) noexcept {
  const auto& args = data.args;
  using Kind = KernelRef::Kind;
  switch (op) {
    case HIP_API_ID_hipLaunchKernel:
      return {Kind::kHostFunction, args.hipLaunchKernel.function_address,
              args.hipLaunchKernel.stream};
    case HIP_API_ID_hipExtLaunchKernel:
      return {Kind::kHostFunction, args.hipExtLaunchKernel.function_address,
              args.hipExtLaunchKernel.stream};
    case HIP_API_ID_hipLaunchCooperativeKernel:
      return {Kind::kHostFunction, args.hipLaunchCooperativeKernel.f,
              args.hipLaunchCooperativeKernel.stream};
    case HIP_API_ID_hipModuleLaunchKernel:
      return {Kind::kModuleFunction, args.hipModuleLaunchKernel.f,
              args.hipModuleLaunchKernel.stream};
    case HIP_API_ID_hipExtModuleLaunchKernel:
      return {Kind::kModuleFunction, args.hipExtModuleLaunchKernel.f,
              args.hipExtModuleLaunchKernel.hStream};
    case HIP_API_ID_hipHccModuleLaunchKernel:
      return {Kind::kModuleFunction, args.hipHccModuleLaunchKernel.f,
              args.hipHccModuleLaunchKernel.hStream};
    default:
      return {};
  }
}

// kernel_name: the kernel's (mangled) name from the HIP runtime in this process
// (hipKernelNameRefByPtr, hipKernelNameRef), or nullptr; the text lives as long as the
// kernel's code object.
inline const char* kernel_name(const KernelRef& kernel) noexcept {
  using ByPointer = const char* (*)(const void*, hipStream_t);
  using ByFunction = const char* (*)(hipFunction_t);
  // The runtime's own lookups (the ones roctracer's tools use), found in the process once.
  static const auto by_pointer =
      reinterpret_cast<ByPointer>(dlsym(RTLD_DEFAULT, "hipKernelNameRefByPtr"));
  static const auto by_function =
      reinterpret_cast<ByFunction>(dlsym(RTLD_DEFAULT, "hipKernelNameRef"));
  switch (kernel.kind) {
    case KernelRef::Kind::kHostFunction:
      return by_pointer == nullptr
                 ? nullptr
                 : by_pointer(kernel.handle,
                              static_cast<hipStream_t>(const_cast<void*>(kernel.stream)));
    case KernelRef::Kind::kModuleFunction:
      return by_function == nullptr
                 ? nullptr
                 : by_function(static_cast<hipFunction_t>(const_cast<void*>(kernel.handle)));
    case KernelRef::Kind::kNone:
      break;
  }
  return nullptr;
}

}  // namespace rocprof::runtime::hip
