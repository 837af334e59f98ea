#pragma once
// rocprof-merge's progress bar: one line on stderr, redrawn in place, only on a terminal.

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "merge/pipeline/phase_report.hpp"

namespace rocprof::cli {

class ProgressBar final : public merge::PhaseReport {
 public:
  // Draws only when `enabled` and stderr is a terminal.
  explicit ProgressBar(bool enabled);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar() override;

  // A new phase ("matching messages", "writing out.pftrace"): later updates draw under it.
  void phase(std::string label) override;
  // Steps done of total in the current phase; draws at most ten times a second, and always
  // the last step.
  void update(std::size_t done, std::size_t total) override;
  // Erases the line, so whatever is printed next starts on a clean line; ends the phase.
  void clear() override;
  // Each finished phase and its wall time in seconds (for --timings).
  const merge::PhaseTimes& timings() const noexcept override { return timings_; }

 private:
  bool enabled_;
  bool drawn_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point last_draw_{};
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point phase_start_{};
  bool in_phase_ = false;
  merge::PhaseTimes timings_;
  void end_phase();
};

}  // namespace rocprof::cli
