#include "merge/report/html_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "lib/format/text.hpp"
#include "merge/analysis/activity_names.hpp"

namespace rocprof::merge {
namespace {

constexpr int kPlotWidth = 960;
constexpr int kLabelWidth = 90;
constexpr int kHeatColumns = 120;
constexpr std::size_t kTopRows = 15;

constexpr std::string_view kComputeColour = "#4e79a7";
constexpr std::string_view kTransferColour = "#f28e2b";
constexpr std::string_view kWaitColour = "#e15759";
constexpr std::string_view kPollingColour = "#edc948";
constexpr std::string_view kGpuColour = "#59a14f";

// `text` for HTML: valid UTF-8 (a name shortened mid-character included) with markup escaped.
std::string escaped(std::string_view raw) {
  const std::string text = format::valid_utf8(raw);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  return out;
}

double ms(double ns) { return ns / 1e6; }

// "12.3 ms", "4.56 s".
std::string duration(double ns) {
  if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

// Rows of a rank plot: a height each that keeps a job of thousands of ranks on a page.
int row_height(std::size_t rows) {
  return std::clamp(static_cast<int>(720 / std::max<std::size_t>(rows, 1)), 2, 18);
}

struct RankSplit {
  std::int32_t rank;
  double wall;
  double compute;
  double transfer;  // MPI time neither waiting nor polling
  double polling;   // in MPI_Test, MPI_Iprobe and kin, not waiting
  double wait;
  double gpu;
  std::uint64_t bytes_sent;
};

std::vector<RankSplit> rank_splits(const Summary& summary) {
  std::map<std::int32_t, double> waited;
  for (const auto& [rank, patterns] : summary.wait_states().by_rank())
    for (const double total : patterns) waited[rank] += total;
  std::vector<RankSplit> splits;
  for (const RankTime& time : summary.rank_times()) {
    const double wall = time.wall_ns();
    const double mpi = std::min(time.mpi_ns(), wall);
    const double wait = std::min(waited[time.rank()], mpi);
    // A wait may lie in a polling call (a test that completed a late message): counted as
    // the wait.
    const double polling = std::min(time.polling_ns(), mpi - wait);
    splits.push_back({time.rank(), wall, wall - mpi, mpi - wait - polling, polling, wait,
                      std::min(time.gpu_busy_ns(), wall), time.bytes_sent()});
  }
  return splits;
}

void legend(std::string& out,
            std::initializer_list<std::pair<std::string_view, std::string_view>> keys) {
  out += "<p class=\"legend\">";
  for (const auto& [colour, name] : keys)
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", colour, name);
  out += "</p>\n";
}

// Stacked bars per rank: compute, MPI transfer, MPI polling, MPI wait; a thin GPU-busy bar
// under each.
void time_per_rank(std::string& out, const std::vector<RankSplit>& splits) {
  out += "<h2>Where each rank's time went</h2>\n";
  out +=
      "<p>From each rank's first record to its last. MPI wait is the time its MPI calls waited "
      "for another rank (the wait states below); MPI polling is its time in calls that only ask "
      "whether communication progressed (MPI_Test, MPI_Iprobe and kin), a wait aside; MPI "
      "transfer is the rest of its MPI time (calls that move data, set up or wait for MPI's "
      "own progress), with the bytes the rank sent per second of it; compute is the time "
      "outside MPI. The green bar under each is the time its GPU ran something.</p>\n";
  legend(out, {{kComputeColour, "compute"},
               {kTransferColour, "MPI transfer"},
               {kPollingColour, "MPI polling"},
               {kWaitColour, "MPI wait"},
               {kGpuColour, "GPU busy"}});
  double longest = 1;
  for (const RankSplit& split : splits) longest = std::max(longest, split.wall);
  const int row = row_height(splits.size());
  const bool gpu = std::any_of(splits.begin(), splits.end(),
                               [](const RankSplit& split) { return split.gpu > 0; });
  const int step = row + (gpu ? std::max(2, row / 3) : 0) + (row > 4 ? 3 : 0);
  const int height = static_cast<int>(splits.size()) * step + 24;
  out += fmt::format(
      "<svg class=\"plot\" id=\"time-per-rank\" width=\"{}\" height=\"{}\" role=\"img\">\n",
      kPlotWidth, height);
  const double scale = (kPlotWidth - kLabelWidth - 10) / longest;
  int y = 0;
  for (const RankSplit& split : splits) {
    if (row >= 8)
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">rank {}</text>\n",
                         kLabelWidth - 6, y + row - 3, split.rank);
    double x = kLabelWidth;
    for (const auto& [part, colour, name] :
         {std::tuple{split.compute, kComputeColour, "compute"},
          std::tuple{split.transfer, kTransferColour, "MPI transfer"},
          std::tuple{split.polling, kPollingColour, "MPI polling"},
          std::tuple{split.wait, kWaitColour, "MPI wait"}}) {
      const double width = part * scale;
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>rank {}: "
          "{} {} ({:.1f}%)</title></rect>\n",
          x, y, width, row, colour, split.rank, name, duration(part),
          split.wall > 0 ? 100 * part / split.wall : 0.0);
      x += width;
    }
    if (gpu)
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>rank {}: GPU "
          "busy {}</title></rect>\n",
          kLabelWidth, y + row + 1, split.gpu * scale, std::max(2, row / 3) - 1, kGpuColour,
          split.rank, duration(split.gpu));
    y += step;
  }
  out += fmt::format(R"(<text x="{}" y="{}">0</text>)", kLabelWidth, height - 6);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kPlotWidth - 10,
                     height - 6, duration(longest));
  out += "</svg>\n";
  out +=
      "<table><tr><th>rank</th><th>wall</th><th>compute</th><th>MPI transfer</th><th>MPI "
      "polling</th><th>MPI wait</th><th>GPU busy</th><th>MB sent</th><th>MB/s of "
      "transfer</th></tr>\n";
  for (const RankSplit& split : splits) {
    const double megabytes = static_cast<double>(split.bytes_sent) / 1e6;
    out += fmt::format(
        "<tr><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}"
        "</td><td>{:.3f}</td><td>{:.3f}</td><td>{}</td></tr>\n",
        split.rank, ms(split.wall), ms(split.compute), ms(split.transfer), ms(split.polling),
        ms(split.wait), ms(split.gpu), megabytes,
        split.transfer > 0 ? fmt::format("{:.1f}", megabytes / (split.transfer / 1e9)) : "-");
  }
  out += "</table><p class=\"note\">Times in ms; MB are 10<sup>6</sup> bytes.</p>\n";
}

// Ranks by time: the share of each time slice a rank spent in MPI.
void mpi_heatmap(std::string& out, const std::vector<RankTime>& times) {
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last = 0;
  for (const RankTime& time : times)
    if (time.last_ns() > time.first_ns()) {
      first = std::min(first, time.first_ns());
      last = std::max(last, time.last_ns());
    }
  out += "<h2>MPI time over the run</h2>\n";
  if (last <= first) {
    out += "<p>No rank recorded anything.</p>\n";
    return;
  }
  out += fmt::format(
      "<p>Each row is a rank, each column {} of the run; the darker a cell, the more of it the "
      "rank spent in MPI. A rank lighter than the others in a column is the one they wait "
      "for.</p>\n",
      duration(static_cast<double>(last - first) / kHeatColumns));
  const int row = row_height(times.size());
  const int cell = (kPlotWidth - kLabelWidth - 10) / kHeatColumns;
  const int height = static_cast<int>(times.size()) * row + 24;
  out += fmt::format(
      "<svg class=\"plot\" id=\"mpi-heatmap\" width=\"{}\" height=\"{}\" role=\"img\">\n",
      kPlotWidth, height);
  const double column_ns = static_cast<double>(last - first) / kHeatColumns;
  int y = 0;
  for (const RankTime& time : times) {
    if (row >= 8)
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">rank {}</text>\n",
                         kLabelWidth - 6, y + row - 2, time.rank());
    for (int column = 0; column < kHeatColumns; ++column) {
      const auto from = first + static_cast<std::uint64_t>(column * column_ns);
      const auto to = first + static_cast<std::uint64_t>((column + 1) * column_ns);
      const double share = std::clamp(time.mpi_ns_between(from, to) / column_ns, 0.0, 1.0);
      // White to dark red.
      const int green = static_cast<int>(std::lround(255 - 200 * share));
      const int blue = static_cast<int>(std::lround(255 - 210 * share));
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"rgb({},{},{})\"><title>rank "
          "{}, {:.1f}-{:.1f} ms: {:.0f}% in MPI</title></rect>\n",
          kLabelWidth + column * cell, y, cell, row, static_cast<int>(255 - 30 * share), green,
          blue, time.rank(), ms(static_cast<double>(from - first)),
          ms(static_cast<double>(to - first)), 100 * share);
    }
    y += row;
  }
  out += fmt::format(R"(<text x="{}" y="{}">0 ms</text>)", kLabelWidth, height - 6);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                     kLabelWidth + kHeatColumns * cell, height - 6,
                     duration(static_cast<double>(last - first)));
  out += "</svg>\n";
}

// Horizontal bars with a label each.
void bar_chart(std::string& out, std::string_view id,
               const std::vector<std::pair<std::string, double>>& bars, std::string_view colour,
               const std::function<std::string(double)>& label) {
  double largest = 0;
  for (const auto& [name, value] : bars) largest = std::max(largest, value);
  if (largest <= 0) largest = 1;
  constexpr int kRow = 20;
  constexpr int kNames = 380;
  out += fmt::format("<svg class=\"plot\" id=\"{}\" width=\"{}\" height=\"{}\" role=\"img\">\n", id,
                     kPlotWidth, static_cast<int>(bars.size()) * kRow + 4);
  int y = 0;
  for (const auto& [name, value] : bars) {
    const double width = value / largest * (kPlotWidth - kNames - 220);
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{}\" y=\"{}\" "
        "width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/><text x=\"{:.1f}\" y=\"{}\">{}</text>\n",
        kNames - 6, y + 14, escaped(name.size() > 60 ? name.substr(0, 57) + "..." : name), kNames,
        y + 2, std::max(width, 1.0), kRow - 4, colour, kNames + std::max(width, 1.0) + 4, y + 14,
        escaped(label(value)));
    y += kRow;
  }
  out += "</svg>\n";
}

void wait_states(std::string& out, const Summary& summary, double mpi_ns) {
  const WaitStateReport& report = summary.wait_states();
  out += "<h2>Wait states</h2>\n";
  if (!summary.gathers_wait_states()) {
    out += "<p>Not analysed (rocprof-merge --no-analysis).</p>\n";
    return;
  }
  if (report.empty()) {
    out += "<p>No rank waited for another in MPI.</p>\n";
    return;
  }
  out +=
      "<p>Time ranks spent in MPI only because another rank was not there yet "
      "(docs/ANALYSIS.md defines each pattern).</p>\n";
  std::vector<std::pair<std::string, double>> patterns;
  const auto totals = report.by_pattern();
  for (int p = 0; p < kWaitPatterns; ++p)
    if (totals[static_cast<std::size_t>(p)].count > 0)
      patterns.emplace_back(std::string(wait_pattern_name(static_cast<WaitPattern>(p))),
                            totals[static_cast<std::size_t>(p)].total_ns);
  bar_chart(out, "wait-patterns", patterns, kWaitColour, [&](double ns) {
    return fmt::format("{} ({:.1f}% of MPI time)", duration(ns),
                       mpi_ns > 0 ? 100 * ns / mpi_ns : 0.0);
  });
  out += "<h3>Top causes: the rank waited for and what it was doing</h3>\n";
  std::vector<std::pair<std::string, double>> causes;
  const auto by_cause = report.by_cause();
  for (std::size_t i = 0; i < by_cause.size() && i < kTopRows; ++i) {
    const auto& [key, total] = by_cause[i];
    causes.emplace_back(fmt::format("{}: rank {} in {}", wait_pattern_name(std::get<0>(key)),
                                    std::get<1>(key), std::get<2>(key)),
                        total.total_ns);
  }
  bar_chart(out, "wait-causes", causes, kWaitColour, [](double ns) { return duration(ns); });
  out +=
      "<h3>Top call paths</h3>\n<table><tr><th>pattern</th><th>waiting call</th><th>call "
      "path</th><th>instances</th><th>total (ms)</th></tr>\n";
  const auto by_path = report.by_call_path();
  for (std::size_t i = 0; i < by_path.size() && i < kTopRows; ++i) {
    const auto& [key, total] = by_path[i];
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3f}</td></tr>\n",
                       wait_pattern_name(std::get<0>(key)), escaped(std::get<1>(key)),
                       escaped(std::get<2>(key).empty() ? "(no region)" : std::get<2>(key)),
                       total.count, ms(total.total_ns));
  }
  out += "</table>\n";
}

void gpu(std::string& out, const Summary& summary) {
  out += "<h2>GPU</h2>\n";
  std::vector<std::pair<std::string, double>> utilisation;
  for (const auto& [key, values] : summary.counters().values())
    if (std::get<2>(key) == "GPU_UTIL")
      utilisation.emplace_back(fmt::format("{} {}", std::get<0>(key), std::get<1>(key)),
                               values.mean());
  if (!utilisation.empty()) {
    out += "<h3>Utilisation per device (mean of the samples)</h3>\n";
    bar_chart(out, "gpu-utilisation", utilisation, kGpuColour,
              [](double percent) { return fmt::format("{:.1f}%", percent); });
  }
  std::vector<std::tuple<double, std::string, std::uint64_t, double>> kernels;
  for (const auto& [name, per_rank] : summary.kernels()) {
    double total = 0;
    double largest = 0;
    std::uint64_t calls = 0;
    for (const auto& [rank, stat] : per_rank) {
      total += stat.total_ns;
      largest = std::max(largest, stat.max_ns);
      calls += stat.count;
    }
    kernels.emplace_back(total, name, calls, largest);
  }
  if (kernels.empty()) {
    out += "<p>No kernels recorded.</p>\n";
    return;
  }
  std::sort(kernels.begin(), kernels.end(), std::greater<>());
  out +=
      "<h3>Kernels by total time</h3>\n<table><tr><th>kernel</th><th>calls</th><th>total "
      "(ms)</th><th>mean (us)</th><th>longest (us)</th></tr>\n";
  for (std::size_t i = 0; i < kernels.size() && i < kTopRows; ++i) {
    const auto& [total, name, calls, largest] = kernels[i];
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.1f}</td><td>{:.1f}</td></tr>\n",
        escaped(name), calls, ms(total),
        total / static_cast<double>(std::max<std::uint64_t>(calls, 1)) / 1e3, largest / 1e3);
  }
  out += "</table>\n";
}

// Per region: its imbalance in total, and over the run as a line per iteration-like region.
void region_imbalance(std::string& out, const Summary& summary) {
  const std::vector<RegionImbalance> regions = summary.region_imbalance();
  out += "<h2>Region imbalance across ranks</h2>\n";
  if (regions.empty()) {
    out += summary.regions().empty()
               ? "<p>No region was recorded: ROC-TX ranges and user regions "
                 "(rocprof-mpi --marker-trace) mark the phases compared here.</p>\n"
               : "<p>No region was run by more than one rank.</p>\n";
    return;
  }
  out +=
      "<p>max / mean of the ranks' time in each region (1 = balanced). For regions every rank "
      "ran as often, the lines show it instance by instance over the run.</p>\n";
  constexpr std::array<std::string_view, 4> kColours{"#4e79a7", "#e15759", "#59a14f", "#b07aa1"};
  std::vector<const RegionImbalance*> lines;
  double highest = 1.0;
  for (const RegionImbalance& region : regions)
    if (region.over_time.size() > 1 && lines.size() < kColours.size()) {
      lines.push_back(&region);
      highest = std::max(highest, region.worst);
    }
  if (!lines.empty()) {
    constexpr int kHeight = 220;
    constexpr int kLeft = 50;
    const int width = kPlotWidth - kLeft - 20;
    out += fmt::format(
        "<svg class=\"plot\" id=\"region-imbalance\" width=\"{}\" height=\"{}\" "
        "role=\"img\">\n<rect x=\"{}\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" "
        "stroke=\"#ccc\"/>\n",
        kPlotWidth, kHeight + 24, kLeft, width, kHeight);
    auto y_of = [&](double value) {
      return kHeight - (value - 1.0) / std::max(highest - 1.0, 1e-9) * (kHeight - 10);
    };
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">1.00</text><text x=\"{}\" y=\"12\" "
        "text-anchor=\"end\">{:.2f}</text>\n",
        kLeft - 4, kHeight, kLeft - 4, highest);
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const RegionImbalance& region = *lines[l];
      std::string points;
      const double step =
          static_cast<double>(width) / static_cast<double>(region.over_time.size() - 1);
      for (std::size_t b = 0; b < region.over_time.size(); ++b)
        points += fmt::format("{:.1f},{:.1f} ", kLeft + static_cast<double>(b) * step,
                              y_of(region.over_time[b]));
      out += fmt::format(
          "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}"
          "</title></polyline>\n",
          points, kColours[l], escaped(region.name));
    }
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\">first instance</text><text x=\"{}\" y=\"{}\" "
        "text-anchor=\"end\">last instance</text>\n</svg>\n",
        kLeft, kHeight + 16, kLeft + width, kHeight + 16);
    out += "<p class=\"legend\">";
    for (std::size_t l = 0; l < lines.size(); ++l)
      out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", kColours[l],
                         escaped(lines[l]->name));
    out += "</p>\n";
  }
  out +=
      "<table><tr><th>region</th><th>ranks</th><th>instances per rank</th><th>mean per rank "
      "(ms)</th><th>max rank (ms)</th><th>slowest rank</th><th>imbalance</th><th>worst "
      "instance</th></tr>\n";
  for (std::size_t i = 0; i < regions.size() && i < kTopRows; ++i) {
    const RegionImbalance& r = regions[i];
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{}</td><td>{:.2f}"
        "</td><td>{}</td></tr>\n",
        escaped(r.name), r.ranks,
        r.instances == 0 ? std::string("varies") : fmt::format("{}", r.instances),
        ms(r.mean_total_ns), ms(r.max_total_ns), r.max_rank, r.imbalance(),
        r.over_time.empty() ? std::string("-")
                            : fmt::format("{:.2f} at {}", r.worst, r.worst_first));
  }
  out += "</table>\n";
}

void critical_path(std::string& out, const Summary& summary) {
  out += "<h2>Critical path</h2>\n";
  if (!summary.gathers_wait_states()) {
    out += "<p>Not found (rocprof-merge --no-analysis).</p>\n";
    return;
  }
  const CriticalPath& path = summary.critical_path();
  if (path.empty()) {
    out += "<p>No rank recorded anything.</p>\n";
    return;
  }
  out += fmt::format(
      "<p>The chain of work that set the job's length: {} in {} stretches over {} ranks, from "
      "the end of the last rank back through each wait to the rank waited for. Each instant "
      "goes to an MPI call, else GPU work in flight, else an API call, else the innermost "
      "region.</p>\n",
      duration(path.length_ns), path.stretches.size(), path.by_rank.size());
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& [name, ns] : path.activities()) {
    if (bars.size() == kTopRows) break;
    bars.emplace_back(activity_label(name), ns);
  }
  bar_chart(out, "critical-path", bars, "#76b7b2", [&](double ns) {
    return fmt::format("{} ({:.1f}%)", duration(ns), 100 * ns / path.length_ns);
  });
}

constexpr std::string_view kStyle = R"(<style>
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px 40px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; } p { max-width: 960px; }
svg.plot { display: block; margin: 8px 0; } svg text { font-size: 11px; fill: #333; }
table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.legend span { margin-right: 16px; font-size: 12px; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -1px; }
.facts td { border: none; padding: 1px 12px 1px 0; } .note { font-size: 11px; color: #666; }
</style>
)";

// Counts the plots the browser drew (boxes of some size with shapes in them) into the body's
// data-plots attribute and the console: what a test checks in a headless browser.
constexpr std::string_view kPlotCheck = R"(<script>
(function () {
  var drawn = 0;
  document.querySelectorAll('svg.plot').forEach(function (svg) {
    var box = svg.getBBox();
    if (box.width > 0 && box.height > 0 && svg.querySelectorAll('rect').length > 0) drawn++;
  });
  document.body.setAttribute('data-plots', String(drawn));
  console.info('rocprof-merge report: ' + drawn + ' plots drawn');
})();
</script>
)";

}  // namespace

std::string html_report(const Summary& summary, const ReportJob& job) {
  const std::vector<RankTime> times = summary.rank_times();
  const std::vector<RankSplit> splits = rank_splits(summary);
  double mpi = 0;
  double wait = 0;
  double wall = 0;
  double gpu_busy = 0;
  for (const RankSplit& split : splits) {
    mpi += split.transfer + split.polling + split.wait;
    wait += split.wait;
    wall += split.wall;
    gpu_busy += split.gpu;
  }
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out += fmt::format("<title>rocprof-mpi report: job {}</title>\n", escaped(job.job_id));
  out += kStyle;
  out += "</head><body>\n";
  out += fmt::format("<h1>rocprof-mpi report: job {}</h1>\n", escaped(job.job_id));
  out += "<table class=\"facts\">\n";
  out += fmt::format("<tr><td>Ranks</td><td>{}</td></tr>\n", summary.ranks());
  out += fmt::format("<tr><td>Rank time (all ranks)</td><td>{}</td></tr>\n", duration(wall));
  out += fmt::format("<tr><td>In MPI</td><td>{} ({:.1f}%)</td></tr>\n", duration(mpi),
                     wall > 0 ? 100 * mpi / wall : 0.0);
  out += fmt::format("<tr><td>Waiting for other ranks</td><td>{} ({:.1f}%)</td></tr>\n",
                     duration(wait), wall > 0 ? 100 * wait / wall : 0.0);
  out += fmt::format("<tr><td>GPU busy</td><td>{} ({:.1f}%)</td></tr>\n", duration(gpu_busy),
                     wall > 0 ? 100 * gpu_busy / wall : 0.0);
  out += fmt::format("<tr><td>Timeline</td><td>{}</td></tr>\n", escaped(job.timeline));
  out += "</table>\n";
  time_per_rank(out, splits);
  mpi_heatmap(out, times);
  wait_states(out, summary, mpi);
  region_imbalance(out, summary);
  gpu(out, summary);
  critical_path(out, summary);
  out +=
      "<p class=\"note\">Made by rocprof-merge from the job's rank files; open the timeline in "
      "Perfetto (ui.perfetto.dev) for the details.</p>\n";
  out += kPlotCheck;
  out += "</body></html>\n";
  return out;
}

bool write_html_report(const std::string& path, const Summary& summary, const ReportJob& job,
                       std::string& error) {
  const std::string text = html_report(summary, job);
  std::ofstream file(path, std::ios::binary);
  if (file) file.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!file || !file.flush()) {
    error = fmt::format("cannot write {}", path);
    return false;
  }
  return true;
}

}  // namespace rocprof::merge
