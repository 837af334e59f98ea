// rocprof-merge --report: one self-contained HTML file (inline CSS and SVG, no network, no
// script needed to read it) with the job's plots: where each rank's time went (compute, MPI
// transfer, MPI wait, GPU busy), the share of MPI time of each rank over the run (a heatmap),
// the wait states and their causes, GPU utilisation per device when counters were sampled,
// and the kernel table.
#pragma once

#include <cstddef>
#include <string>

#include "merge/summary/summary.hpp"

namespace rocprof::merge {

struct ReportJob {
  std::string job_id;
  std::size_t merge_processes = 1;
  std::string timeline;  // the merged timeline written beside it
};

// The report as text.
std::string html_report(const Summary& summary, const ReportJob& job);
// Written to `path`; false with `error`.
bool write_html_report(const std::string& path, const Summary& summary, const ReportJob& job,
                       std::string& error);

}  // namespace rocprof::merge
