// The rocprofiler-systems user API without a profiler in the process: calls are no-ops that
// say so, and configure combines callback tables as each mode says.
#include <gtest/gtest.h>
#include <rocprofiler-systems/user.h>

#include <string>
#include <vector>

namespace {

std::vector<std::string> calls;

int start() {
  calls.emplace_back("start");
  return ROCPROFSYS_USER_SUCCESS;
}
int stop() {
  calls.emplace_back("stop");
  return ROCPROFSYS_USER_SUCCESS;
}
int push(const char* name) {
  calls.push_back(std::string("push ") + name);
  return ROCPROFSYS_USER_SUCCESS;
}
int other_push(const char* name) {
  calls.push_back(std::string("other push ") + name);
  return ROCPROFSYS_USER_SUCCESS;
}
int pop(const char* name) {
  calls.push_back(std::string("pop ") + name);
  return ROCPROFSYS_USER_SUCCESS;
}
int annotated(const char* name, rocprofsys_annotation_t* annotations, size_t count) {
  calls.push_back(std::string("annotated ") + name + " " + annotations[0].name + " " +
                  std::to_string(count));
  return ROCPROFSYS_USER_SUCCESS;
}

class UserApi : public ::testing::Test {
 protected:
  void SetUp() override {
    // Every test starts from an empty table (the library's state is process-wide).
    rocprofsys_user_callbacks_t empty = ROCPROFSYS_USER_CALLBACKS_INIT;
    ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_REPLACE_CONFIG, empty, nullptr),
              ROCPROFSYS_USER_SUCCESS);
    calls.clear();
  }
};

TEST_F(UserApi, WithoutAProfilerEveryCallSaysNothingIsBound) {
  rocprofsys_annotation_t annotation = {"n", ROCPROFSYS_VALUE_INT32, nullptr};
  EXPECT_EQ(rocprofsys_user_start_trace(), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_stop_trace(), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_start_thread_trace(), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_stop_thread_trace(), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_push_region("r"), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_pop_region("r"), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_progress("p"), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_push_annotated_region("r", &annotation, 1),
            ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_pop_annotated_region("r", &annotation, 1),
            ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_annotated_progress("p", &annotation, 1),
            ROCPROFSYS_USER_ERROR_NO_BINDING);
  rocprofsys_user_callbacks_t table = ROCPROFSYS_USER_CALLBACKS_INIT;
  table.push_region = &push;
  ASSERT_EQ(rocprofsys_user_get_callbacks(&table), ROCPROFSYS_USER_SUCCESS);
  EXPECT_EQ(table.push_region, nullptr);  // overwritten with the (empty) current table
  EXPECT_EQ(rocprofsys_user_get_callbacks(nullptr), ROCPROFSYS_USER_ERROR_BAD_VALUE);
}

TEST_F(UserApi, UnionKeepsWhatTheNewTableLeavesOut) {
  rocprofsys_user_callbacks_t first = ROCPROFSYS_USER_CALLBACKS_INIT;
  first.start_trace = &start;
  first.push_region = &push;
  ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_UNION_CONFIG, first, nullptr), 0);
  rocprofsys_user_callbacks_t second = ROCPROFSYS_USER_CALLBACKS_INIT;
  second.push_region = &other_push;
  second.pop_region = &pop;
  rocprofsys_user_callbacks_t previous = ROCPROFSYS_USER_CALLBACKS_INIT;
  ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_UNION_CONFIG, second, &previous), 0);
  EXPECT_EQ(previous.push_region, &push);  // the table before this call
  EXPECT_EQ(previous.pop_region, nullptr);
  EXPECT_EQ(rocprofsys_user_start_trace(), 0);
  EXPECT_EQ(rocprofsys_user_push_region("a"), 0);
  EXPECT_EQ(rocprofsys_user_pop_region("a"), 0);
  EXPECT_EQ(rocprofsys_user_stop_trace(), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(calls, (std::vector<std::string>{"start", "other push a", "pop a"}));
}

TEST_F(UserApi, ReplaceTakesTheNewTableWhole) {
  rocprofsys_user_callbacks_t first = ROCPROFSYS_USER_CALLBACKS_INIT;
  first.start_trace = &start;
  first.stop_trace = &stop;
  ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_UNION_CONFIG, first, nullptr), 0);
  rocprofsys_user_callbacks_t second = ROCPROFSYS_USER_CALLBACKS_INIT;
  second.stop_trace = &stop;
  ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_REPLACE_CONFIG, second, nullptr), 0);
  EXPECT_EQ(rocprofsys_user_start_trace(), ROCPROFSYS_USER_ERROR_NO_BINDING);
  EXPECT_EQ(rocprofsys_user_stop_trace(), 0);
  EXPECT_EQ(calls, (std::vector<std::string>{"stop"}));
}

TEST_F(UserApi, IntersectKeepsOnlyWhatBothTablesHave) {
  rocprofsys_user_callbacks_t first = ROCPROFSYS_USER_CALLBACKS_INIT;
  first.push_region = &push;
  first.pop_region = &pop;
  ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_UNION_CONFIG, first, nullptr), 0);
  rocprofsys_user_callbacks_t second = ROCPROFSYS_USER_CALLBACKS_INIT;
  second.push_region = &other_push;
  second.start_trace = &start;
  second.push_annotated_region = &annotated;
  ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_INTERSECT_CONFIG, second, nullptr), 0);
  rocprofsys_user_callbacks_t now = ROCPROFSYS_USER_CALLBACKS_INIT;
  ASSERT_EQ(rocprofsys_user_get_callbacks(&now), 0);
  EXPECT_EQ(now.push_region, &other_push);  // in both: the new one
  EXPECT_EQ(now.pop_region, nullptr);       // only in the old table
  EXPECT_EQ(now.start_trace, nullptr);      // only in the new table
  EXPECT_EQ(now.push_annotated_region, nullptr);
}

TEST_F(UserApi, AnnotatedCallsReachTheirCallbackWithTheirAnnotations) {
  rocprofsys_user_callbacks_t table = ROCPROFSYS_USER_CALLBACKS_INIT;
  table.push_annotated_region = &annotated;
  ASSERT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_UNION_CONFIG, table, nullptr), 0);
  int value = 3;
  rocprofsys_annotation_t annotations[] = {{"count", ROCPROFSYS_INT32, &value},
                                           {"label", ROCPROFSYS_STRING, nullptr}};
  EXPECT_EQ(rocprofsys_user_push_annotated_region("solve", annotations, 2), 0);
  EXPECT_EQ(calls, (std::vector<std::string>{"annotated solve count 2"}));
}

TEST_F(UserApi, BadModesAndErrorStrings) {
  rocprofsys_user_callbacks_t table = ROCPROFSYS_USER_CALLBACKS_INIT;
  EXPECT_EQ(rocprofsys_user_configure(ROCPROFSYS_USER_CONFIGURE_MODE_LAST, table, nullptr),
            ROCPROFSYS_USER_ERROR_BAD_VALUE);
  EXPECT_EQ(
      rocprofsys_user_configure(static_cast<rocprofsys_user_configure_mode_t>(-1), table, nullptr),
      ROCPROFSYS_USER_ERROR_BAD_VALUE);
  EXPECT_STREQ(rocprofsys_user_error_string(ROCPROFSYS_USER_SUCCESS), "Success");
  EXPECT_NE(std::string(rocprofsys_user_error_string(ROCPROFSYS_USER_ERROR_NO_BINDING))
                .find("not assigned"),
            std::string::npos);
  EXPECT_STREQ(rocprofsys_user_error_string(ROCPROFSYS_USER_ERROR_LAST), "Unknown error");
  EXPECT_STREQ(rocprofsys_user_error_string(-3), "Unknown error");
}

TEST(UserApiAbi, ValuesAndLayoutsMatchRocprofilerSystems) {
  // The layouts and values existing programs were compiled against.
  EXPECT_EQ(sizeof(rocprofsys_user_callbacks_t), 10 * sizeof(void*));
  EXPECT_EQ(offsetof(rocprofsys_user_callbacks_t, push_region), 4 * sizeof(void*));
  EXPECT_EQ(offsetof(rocprofsys_user_callbacks_t, annotated_progress), 9 * sizeof(void*));
  EXPECT_EQ(sizeof(rocprofsys_annotation_t), 3 * sizeof(void*));
  EXPECT_EQ(offsetof(rocprofsys_annotation_t, value), 2 * sizeof(void*));
  EXPECT_EQ(ROCPROFSYS_VALUE_CSTR, 1);
  EXPECT_EQ(ROCPROFSYS_STRING, 1);
  EXPECT_EQ(ROCPROFSYS_INT32, 7);
  EXPECT_EQ(ROCPROFSYS_VALUE_UINT16, 11);
  EXPECT_EQ(ROCPROFSYS_VALUE_LAST, 12);
  EXPECT_EQ(ROCPROFSYS_USER_INTERSECT_CONFIG, 2);
  EXPECT_EQ(ROCPROFSYS_USER_ERROR_INTERNAL, 4);
  EXPECT_EQ(ROCPROFSYS_CATEGORY_USER, 2);
  EXPECT_EQ(ROCPROFSYS_CATEGORY_MPI, 32);
  EXPECT_EQ(ROCPROFSYS_CATEGORY_LAST, 55);
}

}  // namespace
