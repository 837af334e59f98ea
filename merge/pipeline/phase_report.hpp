// How the pipeline tells its front end where it is: phases ("matching MPI messages") and the
// steps done in each, for a progress bar, and each phase's time for --timings.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace rocprof::merge {

using PhaseTimes = std::vector<std::pair<std::string, double>>;  // label, seconds

class PhaseReport {
 public:
  PhaseReport() = default;
  virtual ~PhaseReport() = default;
  PhaseReport(const PhaseReport&) = delete;
  PhaseReport& operator=(const PhaseReport&) = delete;

  virtual void phase(std::string label) = 0;                     // a new phase begins
  virtual void update(std::size_t done, std::size_t total) = 0;  // steps of the phase
  virtual void clear() = 0;  // the phase ends; what is printed next starts on a clean line
  virtual const PhaseTimes& timings() const noexcept = 0;  // each finished phase's seconds
};

}  // namespace rocprof::merge
