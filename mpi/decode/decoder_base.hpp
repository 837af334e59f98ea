// Decoder<Fn> reads the arguments of one MPI function before and after its PMPI call and
// fills the call's record (peer, tag, bytes, communicator, request). The generated wrappers
// call Decoder<F>::before(call, args...) and Decoder<F>::after(call, result, args...), passing
// the arguments as lvalues: a decoder may replace an ignored status with its own.
//
// Functions without a specialisation are recorded with function, times, thread and external
// id only. Specialisations live in the family headers (decoders.hpp includes them all).
#pragma once

#include <type_traits>

#include "mpi/decode/communicators.hpp"
#include "mpi/wrappers/call_scope.hpp"
#include "mpi_functions.hpp"

namespace rocprof::mpi {

// Decoders that run on every rank, recorded or not, because they take part in collective
// work of the layer (clock synchronisation at MPI_Init*, MPI_Finalize, world barriers):
// with --mpi-ranks, untraced ranks must still take part, or the traced ones would wait.
template <Fn F>
inline constexpr bool kAlwaysDecode =
    F == Fn::MPI_Init || F == Fn::MPI_Init_thread || F == Fn::MPI_Finalize || F == Fn::MPI_Barrier;

template <Fn F>
struct Decoder {
  // Without a decoder of its own, a call whose first argument is a communicator still
  // records which one.
  template <typename First, typename... Args>
  static void before(CallRecord& call, First&& first, Args&&... /*args*/) noexcept {
    if constexpr (std::is_same_v<std::remove_cvref_t<First>, MPI_Comm>)
      call.row.communicator = communicator_id(first);
  }
  static void before(CallRecord& /*call*/) noexcept {}
  template <typename... Args>
  static void after(CallRecord& /*call*/, int /*result*/, Args&&... /*args*/) noexcept {}
};

}  // namespace rocprof::mpi
