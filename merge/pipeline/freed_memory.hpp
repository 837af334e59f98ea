// Handing freed memory back to the system between the merge's steps.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rocprof::merge {

// glibc keeps the pages a step freed inside its arenas (only memory at an arena's top goes
// back by itself), so without this the process's resident memory is about the sum of the
// steps' peaks (the writer's buffers, the summary's gathering, the analysis's rounds) instead
// of the largest. Costs milliseconds: called between steps, never on a hot path.
inline void return_freed_memory() noexcept {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace rocprof::merge
