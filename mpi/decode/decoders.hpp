// Decoder<Fn> reads the arguments of one MPI function before and after its PMPI call and
// fills the call's record (peer, tag, bytes, communicator, request). The generated wrappers
// call Decoder<F>::before(call, args...) and Decoder<F>::after(call, result, args...), passing
// the arguments as lvalues: a decoder may replace an ignored status with its own.
//
// Functions without a specialisation are recorded with function, times, thread and external
// id only. Specialisations live in the family headers included below.
#pragma once

#include "mpi_functions.hpp"
#include "mpi/wrappers/call_scope.hpp"

namespace rocprof::mpi {

template <Fn F>
struct Decoder {
  template <typename... Args>
  static void before(CallRecord& /*call*/, Args&&... /*args*/) noexcept {}
  template <typename... Args>
  static void after(CallRecord& /*call*/, int /*result*/, Args&&... /*args*/) noexcept {}
};

}  // namespace rocprof::mpi
