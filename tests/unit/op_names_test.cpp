// roctracer_op_string / roctracer_op_code for every supported domain.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include <roctracer/roctracer_ext.h>
#include <roctracer/roctracer_hip.h>
#include <roctracer/roctracer_hsa.h>
#include <roctracer/roctracer_roctx.h>

namespace {

TEST(OpNames, RoctxNamesAndCodesRoundTrip) {
  const char* expected[] = {"roctxMarkA", "roctxRangePushA", "roctxRangePop", "roctxRangeStartA",
                            "roctxRangeStop"};
  for (uint32_t op = 0; op < ROCTX_API_ID_NUMBER; ++op) {
    EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_ROCTX, op, 0), expected[op]);
    uint32_t code = 99;
    uint32_t kind = 99;
    ASSERT_EQ(roctracer_op_code(ACTIVITY_DOMAIN_ROCTX, expected[op], &code, &kind),
              ROCTRACER_STATUS_SUCCESS);
    EXPECT_EQ(code, op);
    EXPECT_EQ(kind, 0U);
  }
  EXPECT_EQ(roctracer_op_string(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_NUMBER, 0), nullptr);
}

TEST(OpNames, EveryHipApiIdOfTheInstalledRuntimeHasItsName) {
  // Independent source: the HIP_API_ID_<name> = <n> lines of the installed header.
  std::ifstream header(HIP_PROF_STR_PATH);
  ASSERT_TRUE(header) << HIP_PROF_STR_PATH;
  const std::regex line(R"(^\s*HIP_API_ID_(\w+)\s*=\s*(\d+),)");
  std::string text;
  int checked = 0;
  while (std::getline(header, text)) {
    std::smatch match;
    if (!std::regex_search(text, match, line)) continue;
    const std::string name = match[1];
    // Placeholders the runtime keeps for retired calls have no name.
    if (name == "NONE" || name == "FIRST" || name == "LAST" || name.rfind("RESERVED_", 0) == 0)
      continue;
    const uint32_t id = static_cast<uint32_t>(std::stoul(match[2]));
    const char* got = roctracer_op_string(ACTIVITY_DOMAIN_HIP_API, id, 0);
    ASSERT_NE(got, nullptr) << name;
    EXPECT_EQ(name, got);
    uint32_t code = 0;
    ASSERT_EQ(roctracer_op_code(ACTIVITY_DOMAIN_HIP_API, name.c_str(), &code, nullptr),
              ROCTRACER_STATUS_SUCCESS);
    EXPECT_EQ(code, id);
    ++checked;
  }
  EXPECT_GT(checked, 300);
  EXPECT_EQ(roctracer_op_string(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_NONE, 0), nullptr);
  EXPECT_EQ(roctracer_op_string(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_LAST + 1, 0), nullptr);
}

TEST(OpNames, EveryHsaTableFunctionHasItsName) {
  // Independent source: the `decltype(name)* name_fn;` members of hsa_api_trace.h.
  std::ifstream header(HSA_API_TRACE_PATH);
  ASSERT_TRUE(header) << HSA_API_TRACE_PATH;
  // Members may wrap onto the next line, so match over the whole text.
  const std::string text((std::istreambuf_iterator<char>(header)),
                         std::istreambuf_iterator<char>());
  const std::regex member(R"(decltype\((\w+)\)\s*\*\s*(\w+)_fn\s*;)");
  std::set<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), member), end; it != end; ++it)
    names.insert((*it)[1]);
  EXPECT_EQ(names.size(), static_cast<size_t>(HSA_API_ID_NUMBER));
  for (const auto& name : names) {
    uint32_t op = 0;
    ASSERT_EQ(roctracer_op_code(ACTIVITY_DOMAIN_HSA_API, name.c_str(), &op, nullptr),
              ROCTRACER_STATUS_SUCCESS)
        << name;
    EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HSA_API, op, 0), name.c_str());
  }
  EXPECT_EQ(HSA_API_ID_hsa_init, 0);
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HSA_API, HSA_API_ID_hsa_init, 0), "hsa_init");
  // The four tables are all present: one member of each.
  for (const char* name : {"hsa_amd_memory_async_copy", "hsa_ext_image_create",
                           "hsa_ext_program_finalize", "hsa_queue_create"})
    EXPECT_EQ(names.count(name), 1U) << name;
}

TEST(OpNames, AsyncAndEventDomains) {
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HIP_OPS, HIP_OP_ID_DISPATCH, 0), "DISPATCH");
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HIP_OPS, HIP_OP_ID_COPY, 0), "COPY");
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HIP_OPS, HIP_OP_ID_BARRIER, 0), "BARRIER");
  // A HIP command kind selects the command's own name.
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HIP_OPS, HIP_OP_ID_DISPATCH, 0x11F0),
               "KernelExecution");
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HIP_OPS, HIP_OP_ID_COPY, 0x11F4),
               "CopyHostToDevice");
  uint32_t op = 9;
  uint32_t kind = 9;
  ASSERT_EQ(roctracer_op_code(ACTIVITY_DOMAIN_HIP_OPS, "CopyDeviceToHost", &op, &kind),
            ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(op, static_cast<uint32_t>(HIP_OP_ID_COPY));
  EXPECT_EQ(kind, 0x11F3U);
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HSA_OPS, HSA_OP_ID_COPY, 0), "COPY");
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_HSA_EVT, HSA_EVT_ID_CODEOBJ, 0), "CODEOBJ");
  EXPECT_STREQ(roctracer_op_string(ACTIVITY_DOMAIN_EXT_API, ACTIVITY_EXT_OP_EXTERN_ID, 0),
               "EXTERN_ID");
  EXPECT_EQ(roctracer_op_string(ACTIVITY_DOMAIN_HSA_OPS, HSA_OP_ID_NUMBER, 0), nullptr);
}

TEST(OpNames, VersionsMatchTheHeader) {
  EXPECT_EQ(roctracer_version_major(), static_cast<uint32_t>(ROCTRACER_VERSION_MAJOR));
  EXPECT_EQ(roctracer_version_minor(), static_cast<uint32_t>(ROCTRACER_VERSION_MINOR));
  EXPECT_EQ(roctx_version_major(), 4U);
  EXPECT_EQ(roctx_version_minor(), 1U);
}

}  // namespace
