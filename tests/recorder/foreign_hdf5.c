/* Stands in for an application's own HDF5 build, preloaded ahead of the recorder: answers
 * the recorder's version and thread-safety questions as FOREIGN_HDF5 says ("1.14" or
 * "unsafe"); the recorder must then turn tracing off. */
#include <stdlib.h>
#include <string.h>

typedef int herr_t;
typedef _Bool hbool_t_compat;

__attribute__((visibility("default"))) herr_t H5get_libversion(unsigned* major, unsigned* minor,
                                                               unsigned* release) {
  const char* mode = getenv("FOREIGN_HDF5");
  *major = 1;
  *minor = mode != NULL && strcmp(mode, "1.14") == 0 ? 14 : 10;
  *release = 0;
  return 0;
}

__attribute__((visibility("default"))) herr_t H5is_library_threadsafe(hbool_t_compat* safe) {
  const char* mode = getenv("FOREIGN_HDF5");
  *safe = !(mode != NULL && strcmp(mode, "unsafe") == 0);
  return 0;
}
