// rocprofiler_codeobj_capture_* against the simulated HSA runtime (tests/sim/hsa/), which a
// program linked against Debian's libhsa-runtime64 finds first in LD_LIBRARY_PATH: code
// objects loaded from a file and from memory, each capture mode, start/stop snapshots, and
// the statuses of bad input.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hsa/hsa.h>
#include <rocprofiler/v2/rocprofiler.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace {

std::vector<char> read_file(const char* path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

hsa_status_t find_gpu(hsa_agent_t agent, void* data) {
  hsa_device_type_t type{};
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS &&
      type == HSA_DEVICE_TYPE_GPU)
    *static_cast<hsa_agent_t*>(data) = agent;
  return HSA_STATUS_SUCCESS;
}

// One executable with one code object on the GPU, as a HIP runtime loads a kernel module.
class LoadedModule {
 public:
  // From the file at `path`, or from a copy of it in memory.
  LoadedModule(hsa_agent_t gpu, const char* path, bool from_memory) {
    hsa_code_object_reader_t reader{};
    if (from_memory) {
      bytes_ = read_file(path);
      EXPECT_EQ(hsa_code_object_reader_create_from_memory(bytes_.data(), bytes_.size(), &reader),
                HSA_STATUS_SUCCESS);
    } else {
      file_ = open(path, O_RDONLY);
      EXPECT_GE(file_, 0) << path;
      EXPECT_EQ(hsa_code_object_reader_create_from_file(file_, &reader), HSA_STATUS_SUCCESS);
    }
    EXPECT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                        nullptr, &executable_),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_load_agent_code_object(executable_, gpu, reader, nullptr, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(executable_, nullptr), HSA_STATUS_SUCCESS);
    hsa_code_object_reader_destroy(reader);
  }
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;
  ~LoadedModule() { unload(); }
  void unload() {
    if (executable_.handle != 0) hsa_executable_destroy(executable_);
    executable_.handle = 0;
    if (file_ >= 0) close(file_);
    file_ = -1;
  }

 private:
  std::vector<char> bytes_;  // kept while loaded, as the runtime needs
  int file_ = -1;
  hsa_executable_t executable_{};
};

// The captured code objects whose URI mentions `name`.
std::vector<rocprofiler_intercepted_codeobj_t> captured(rocprofiler_record_id_t id,
                                                        const std::string& name,
                                                        std::uint64_t* userdata = nullptr) {
  rocprofiler_codeobj_symbols_t capture{};
  EXPECT_EQ(rocprofiler_codeobj_capture_get(id, &capture), ROCPROFILER_STATUS_SUCCESS);
  if (userdata != nullptr) *userdata = capture.userdata;
  std::vector<rocprofiler_intercepted_codeobj_t> found;
  for (std::uint64_t i = 0; i < capture.count; ++i)
    if (std::string(capture.symbols[i].filepath).find(name) != std::string::npos || name.empty())
      found.push_back(capture.symbols[i]);
  return found;
}

class CodeObjectCapture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(find_gpu, &gpu_), HSA_STATUS_SUCCESS);
    ASSERT_NE(gpu_.handle, 0U) << "no GPU agent: is the simulated HSA runtime first in "
                                  "LD_LIBRARY_PATH?";
  }
  void TearDown() override { hsa_shut_down(); }
  hsa_agent_t gpu_{};
};

TEST_F(CodeObjectCapture, EachModeKeepsWhatItPromises) {
  const std::vector<char> file_a = read_file(TINY_CODE_OBJECT_A);
  const std::vector<char> file_b = read_file(TINY_CODE_OBJECT_B);
  LoadedModule from_file(gpu_, TINY_CODE_OBJECT_A, false);
  LoadedModule from_memory(gpu_, TINY_CODE_OBJECT_B, true);
  const std::string memory_uri = "memory://" + std::to_string(getpid()) + "#offset=0x";
  for (const auto mode : {ROCPROFILER_CAPTURE_SYMBOLS_ONLY, ROCPROFILER_CAPTURE_COPY_MEMORY,
                          ROCPROFILER_CAPTURE_COPY_FILE_AND_MEMORY}) {
    SCOPED_TRACE(mode);
    rocprofiler_record_id_t id{};
    ASSERT_EQ(rocprofiler_codeobj_capture_create(&id, mode, 0xC0DE), ROCPROFILER_STATUS_SUCCESS);
    ASSERT_EQ(rocprofiler_codeobj_capture_start(id), ROCPROFILER_STATUS_SUCCESS);
    ASSERT_EQ(rocprofiler_codeobj_capture_stop(id), ROCPROFILER_STATUS_SUCCESS);
    std::uint64_t userdata = 0;
    const auto all = captured(id, "", &userdata);
    EXPECT_EQ(userdata, 0xC0DEU);
    ASSERT_EQ(all.size(), 2U);
    const auto& file = std::string(all[0].filepath).starts_with("file://") ? all[0] : all[1];
    const auto& memory = &file == &all[0] ? all[1] : all[0];
    EXPECT_EQ(std::string(file.filepath), "file://" + std::string(TINY_CODE_OBJECT_A) +
                                              "#offset=0&size=" + std::to_string(file_a.size()));
    EXPECT_TRUE(std::string(memory.filepath).starts_with(memory_uri)) << memory.filepath;
    for (const auto* object : {&file, &memory}) {
      EXPECT_NE(object->base_address, 0U);
      EXPECT_GT(object->clock_start.value, 0U);
      EXPECT_EQ(object->clock_end.value, 0U) << "still loaded";
    }
    const bool copy_file = mode == ROCPROFILER_CAPTURE_COPY_FILE_AND_MEMORY;
    const bool copy_memory = mode != ROCPROFILER_CAPTURE_SYMBOLS_ONLY;
    EXPECT_EQ(file.data != nullptr, copy_file);
    EXPECT_EQ(memory.data != nullptr, copy_memory);
    if (copy_file) {
      EXPECT_EQ(std::vector<char>(file.data, file.data + file.size), file_a);
    } else {
      EXPECT_EQ(file.size, 0U);
    }
    if (copy_memory) {
      EXPECT_EQ(std::vector<char>(memory.data, memory.data + memory.size), file_b);
    }
    EXPECT_EQ(rocprofiler_codeobj_capture_free(id), ROCPROFILER_STATUS_SUCCESS);
  }
}

TEST_F(CodeObjectCapture, StartAndStopBoundWhatIsSeen) {
  rocprofiler_record_id_t id{};
  ASSERT_EQ(rocprofiler_codeobj_capture_create(&id, ROCPROFILER_CAPTURE_SYMBOLS_ONLY, 0),
            ROCPROFILER_STATUS_SUCCESS);
  LoadedModule before(gpu_, TINY_CODE_OBJECT_A, false);
  // Not started: a get hands out nothing.
  EXPECT_TRUE(captured(id, "").empty());
  ASSERT_EQ(rocprofiler_codeobj_capture_start(id), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(captured(id, "tiny_code_object_a").size(), 1U) << "loaded before start: captured";
  auto during = std::make_unique<LoadedModule>(gpu_, TINY_CODE_OBJECT_B, false);
  EXPECT_EQ(captured(id, "tiny_code_object_b").size(), 1U) << "loaded while started: captured";
  during->unload();
  const auto gone = captured(id, "tiny_code_object_b");
  ASSERT_EQ(gone.size(), 1U);
  EXPECT_GE(gone[0].clock_end.value, gone[0].clock_start.value) << "unloaded: it ended";
  EXPECT_NE(gone[0].clock_end.value, 0U);
  ASSERT_EQ(rocprofiler_codeobj_capture_stop(id), ROCPROFILER_STATUS_SUCCESS);
  LoadedModule after(gpu_, TINY_CODE_OBJECT_B, true);
  EXPECT_TRUE(captured(id, "memory://").empty()) << "loaded after stop: not captured";
  ASSERT_EQ(rocprofiler_codeobj_capture_start(id), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(captured(id, "memory://").size(), 1U) << "started again: captured";
  EXPECT_EQ(rocprofiler_codeobj_capture_free(id), ROCPROFILER_STATUS_SUCCESS);
}

TEST_F(CodeObjectCapture, BadInputGetsItsStatus) {
  rocprofiler_record_id_t id{};
  rocprofiler_codeobj_symbols_t capture{};
  EXPECT_EQ(rocprofiler_codeobj_capture_create(nullptr, ROCPROFILER_CAPTURE_SYMBOLS_ONLY, 0),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS);
  EXPECT_EQ(rocprofiler_codeobj_capture_create(
                &id, static_cast<rocprofiler_codeobj_capture_mode_t>(7), 0),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS);
  ASSERT_EQ(rocprofiler_codeobj_capture_create(&id, ROCPROFILER_CAPTURE_COPY_MEMORY, 0),
            ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(rocprofiler_codeobj_capture_get(id, nullptr),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS);
  EXPECT_EQ(rocprofiler_codeobj_capture_free(id), ROCPROFILER_STATUS_SUCCESS);
  for (const auto& call : {rocprofiler_codeobj_capture_free, rocprofiler_codeobj_capture_start,
                           rocprofiler_codeobj_capture_stop})
    EXPECT_EQ(call(id), ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS);
  EXPECT_EQ(rocprofiler_codeobj_capture_get(id, &capture),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS)
      << "a get after free";
  EXPECT_EQ(rocprofiler_codeobj_capture_get(rocprofiler_record_id_t{12345}, &capture),
            ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS);
}

}  // namespace
