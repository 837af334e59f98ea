// The output formats, found by the output's extension: every built-in sink's extension is
// known, others are refused with the list the message names, and each sink says how a
// parallel merge writes it.
#include <gtest/gtest.h>

#include <memory>

#include "merge/export/sink_registry.hpp"

namespace rocprof::merge {
namespace {

std::string extension_of(const SinkEntry* entry) {
  return entry == nullptr ? "" : entry->extension;
}

TEST(SinkRegistry, EachExtensionFindsItsSink) {
  EXPECT_EQ(extension_of(sinks().find("dir/trace.pftrace")), ".pftrace");
  EXPECT_EQ(extension_of(sinks().find("trace.json")), ".json");
  EXPECT_EQ(extension_of(sinks().find("/tmp/a.b/merged.h5")), ".h5");
  EXPECT_EQ(extension_of(sinks().find("archive.otf2")), ".otf2");
  EXPECT_EQ(extension_of(sinks().find("job.db")), ".db");
  EXPECT_EQ(extension_of(sinks().find("job.hta")), ".hta");
  EXPECT_EQ(sinks().find("trace.txt"), nullptr);
  EXPECT_EQ(sinks().find("pftrace"), nullptr);  // a name, no extension
  EXPECT_EQ(sinks().find("trace.PFTRACE"), nullptr);
  EXPECT_EQ(sinks().find("trace.h5/"), nullptr);  // a directory
}

TEST(SinkRegistry, PartsOrOneOutputTogether) {
  auto parallel = [](const char* path) { return sinks().find(path)->make()->parallel(); };
  EXPECT_EQ(parallel("a.pftrace"), Sink::Parallel::kParts);
  EXPECT_EQ(parallel("a.json"), Sink::Parallel::kParts);
  EXPECT_EQ(parallel("a.h5"), Sink::Parallel::kTogether);
  EXPECT_EQ(parallel("a.otf2"), Sink::Parallel::kTogether);
  EXPECT_EQ(parallel("a.db"), Sink::Parallel::kTogether);
  EXPECT_TRUE(sinks().find("a.otf2")->make()->archive());
  EXPECT_FALSE(sinks().find("a.h5")->make()->archive());
  EXPECT_EQ(sinks().known(),
            ".pftrace (Perfetto), .otf2 (OTF2 archive), .h5 (merged tables), .json (Chrome "
            "trace events), .db (rocpd database) and .hta (per-rank Kineto JSON for HTA)");
}

class NothingSink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kParts; }
  std::uint64_t write(const SinkJob& /*job*/) override { return 0; }
};
std::unique_ptr<Sink> make_nothing() { return std::make_unique<NothingSink>(); }

TEST(SinkRegistry, AFormatIsAddedOnceByItsExtension) {
  SinkRegistry registry;
  EXPECT_TRUE(registry.add({".none", "nothing", make_nothing}));
  EXPECT_FALSE(registry.add({".none", "nothing again", make_nothing}));
  EXPECT_FALSE(registry.add({"", "no extension", make_nothing}));
  EXPECT_FALSE(registry.add({".null", "no sink", nullptr}));
  EXPECT_EQ(registry.known(), ".none (nothing)");
  ASSERT_NE(registry.find("x.none"), nullptr);
  EXPECT_EQ(registry.find("x.none")->description, "nothing");
}

}  // namespace
}  // namespace rocprof::merge
