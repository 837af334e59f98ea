#include "merge/events/mpi_call_rows.hpp"

#include <set>

namespace rocprof::merge {

bool is_per_request_row(const std::string& function, const format::MpiCallRow& row) {
  static const std::set<std::string> kPerRequestCalls = {
      "MPI_Waitall", "MPI_Testall", "MPI_Waitsome", "MPI_Testsome", "MPI_Startall"};
  return row.request != 0 && kPerRequestCalls.contains(function);
}

}  // namespace rocprof::merge
