#include "merge/export/merged_hdf5_analysis.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "lib/format/hdf5_util.hpp"

namespace rocprof::merge {
namespace {

using format::Handle;

constexpr hsize_t kChunkRows = 16384;

// A table as the merged file keeps its tables: a group with a dataset per column, every
// column as long as the others; chunked and compressed with deflate, which every HDF5
// library has.
class ColumnGroup {
 public:
  ColumnGroup(hid_t parent, const std::string& name) : name_(name) {
    group_ = Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (!group_.valid()) throw std::runtime_error(fmt::format("cannot create the table {}", name));
  }

  template <typename T>
  ColumnGroup& column(const char* name, hid_t type, const std::vector<T>& values) {
    const Handle dataset = empty_column(name, type, values.size());
    write_rows(dataset.get(), name, type, 0, values);
    return *this;
  }

  // A column of `count` rows to be written a piece at a time (write_rows).
  Handle empty_column(const char* name, hid_t type, hsize_t count) {
    const hsize_t unlimited = H5S_UNLIMITED;
    const Handle space(H5Screate_simple(1, &count, &unlimited));
    const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
    const hsize_t chunk = std::clamp<hsize_t>(count, 1, kChunkRows);
    H5Pset_chunk(properties.get(), 1, &chunk);
    H5Pset_deflate(properties.get(), 1);
    Handle dataset(H5Dcreate2(group_.get(), name, type, space.get(), H5P_DEFAULT, properties.get(),
                              H5P_DEFAULT));
    if (!dataset.valid())
      throw std::runtime_error(fmt::format("cannot write the column {}/{}", name_, name));
    return dataset;
  }

  // `values` as rows [at, at + values.size()) of a column.
  template <typename T>
  void write_rows(hid_t dataset, const char* name, hid_t type, hsize_t at,
                  const std::vector<T>& values) {
    if (values.empty()) return;
    const hsize_t count = values.size();
    const Handle memory(H5Screate_simple(1, &count, nullptr));
    const Handle file(H5Dget_space(dataset));
    if (!memory.valid() || !file.valid() ||
        H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, &at, nullptr, &count, nullptr) < 0 ||
        H5Dwrite(dataset, type, memory.get(), file.get(), H5P_DEFAULT, values.data()) < 0)
      throw std::runtime_error(fmt::format("cannot write the column {}/{}", name_, name));
  }

  ColumnGroup& text(const char* name, const std::vector<std::string>& values) {
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const std::string& value : values) pointers.push_back(value.c_str());
    return column(name, text_type_.get(), pointers);
  }

  hid_t get() const noexcept { return group_.get(); }

 private:
  static Handle make_text_type() {
    Handle type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    return type;
  }

  std::string name_;
  Handle group_;
  Handle text_type_ = make_text_type();
};

// The wait patterns as an HDF5 enumeration (readers see the names).
Handle pattern_type() {
  Handle type(H5Tenum_create(H5T_NATIVE_UINT8));
  for (int p = 0; p < kWaitPatterns; ++p) {
    const auto value = static_cast<std::uint8_t>(p);
    const std::string name(wait_pattern_name(static_cast<WaitPattern>(p)));
    H5Tenum_insert(type.get(), name.c_str(), &value);
  }
  return type;
}

std::string pattern_name(WaitPattern pattern) { return std::string(wait_pattern_name(pattern)); }

// Per pattern, waiting rank, call path, function, awaited rank and cause (the CSV's rows).
void write_waits(hid_t analysis, const WaitStateReport& waits) {
  std::vector<std::string> patterns, call_paths, functions, causes;
  std::vector<std::int32_t> ranks, awaited;
  std::vector<std::uint64_t> counts;
  std::vector<double> totals;
  for (const auto& [key, sum] : waits.waits) {
    const auto& [pattern, rank, call_path, function, awaited_rank, cause] = key;
    patterns.push_back(pattern_name(pattern));
    ranks.push_back(rank);
    awaited.push_back(awaited_rank);
    call_paths.push_back(call_path);
    functions.push_back(function);
    causes.push_back(cause);
    counts.push_back(sum.count);
    totals.push_back(sum.total_ns);
  }
  ColumnGroup(analysis, "waits")
      .text("pattern", patterns)
      .column("rank", H5T_NATIVE_INT32, ranks)
      .column("awaited_rank", H5T_NATIVE_INT32, awaited)
      .text("call_path", call_paths)
      .text("function", functions)
      .text("cause", causes)
      .column("count", H5T_NATIVE_UINT64, counts)
      .column("total_ns", H5T_NATIVE_DOUBLE, totals);
}

// Each wait on its own, by waiting rank and time; `cause` indexes the `causes` dataset. The
// edges are read a piece at a time (a job's may not fit in memory).
void write_wait_instances(hid_t analysis, const WaitStateReport& waits) {
  const hsize_t rows = waits.edges.size();
  const Handle pattern = pattern_type();
  ColumnGroup table(analysis, "wait_instances");
  const Handle rank = table.empty_column("rank", H5T_NATIVE_INT32, rows);
  const Handle begin = table.empty_column("begin_ns", H5T_NATIVE_UINT64, rows);
  const Handle end = table.empty_column("end_ns", H5T_NATIVE_UINT64, rows);
  const Handle kind = table.empty_column("pattern", pattern.get(), rows);
  const Handle awaited = table.empty_column("awaited_rank", H5T_NATIVE_INT32, rows);
  const Handle cause = table.empty_column("cause", H5T_NATIVE_UINT32, rows);
  std::vector<std::int32_t> ranks, awaited_ranks;
  std::vector<std::uint64_t> begins, ends;
  std::vector<std::uint8_t> patterns;
  std::vector<std::uint32_t> causes;
  hsize_t at = 0;
  waits.edges.for_each_piece([&](std::span<const WaitEdge> piece) {
    ranks.clear();
    awaited_ranks.clear();
    begins.clear();
    ends.clear();
    patterns.clear();
    causes.clear();
    for (const WaitEdge& edge : piece) {
      ranks.push_back(edge.waiting);
      begins.push_back(edge.from);
      ends.push_back(edge.to);
      patterns.push_back(static_cast<std::uint8_t>(edge.pattern));
      awaited_ranks.push_back(edge.awaited);
      causes.push_back(edge.cause);
    }
    table.write_rows(rank.get(), "rank", H5T_NATIVE_INT32, at, ranks);
    table.write_rows(begin.get(), "begin_ns", H5T_NATIVE_UINT64, at, begins);
    table.write_rows(end.get(), "end_ns", H5T_NATIVE_UINT64, at, ends);
    table.write_rows(kind.get(), "pattern", pattern.get(), at, patterns);
    table.write_rows(awaited.get(), "awaited_rank", H5T_NATIVE_INT32, at, awaited_ranks);
    table.write_rows(cause.get(), "cause", H5T_NATIVE_UINT32, at, causes);
    at += piece.size();
  });
  if (!format::write_string_dataset(analysis, "causes", waits.causes))
    throw std::runtime_error("cannot write the analysis's causes");
}

void write_critical_path(hid_t analysis, const CriticalPath& path) {
  std::vector<std::int32_t> ranks;
  std::vector<std::uint64_t> begins, ends;
  // The path is found latest first; written in time order.
  for (auto stretch = path.stretches.rbegin(); stretch != path.stretches.rend(); ++stretch) {
    ranks.push_back(stretch->rank);
    begins.push_back(stretch->from);
    ends.push_back(stretch->to);
  }
  ColumnGroup(analysis, "critical_path")
      .column("rank", H5T_NATIVE_INT32, ranks)
      .column("begin_ns", H5T_NATIVE_UINT64, begins)
      .column("end_ns", H5T_NATIVE_UINT64, ends);

  std::vector<std::string> names;
  std::vector<double> totals, shares;
  for (const auto& [name, ns] : path.activities()) {
    names.push_back(name);
    totals.push_back(ns);
    shares.push_back(path.length_ns > 0 ? ns / path.length_ns : 0.0);
  }
  ColumnGroup(analysis, "critical_path_activities")
      .text("activity", names)
      .column("total_ns", H5T_NATIVE_DOUBLE, totals)
      .column("share", H5T_NATIVE_DOUBLE, shares);
}

void write_imbalance(hid_t analysis, const std::vector<RegionImbalance>& regions) {
  std::vector<std::string> names;
  std::vector<std::uint64_t> ranks, instances;
  std::vector<double> means, maxima, ratios;
  std::vector<std::int32_t> max_ranks;
  std::vector<std::string> bucket_names;
  std::vector<std::uint64_t> firsts, lasts;
  std::vector<double> bucket_ratios;
  for (const RegionImbalance& r : regions) {
    names.push_back(r.name);
    ranks.push_back(r.ranks);
    instances.push_back(r.instances);
    means.push_back(r.mean_total_ns);
    maxima.push_back(r.max_total_ns);
    max_ranks.push_back(r.max_rank);
    ratios.push_back(r.imbalance());
    for (std::size_t b = 0; b < r.over_time.size(); ++b) {
      const auto [first, last] = r.bucket_instances(b);
      bucket_names.push_back(r.name);
      firsts.push_back(first);
      lasts.push_back(last);
      bucket_ratios.push_back(r.over_time[b]);
    }
  }
  ColumnGroup(analysis, "region_imbalance")
      .text("region", names)
      .column("ranks", H5T_NATIVE_UINT64, ranks)
      .column("instances", H5T_NATIVE_UINT64, instances)
      .column("mean_total_ns", H5T_NATIVE_DOUBLE, means)
      .column("max_total_ns", H5T_NATIVE_DOUBLE, maxima)
      .column("max_rank", H5T_NATIVE_INT32, max_ranks)
      .column("imbalance", H5T_NATIVE_DOUBLE, ratios);
  ColumnGroup(analysis, "region_imbalance_over_time")
      .text("region", bucket_names)
      .column("first_instance", H5T_NATIVE_UINT64, firsts)
      .column("last_instance", H5T_NATIVE_UINT64, lasts)
      .column("imbalance", H5T_NATIVE_DOUBLE, bucket_ratios);
}

}  // namespace

bool add_analysis_to_merged_hdf5(const std::string& path, const JobAnalysis& analysis,
                                 std::string& error) {
  const format::QuietErrors quiet;
  try {
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    if (!file.valid()) throw std::runtime_error("cannot open it to add the analysis");
    {
      const Handle group(H5Gcreate2(file.get(), "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      if (!group.valid()) throw std::runtime_error("cannot create its analysis group");
      const bool waits = analysis.waits != nullptr && analysis.critical_path != nullptr;
      format::write_attribute(group.get(), "wait_states_analysed", std::uint32_t{waits ? 1u : 0u});
      if (waits) {
        format::write_attribute(group.get(), "mismatched_collectives",
                                analysis.waits->mismatched_collectives);
        format::write_attribute(
            group.get(), "critical_path_length_ns",
            static_cast<std::uint64_t>(std::llround(analysis.critical_path->length_ns)));
        // The window the waits and the path lie in (--window): "" for the whole run.
        format::write_attribute(group.get(), "window", analysis.critical_path->window);
        if (!analysis.critical_path->window.empty()) {
          format::write_attribute(group.get(), "window_begin_ns",
                                  analysis.critical_path->window_begin_ns);
          format::write_attribute(group.get(), "window_end_ns",
                                  analysis.critical_path->window_end_ns);
        }
        write_waits(group.get(), *analysis.waits);
        write_wait_instances(group.get(), *analysis.waits);
        write_critical_path(group.get(), *analysis.critical_path);
      }
      if (analysis.imbalance != nullptr) write_imbalance(group.get(), *analysis.imbalance);
    }
    // Checked: the tables' last metadata is written at the close.
    if (H5Fclose(file.release_without_close()) < 0)
      throw std::runtime_error("cannot close it after adding the analysis");
  } catch (const std::exception& failure) {
    const std::string said = format::hdf5_error_text();
    error = fmt::format("{}: {}{}", path, failure.what(), said.empty() ? "" : " (" + said + ")");
    return false;
  }
  return true;
}

}  // namespace rocprof::merge
