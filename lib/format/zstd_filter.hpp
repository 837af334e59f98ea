// The zstd HDF5 filter (registered filter id 32015) used by rank files: registered in-process
// by our writer and reader, and built as a plugin for stock tools (h5dump, h5py).
#pragma once

#include <hdf5.h>

namespace rocprof::format {

// The id HDF5 registered for Zstandard; h5py's hdf5plugin and other readers use it too.
inline constexpr H5Z_filter_t kZstdFilterId = 32015;

// The filter's class description (also what the plugin entry point returns).
const H5Z_class2_t* zstd_filter_class() noexcept;

// Registers the filter with the HDF5 library in this process; idempotent. False if HDF5
// refused it.
bool register_zstd_filter() noexcept;

}  // namespace rocprof::format
