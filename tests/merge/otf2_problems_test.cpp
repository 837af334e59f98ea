// Otf2Problems: while one is alive, what libotf2 says goes nowhere but into it (the first
// problem kept, naming the file), and it is what throw_if_any reports; once it is gone,
// libotf2 prints again. The problems are real ones: an archive asked for under a regular file.
#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "merge/export/otf2_problems.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using rocprof::merge::Otf2Problems;

// An archive under `parent/sub`, opened and closed: libotf2 fails to make its directory and
// anchor file when `parent` is a regular file (what its calls return does not matter here).
void write_archive_under(const fs::path& parent) {
  OTF2_Archive* archive =
      OTF2_Archive_Open((parent / "sub").c_str(), "trace", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr) return;
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_Close(archive);
}

class Otf2ProblemsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = rocprof::test::fresh_test_dir("otf2_problems");
    std::ofstream(dir_ / "a_file") << "not a directory";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Otf2ProblemsTest, KeepsTheFirstProblemQuietlyAndReportsIt) {
  const fs::path parent = dir_ / "a_file";
  std::string first;
  ::testing::internal::CaptureStderr();
  {
    const Otf2Problems problems;
    EXPECT_TRUE(problems.first().empty());
    problems.throw_if_any("unused");  // nothing yet: no throw
    write_archive_under(parent);
    first = problems.first();
    try {
      problems.throw_if_any("out.otf2");
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()), "cannot write out.otf2: " + first);
    }
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(first.find("This is not a directory"), std::string::npos) << first;
  EXPECT_NE(first.find((parent / "sub").string()), std::string::npos) << first;
  EXPECT_FALSE(fs::exists(parent / "sub"));
}

TEST_F(Otf2ProblemsTest, LibOtf2PrintsAgainOnceItIsGone) {
  { const Otf2Problems problems; }
  ::testing::internal::CaptureStderr();
  write_archive_under(dir_ / "a_file");
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("[OTF2]"), std::string::npos) << printed;
}

}  // namespace
