// The output's format, told once by its extension: every exporter's extension is known,
// others are refused with the list the message names, and each format says how a parallel
// merge writes it.
#include <gtest/gtest.h>

#include "merge/files/output_format.hpp"

namespace rocprof::merge {
namespace {

TEST(OutputFormat, EachExtensionNamesItsFormat) {
  EXPECT_EQ(output_format_of("dir/trace.pftrace"), OutputFormat::kPerfetto);
  EXPECT_EQ(output_format_of("trace.json"), OutputFormat::kChromeJson);
  EXPECT_EQ(output_format_of("/tmp/a.b/merged.h5"), OutputFormat::kHdf5);
  EXPECT_EQ(output_format_of("archive.otf2"), OutputFormat::kOtf2);
  EXPECT_EQ(output_format_of("trace.txt"), std::nullopt);
  EXPECT_EQ(output_format_of("pftrace"), std::nullopt);  // a name, no extension
  EXPECT_EQ(output_format_of("trace.PFTRACE"), std::nullopt);
  EXPECT_EQ(output_format_of("trace.h5/"), std::nullopt);  // a directory
}

TEST(OutputFormat, PartsOrOneSharedOutput) {
  EXPECT_TRUE(written_in_parts(OutputFormat::kPerfetto));
  EXPECT_TRUE(written_in_parts(OutputFormat::kChromeJson));
  EXPECT_FALSE(written_in_parts(OutputFormat::kHdf5));
  EXPECT_FALSE(written_in_parts(OutputFormat::kOtf2));
  EXPECT_EQ(known_formats(),
            ".pftrace (Perfetto), .otf2 (OTF2 archive), .h5 (merged tables) and .json (Chrome "
            "trace events)");
}

}  // namespace
}  // namespace rocprof::merge
