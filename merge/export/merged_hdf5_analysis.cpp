#include "merge/export/merged_hdf5_analysis.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "lib/format/compression.hpp"
#include "lib/format/hdf5_util.hpp"

namespace rocprof::merge {
namespace {

using format::Handle;

constexpr hsize_t kChunkRows = 16384;
// Deflate, which every HDF5 library has (the rank tables' zstd needs a plugin to read).
constexpr format::Compression kCompression{format::Codec::kDeflate, 1};

// A table as the merged file keeps its tables: a group with a dataset per column, every
// column as long as the others; chunked, shuffled and deflated (kCompression).
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

  // A column of `count` rows, written after (write_rows, or its chunks stored whole).
  Handle empty_column(const char* name, hid_t type, hsize_t count) {
    const hsize_t unlimited = H5S_UNLIMITED;
    const Handle space(H5Screate_simple(1, &count, &unlimited));
    const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
    const hsize_t chunk = std::clamp<hsize_t>(count, 1, kChunkRows);
    if (H5Pset_chunk(properties.get(), 1, &chunk) < 0 ||
        !format::add_filters(properties.get(), kCompression, H5Tget_size(type)))
      throw std::runtime_error(fmt::format("cannot write the column {}/{}", name_, name));
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
  std::vector<std::string> patterns;
  std::vector<std::string> call_paths;
  std::vector<std::string> functions;
  std::vector<std::string> causes;
  std::vector<std::int32_t> ranks;
  std::vector<std::int32_t> awaited;
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

// The wait instances' chunks encoded on several threads by the format's own encoder (shuffle,
// then deflate: what the columns' filters say) and stored as they are (H5Dwrite_chunk), so that
// a large job's waits do not all go through one thread's deflate.
class EdgeChunks {
 public:
  EdgeChunks(std::vector<hid_t> datasets, hsize_t chunk_rows)
      : datasets_(std::move(datasets)), chunk_rows_(chunk_rows) {
    for (unsigned t = 0; t < threads_; ++t)
      encoders_.push_back(std::make_unique<format::ChunkEncoder>(kCompression));
  }

  // `edges` as rows [first, first + edges.size()), `first` a multiple of the chunk.
  void write(hsize_t first, std::span<const WaitEdge> edges) {
    const std::size_t rows = chunk_rows_;
    const std::size_t chunks = (edges.size() + rows - 1) / rows;
    std::vector<std::vector<std::vector<std::byte>>> stored(chunks);
    const auto encode = [&](format::ChunkEncoder& encoder, std::size_t chunk) {
      const std::size_t from = chunk * rows;
      encoder.split_columns(reinterpret_cast<const std::byte*>(edges.data() + from),
                            sizeof(WaitEdge), kFields, std::min(rows, edges.size() - from), rows);
      for (std::size_t field = 0; field < kFields.size(); ++field) {
        const std::span<const std::byte> bytes = encoder.encoded(field);
        if (bytes.empty()) throw std::runtime_error("cannot compress the wait instances");
        stored[chunk].emplace_back(bytes.begin(), bytes.end());
      }
    };
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> failures(threads_);
    for (unsigned t = 0; t < threads_; ++t)
      threads.emplace_back([&, t] {
        try {
          for (std::size_t chunk = t; chunk < chunks; chunk += threads_)
            encode(*encoders_[t], chunk);
        } catch (...) {
          failures[t] = std::current_exception();
        }
      });
    for (std::thread& thread : threads) thread.join();
    for (const std::exception_ptr& failure : failures)
      if (failure) std::rethrow_exception(failure);
    for (std::size_t chunk = 0; chunk < chunks; ++chunk)
      for (std::size_t field = 0; field < kFields.size(); ++field) {
        const hsize_t at = first + chunk * chunk_rows_;
        const std::vector<std::byte>& bytes = stored[chunk][field];
        if (H5Dwrite_chunk(datasets_[field], H5P_DEFAULT, 0, &at, bytes.size(), bytes.data()) < 0)
          throw std::runtime_error("cannot write the wait instances");
      }
  }

  // The columns in the order of the datasets: rank, begin_ns, end_ns, pattern, awaited_rank,
  // cause.
  static constexpr std::array<format::ChunkEncoder::Field, 6> kFields{{
      {offsetof(WaitEdge, waiting), sizeof(WaitEdge::waiting)},
      {offsetof(WaitEdge, from), sizeof(WaitEdge::from)},
      {offsetof(WaitEdge, to), sizeof(WaitEdge::to)},
      {offsetof(WaitEdge, pattern), sizeof(WaitEdge::pattern)},
      {offsetof(WaitEdge, awaited), sizeof(WaitEdge::awaited)},
      {offsetof(WaitEdge, cause), sizeof(WaitEdge::cause)},
  }};

 private:
  std::vector<hid_t> datasets_;
  hsize_t chunk_rows_;
  unsigned threads_ = std::clamp(std::thread::hardware_concurrency(), 1U, 8U);
  std::vector<std::unique_ptr<format::ChunkEncoder>> encoders_;
};

// Each wait on its own, by waiting rank and time; `cause` indexes the `causes` dataset. The
// edges are read a piece at a time (a job's may not fit in memory).
void write_wait_instances(hid_t analysis, const WaitStateReport& waits) {
  const hsize_t rows = waits.edges.size();
  const Handle pattern = pattern_type();
  ColumnGroup table(analysis, "wait_instances");
  const std::vector<Handle> datasets = [&] {
    std::vector<Handle> made;
    made.push_back(table.empty_column("rank", H5T_NATIVE_INT32, rows));
    made.push_back(table.empty_column("begin_ns", H5T_NATIVE_UINT64, rows));
    made.push_back(table.empty_column("end_ns", H5T_NATIVE_UINT64, rows));
    made.push_back(table.empty_column("pattern", pattern.get(), rows));
    made.push_back(table.empty_column("awaited_rank", H5T_NATIVE_INT32, rows));
    made.push_back(table.empty_column("cause", H5T_NATIVE_UINT32, rows));
    return made;
  }();
  if (rows == 0) return;
  hsize_t chunk_rows = 0;
  {
    const Handle properties(H5Dget_create_plist(datasets[0].get()));
    if (!properties.valid() || H5Pget_chunk(properties.get(), 1, &chunk_rows) != 1)
      throw std::runtime_error("cannot read the wait instances' chunk");
  }
  std::vector<hid_t> ids(datasets.size());
  std::transform(datasets.begin(), datasets.end(), ids.begin(),
                 [](const Handle& dataset) { return dataset.get(); });
  EdgeChunks chunks(ids, chunk_rows);
  // Edges gather into whole chunks (the pieces read back need not be), a few per thread.
  std::vector<WaitEdge> batch;
  batch.reserve(static_cast<std::size_t>(chunk_rows) * 32);
  hsize_t first = 0;
  const auto flush = [&] {
    chunks.write(first, batch);
    first += batch.size();
    batch.clear();
  };
  waits.edges.for_each_piece([&](std::span<const WaitEdge> piece) {
    for (const WaitEdge& edge : piece) {
      batch.push_back(edge);
      if (batch.size() == batch.capacity()) flush();
    }
  });
  if (!batch.empty()) flush();
}

void write_causes(hid_t analysis, const WaitStateReport& waits) {
  if (!format::write_string_dataset(analysis, "causes", waits.causes))
    throw std::runtime_error("cannot write the analysis's causes");
}

void write_critical_path(hid_t analysis, const CriticalPath& path) {
  std::vector<std::int32_t> ranks;
  std::vector<std::uint64_t> begins;
  std::vector<std::uint64_t> ends;
  // The path is found latest first; written in time order.
  for (std::size_t i = path.stretches.size(); i-- > 0;) {
    const CriticalPath::Stretch& stretch = path.stretches[i];
    ranks.push_back(stretch.rank);
    begins.push_back(stretch.from);
    ends.push_back(stretch.to);
  }
  ColumnGroup(analysis, "critical_path")
      .column("rank", H5T_NATIVE_INT32, ranks)
      .column("begin_ns", H5T_NATIVE_UINT64, begins)
      .column("end_ns", H5T_NATIVE_UINT64, ends);

  std::vector<std::string> names;
  std::vector<double> totals;
  std::vector<double> shares;
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
  std::vector<std::uint64_t> ranks;
  std::vector<std::uint64_t> instances;
  std::vector<double> means;
  std::vector<double> maxima;
  std::vector<double> ratios;
  std::vector<std::int32_t> max_ranks;
  std::vector<std::string> bucket_names;
  std::vector<std::uint64_t> firsts;
  std::vector<std::uint64_t> lasts;
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
      format::write_attribute(group.get(), "wait_states_analysed", std::uint32_t{waits ? 1U : 0U});
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
        write_causes(group.get(), *analysis.waits);
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
