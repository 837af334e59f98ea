// Text made valid UTF-8 for every output, and made visible for a terminal (lib/format/text.hpp).
#include <gtest/gtest.h>

#include <string>

#include "lib/format/text.hpp"

namespace {

using rocprof::format::is_valid_utf8;
using rocprof::format::printable;
using rocprof::format::valid_utf8;

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(Text, ValidUtf8IsKeptByteForByte) {
  for (const std::string text : {"", "plain",
                                 "\xC3\xBC"
                                 "ber",
                                 "\xE2\x82\xAC 5", "\xF0\x9F\x9A\x80", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(is_valid_utf8(text)) << text;
    EXPECT_EQ(valid_utf8(text), text);
  }
}

TEST(Text, EachByteOutsideASequenceBecomesOneReplacement) {
  EXPECT_EQ(valid_utf8("bad\xFF\xFEname"), "bad" + kReplacement + kReplacement + "name");
  EXPECT_EQ(valid_utf8("\xC3"), kReplacement);                     // cut short at the end
  EXPECT_EQ(valid_utf8("\xC3x"), kReplacement + "x");              // cut short mid-text
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kReplacement + kReplacement);  // overlong '/'
  EXPECT_EQ(valid_utf8("\xE0\x80\xAF"), kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kReplacement + kReplacement + kReplacement);  // surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"),  // past U+10FFFF
            kReplacement + kReplacement + kReplacement + kReplacement);
  EXPECT_TRUE(is_valid_utf8(valid_utf8("\x80\xBF\xF8\xFF mixed \xE2\x82")));
}

TEST(Text, ControlCharactersAreShownNotSent) {
  EXPECT_EQ(printable("\x1B[31mred\x1B[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(printable("tab\there\x7F"), "tab\\x09here\\x7f");
  EXPECT_EQ(printable("c1 \xC2\x9B"
                      "2J"),
            "c1 \\u009b2J");  // the C1 CSI
  EXPECT_EQ(printable("\xC3\xBC"
                      "ber \xE2\x82\xAC"),
            "\xC3\xBC"
            "ber \xE2\x82\xAC");
}

}  // namespace
