// Connects the tracer to libroctx64 so ROC-TX calls reach ROCTX callbacks and pools.
#pragma once

namespace rocprof::core {

// Attaches to libroctx64 (loading it by soname if the application has not), once. Safe to
// call repeatedly; a missing libroctx64 leaves the ROCTX domain silent, not an error.
void attach_roctx();

}  // namespace rocprof::core
