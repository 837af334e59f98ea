#pragma once
// The merged trace's formats, told by the output's extension once, and what each asks of a
// parallel merge.

#include <optional>
#include <string>

namespace rocprof::merge {

enum class OutputFormat {
  kPerfetto,    // .pftrace
  kChromeJson,  // .json (Chrome trace events)
  kHdf5,        // .h5 (merged tables)
  kOtf2,        // .otf2 (an OTF2 archive: the anchor file beside its directories)
};

// From the output's path; nullopt for an extension no exporter writes.
std::optional<OutputFormat> output_format_of(const std::string& path);

// What the outputs are, for the message refusing another extension.
std::string known_formats();

// In a parallel merge, each process writes its block of ranks as a part and the parts are
// joined in order (true), or the processes write one output together (false: HDF5 chunks go
// to the first process, OTF2 writes collectively).
bool written_in_parts(OutputFormat format);

}  // namespace rocprof::merge
