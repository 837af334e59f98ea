#pragma once
// The toy sink of mpi_call_list_sink.cpp.

#include <memory>

#include "merge/export/sink.hpp"

namespace rocprof::test {

std::unique_ptr<merge::Sink> make_mpi_call_list_sink();

}  // namespace rocprof::test
