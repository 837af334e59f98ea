// The MPI calls a run does not record (rocprof-mpi --mpi-exclude, ROCPROF_MPI_EXCLUDE_CALLS):
// function names or shell-style patterns (fnmatch: * ? [...]), separated by commas. The calls
// still run and the MPI layer still does its bookkeeping in them (communicator ids, requests,
// clock synchronisation); only their records are left out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocprof::settings {

// "MPI_Comm_rank, MPI_Test*": each name or pattern, spaces around commas allowed. False with
// `error` for an empty item or one with characters no MPI function name has.
bool parse_mpi_exclude(std::string_view text, std::vector<std::string>& patterns,
                       std::string& error);

// The items of a filter file: one name or pattern per line, `#` starts a comment, blank lines
// skipped; as one comma-separated list. False with `error` if it cannot be read.
bool read_mpi_exclude_file(const std::string& path, std::string& list, std::string& error);

// Whether `function` ("MPI_Test") matches `pattern`.
bool mpi_pattern_matches(const std::string& pattern, const char* function);

}  // namespace rocprof::settings
