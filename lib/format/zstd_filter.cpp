#include "lib/format/zstd_filter.hpp"

#include <zstd.h>

#include <cstdlib>
#include <cstring>

namespace rocprof::format {
namespace {

// Contexts are reused per thread: creating one per chunk costs more than compressing it.
struct ZstdContexts {
  ZSTD_CCtx* compress = ZSTD_createCCtx();
  ZSTD_DCtx* decompress = ZSTD_createDCtx();
  ~ZstdContexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};
thread_local ZstdContexts tl_contexts;

// HDF5 filter callback. cd_values[0], when given, is the compression level. On success the
// filtered bytes replace *buffer (HDF5 frees the old one); 0 reports failure to HDF5.
size_t zstd_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                   size_t nbytes, size_t* buffer_size, void** buffer) {
  if ((flags & H5Z_FLAG_REVERSE) != 0) {
    const unsigned long long content = ZSTD_getFrameContentSize(*buffer, nbytes);
    if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN) return 0;
    void* output = std::malloc(content == 0 ? 1 : content);
    if (output == nullptr) return 0;
    const size_t got =
        ZSTD_decompressDCtx(tl_contexts.decompress, output, content, *buffer, nbytes);
    if (ZSTD_isError(got) || got != content) {
      std::free(output);
      return 0;
    }
    std::free(*buffer);
    *buffer = output;
    *buffer_size = content;
    return got;
  }
  const int level = cd_nelmts > 0 ? static_cast<int>(cd_values[0]) : 1;
  const size_t bound = ZSTD_compressBound(nbytes);
  void* output = std::malloc(bound);
  if (output == nullptr) return 0;
  const size_t written =
      ZSTD_compressCCtx(tl_contexts.compress, output, bound, *buffer, nbytes, level);
  if (ZSTD_isError(written)) {
    std::free(output);
    return 0;
  }
  std::free(*buffer);
  *buffer = output;
  *buffer_size = bound;
  return written;
}

const H5Z_class2_t kZstdClass = {
    H5Z_CLASS_T_VERS, kZstdFilterId, 1,           1, "Zstandard compression: http://www.zstd.net",
    nullptr,          nullptr,       zstd_filter,
};

}  // namespace

const H5Z_class2_t* zstd_filter_class() noexcept { return &kZstdClass; }

bool register_zstd_filter() noexcept {
  if (H5Zfilter_avail(kZstdFilterId) > 0) return true;
  return H5Zregister(&kZstdClass) >= 0;
}

}  // namespace rocprof::format
