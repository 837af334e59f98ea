// libcupti, loaded at run time: the recorder needs no CUDA library to load, and a process
// that never asks for CUDA tracing never maps CUPTI.
#pragma once

#include <cupti.h>

#include <string>

namespace rocprof::runtime::cuda {

struct CuptiLibrary {
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableDomain) enable_domain = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiGetCallbackName) callback_name = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_buffers = nullptr;
  decltype(&cuptiActivityRegisterTimestampCallback) register_timestamp = nullptr;
  decltype(&cuptiActivityEnable) enable_activity = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;

  // Text of a CUPTI result ("CUPTI_ERROR_...").
  std::string describe(CUptiResult result) const;
};

// Loads libcupti once: ROCPROF_MPI_CUPTI_LIBRARY if set, else libcupti.so.13 from the library
// path, else CUDA's usual places ($CUDA_HOME, /usr/local/cuda). nullptr with `error` set when
// it is not found or lacks a function.
const CuptiLibrary* load_cupti(std::string& error);

}  // namespace rocprof::runtime::cuda
