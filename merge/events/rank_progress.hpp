#pragma once
// Exporters report their progress in steps (a rank written, or a rank's table copied), so a
// front end can draw a progress bar. The library itself never prints.

#include <cstddef>
#include <functional>
#include <utility>

namespace rocprof::merge {

// Called with (steps done, steps in all) after every step; may be empty.
using ProgressReport = std::function<void(std::size_t, std::size_t)>;

class ProgressSteps {
 public:
  ProgressSteps(ProgressReport report, std::size_t total)
      : report_(std::move(report)), total_(total) {}
  void step() {
    ++done_;
    if (report_) report_(done_, total_);
  }

 private:
  ProgressReport report_;
  std::size_t total_;
  std::size_t done_ = 0;
};

}  // namespace rocprof::merge
