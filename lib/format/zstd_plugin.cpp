// Entry points HDF5 looks for in a filter plugin found through HDF5_PLUGIN_PATH, so stock
// tools (h5dump, h5ls, h5py) read our zstd-compressed rank files.
#include <H5PLextern.h>

#include "lib/format/zstd_filter.hpp"

extern "C" {

__attribute__((visibility("default"))) H5PL_type_t H5PLget_plugin_type(void) {
  return H5PL_TYPE_FILTER;
}

__attribute__((visibility("default"))) const void* H5PLget_plugin_info(void) {
  return rocprof::format::zstd_filter_class();
}

}  // extern "C"
