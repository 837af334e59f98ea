// A scratch directory for one GoogleTest test: under the system's temporary directory, named
// by `prefix`, the process and the test (so parallel ctest runs never share one), emptied and
// created. A parameterised test's name ("Name/0") is flattened, so that the directory the
// test removes at its end is the one it was given.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace rocprof::test {

inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ranges::replace(test, '/', '_');
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    (prefix + "_" + std::to_string(::getpid()) + "_" + test);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace rocprof::test
