// rocprof_mpi_intercept_api_table with bad arguments, tables of other runtimes, and a second
// HSA runtime: only the first HSA table is wrapped, the others are accepted untouched.
#define AMD_INTERNAL_BUILD 1
#include <gtest/gtest.h>
#include <hsa/hsa_api_trace.h>

#include <string>

#include <rocprof-mpi/api_tables.h>

namespace {

hsa_status_t own_shut_down() { return HSA_STATUS_SUCCESS; }

TEST(InterceptApiTable, BadArgumentsAreRefused) {
  EXPECT_EQ(rocprof_mpi_intercept_api_table(nullptr, nullptr, 0), -1);
  EXPECT_EQ(rocprof_mpi_intercept_api_table("hsa", nullptr, 1), -1);
}

TEST(InterceptApiTable, OnlyTheFirstHsaRuntimeIsWrapped) {
  HsaApiTableContainer first;
  HsaApiTableContainer second;
  HsaApiTableContainer other;
  for (HsaApiTableContainer* tables : {&first, &second, &other})
    tables->core.hsa_shut_down_fn = &own_shut_down;
  void* other_tables[] = {&other.root};
  EXPECT_EQ(rocprof_mpi_intercept_api_table("hip", other_tables, 1), 0);
  EXPECT_EQ(other.core.hsa_shut_down_fn, &own_shut_down);  // not an HSA table: untouched

  void* first_tables[] = {&first.root};
  ASSERT_EQ(rocprof_mpi_intercept_api_table("hsa", first_tables, 1), 0);
  EXPECT_NE(first.core.hsa_shut_down_fn, &own_shut_down);
  EXPECT_EQ(first.core.hsa_shut_down_fn(), HSA_STATUS_SUCCESS);  // through to our function
  // The same table again: already wrapped, quietly.
  testing::internal::CaptureStderr();
  EXPECT_EQ(rocprof_mpi_intercept_api_table("hsa", first_tables, 1), 0);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");

  void* second_tables[] = {&second.root};
  testing::internal::CaptureStderr();
  EXPECT_EQ(rocprof_mpi_intercept_api_table("hsa", second_tables, 1), 0);
  EXPECT_EQ(rocprof_mpi_intercept_api_table("hsa", second_tables, 1), 0);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(second.core.hsa_shut_down_fn, &own_shut_down);
  EXPECT_EQ(said, "rocprof-mpi: a second HSA runtime's API table is not traced\n");  // once
}

}  // namespace
