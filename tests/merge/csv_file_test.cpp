// The summary's CSV files: text fields stay one field whatever they hold, and a file that
// cannot be written is told by its name.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "merge/files/csv_file.hpp"

namespace rocprof::merge {
namespace {

TEST(CsvFile, TextWithCommasAndQuotesIsOneQuotedField) {
  EXPECT_EQ(csv_text("compute"), "\"compute\"");
  EXPECT_EQ(csv_text("solve > exchange, halo"), "\"solve > exchange, halo\"");
  EXPECT_EQ(csv_text("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_text(""), "\"\"");
}

TEST(CsvFile, WritesItsHeaderAndRows) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("csv_file_test_" + std::to_string(::getpid()));
  CsvFile file(path.string(), "name,count");
  file.row("{},{}", csv_text("a,b"), 3);
  std::string error;
  ASSERT_TRUE(file.close(error)) << error;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "name,count\n\"a,b\",3\n");
  std::filesystem::remove(path);
}

TEST(CsvFile, AFileThatCannotBeWrittenIsToldByItsName) {
  CsvFile file("/nonexistent/directory/x.csv", "a");
  file.row("{}", 1);
  std::string error;
  EXPECT_FALSE(file.close(error));
  EXPECT_EQ(error, "cannot write /nonexistent/directory/x.csv");
}

}  // namespace
}  // namespace rocprof::merge
