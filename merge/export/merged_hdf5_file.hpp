#pragma once
// The writing process's side of a merged .h5 file: its tables' datasets, whole encoded chunks
// written as they come, and chunks shared by two processes' blocks assembled from their rows.
// Internal to the merged .h5 output (merged_hdf5.cpp); in namespace merged_hdf5.

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "lib/format/compression.hpp"
#include "lib/format/hdf5_util.hpp"
#include "lib/format/zstd_filter.hpp"
#include "merge/export/merged_hdf5_layout.hpp"

namespace rocprof::merge::merged_hdf5 {

using namespace rocprof::format;

// What the system said when HDF5 failed in a system call (a full file system, mostly): errno
// as HDF5 left it, if it set one.
inline std::string system_said(int code) {
  return code == 0 ? std::string(" (is the file system full?)")
                   : fmt::format(": {}", std::generic_category().message(code));
}

// The file side: the datasets, whole encoded chunks written as they come (in any order), and
// chunks shared by two processes' blocks assembled from their rows.
class FileTables {
 public:
  FileTables(hid_t file, std::string path,
             const std::vector<std::pair<std::string, const Layout*>>& tables)
      : path_(std::move(path)),
        layouts_(tables.size()),
        datasets_(tables.size()),
        extents_(tables.size(), 0),
        partial_(tables.size()) {
    for (std::size_t t = 0; t < tables.size(); ++t) {
      layouts_[t] = tables[t].second;
      names_.push_back(tables[t].first);
      groups_.emplace_back(
          H5Gcreate2(file, tables[t].first.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      for (const Column& column : layouts_[t]->columns) {
        const hsize_t zero = 0;
        const hsize_t unlimited = H5S_UNLIMITED;
        const hsize_t chunk = kChunk;
        const Handle space(H5Screate_simple(1, &zero, &unlimited));
        const Handle properties(H5Pcreate(H5P_DATASET_CREATE));
        H5Pset_chunk(properties.get(), 1, &chunk);
        add_filters(properties.get(), Compression{}, column_type_size(column.type));
        datasets_[t].emplace_back(H5Dcreate2(groups_.back().get(), column.name,
                                             column_hdf5_type(column.type), space.get(),
                                             H5P_DEFAULT, properties.get(), H5P_DEFAULT));
        if (!datasets_[t].back().valid())
          throw std::runtime_error(
              fmt::format("cannot create {}/{}", tables[t].first, column.name));
      }
    }
  }

  void write_encoded(std::size_t table, std::uint64_t chunk, std::uint64_t rows,
                     const std::vector<std::span<const std::byte>>& columns) {
    for (std::size_t c = 0; c < columns.size(); ++c)
      write_column(table, c, chunk, rows, columns[c]);
  }

  void write_column(std::size_t table, std::size_t column, std::uint64_t chunk, std::uint64_t rows,
                    std::span<const std::byte> stored) {
    const hsize_t first = chunk * kChunk;
    const hsize_t extent = std::max<hsize_t>(extents_[table], first + rows);
    const hid_t dataset = datasets_[table][column].get();
    errno = 0;
    if (stored.empty() || H5Dset_extent(dataset, &extent) < 0 ||
        H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, &first, stored.size(), stored.data()) < 0)
      throw std::runtime_error(
          fmt::format("cannot write {}: {} rows of {}/{} could not be stored{}", path_, rows,
                      names_[table], layouts_[table]->columns[column].name, system_said(errno)));
    if (column + 1 == datasets_[table].size()) extents_[table] = extent;
  }

  // Rows of a chunk shared by two blocks; the chunk is written once all of its `expected` rows
  // are in.
  void add_rows(std::size_t table, std::uint64_t chunk, std::uint64_t first, std::uint64_t count,
                std::uint64_t expected, const std::byte* rows, ChunkEncoder& encoder) {
    const std::size_t row_size = layouts_[table]->row_size;
    Partial& partial = partial_[table][chunk];
    partial.rows.resize(kChunk * row_size);
    std::memcpy(partial.rows.data() + first * row_size, rows, count * row_size);
    partial.count += count;
    if (partial.count < expected) return;
    encode_and_write(table, chunk, expected, partial.rows.data(), encoder);
    partial_[table].erase(chunk);
  }

  void encode_and_write(std::size_t table, std::uint64_t chunk, std::uint64_t row_count,
                        const std::byte* data, ChunkEncoder& encoder) {
    const Layout& layout = *layouts_[table];
    encoder.split_columns(data, layout.row_size, layout.fields, row_count, kChunk);
    // Each column as soon as it is encoded: the encoder reuses its output buffer.
    for (std::size_t c = 0; c < layout.columns.size(); ++c)
      write_column(table, c, chunk, row_count, encoder.encoded(c));
  }

  // Every table at its exact length; false if rows of a shared chunk never came.
  bool finish(const std::vector<std::uint64_t>& totals) {
    bool complete = true;
    for (std::size_t t = 0; t < datasets_.size(); ++t) {
      complete = complete && partial_[t].empty();
      const hsize_t extent = totals[t];
      for (const Handle& dataset : datasets_[t]) {
        errno = 0;
        if (H5Dset_extent(dataset.get(), &extent) < 0)
          throw std::runtime_error(
              fmt::format("cannot write {}: the length of {} could not be stored{}", path_,
                          names_[t], system_said(errno)));
      }
    }
    return complete;
  }

 private:
  struct Partial {
    std::vector<std::byte> rows;
    std::uint64_t count = 0;
  };
  std::string path_;
  std::vector<std::string> names_;
  std::vector<const Layout*> layouts_;
  std::vector<Handle> groups_;
  std::vector<std::vector<Handle>> datasets_;
  std::vector<hsize_t> extents_;
  std::vector<std::map<std::uint64_t, Partial>> partial_;
};

}  // namespace rocprof::merge::merged_hdf5
