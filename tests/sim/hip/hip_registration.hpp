// What hipcc's generated code calls at a program's load to register its kernels (no HIP
// header declares these): the tests register host stubs under device names the same way.
#pragma once

#include <hip/hip_runtime_api.h>

extern "C" void** __hipRegisterFatBinary(const void* data);
extern "C" void __hipRegisterFunction(void** modules, const void* hostFunction,
                                      char* deviceFunction, const char* deviceName,
                                      unsigned int threadLimit, void* tid, void* bid,
                                      dim3* blockDim, dim3* gridDim, int* wSize);
