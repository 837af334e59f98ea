// The output formats the merge writes, each a sink (merge/export/sink.hpp) known by its
// extension. The built-in ones are registered in sink_registry.cpp; a program may add its own
// before it merges.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "merge/export/sink.hpp"

namespace rocprof::merge {

struct SinkEntry {
  std::string extension;    // ".pftrace": compared with the output's, case and all
  std::string description;  // "Perfetto": for help and error messages
  std::unique_ptr<Sink> (*make)();
};

class SinkRegistry {
 public:
  // Adds a format; false (and nothing added) when its extension is taken already.
  bool add(SinkEntry entry);
  // The format of an output path, by its extension; nullptr when none writes it.
  const SinkEntry* find(const std::string& path) const;
  // What the outputs are, for help and for the message refusing another extension:
  // ".pftrace (Perfetto), .otf2 (OTF2 archive) and ...".
  std::string known() const;

 private:
  std::vector<SinkEntry> entries_;
};

// The process's registry, the built-in formats in it.
SinkRegistry& sinks();

// The built-in sinks (each in its own file).
std::unique_ptr<Sink> make_perfetto_sink();
std::unique_ptr<Sink> make_otf2_sink();
std::unique_ptr<Sink> make_merged_hdf5_sink();
std::unique_ptr<Sink> make_chrome_json_sink();
std::unique_ptr<Sink> make_rocpd_sink();
std::unique_ptr<Sink> make_kineto_sink();

}  // namespace rocprof::merge
