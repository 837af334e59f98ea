// What a parallel merge asks of Open MPI before it starts: on one node, its network-only
// point-to-point layer is left out, unless a layer was chosen by name somewhere Open MPI reads
// its parameters from.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "merge/parallel/mpi_start.hpp"

// The environment is changed on the test's one thread.
// NOLINTBEGIN(concurrency-mt-unsafe)
namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

// A home of its own (with or without a parameter file), and none of the variables below set.
class MpiStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = fs::temp_directory_path() / ("mpi_start_test." + std::to_string(::getpid()));
    fs::create_directories(home_ / ".openmpi");
    for (const char* name :
         {"HOME", "OMPI_MCA_pml", "OMPI_MCA_mtl", "OMPI_MCA_mca_base_param_files",
          "ROCPROF_MERGE_ONE_NODE_MPI", "OPAL_PREFIX"}) {
      if (const char* value = std::getenv(name)) saved_.emplace_back(name, value);
      ::unsetenv(name);
    }
    ::setenv("HOME", home_.c_str(), 1);
  }
  void TearDown() override {
    for (const char* name :
         {"HOME", "OMPI_MCA_pml", "OMPI_MCA_mtl", "OMPI_MCA_mca_base_param_files",
          "ROCPROF_MERGE_ONE_NODE_MPI", "OPAL_PREFIX"})
      ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
    fs::remove_all(home_);
  }
  void user_file(const std::string& text) {
    std::ofstream(home_ / ".openmpi" / "mca-params.conf") << text;
  }
  static LaunchPlace one_node() { return {0, 2, 2, true}; }

  fs::path home_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(MpiStartTest, OnlyEveryProcessOnOneNodeLeavesTheNetworkLayerOut) {
  user_file("# nothing chosen\nbtl = ^openib\n");
  ::setenv("OPAL_PREFIX", home_.c_str(), 1);  // an installation file of its own: none
  // The installation's file may list layers to leave out already: they stay left out.
  const auto value = network_layers_left_out(one_node());
  ASSERT_TRUE(value);
  EXPECT_TRUE(value->starts_with('^')) << *value;
  EXPECT_TRUE(value->ends_with("cm")) << *value;
  EXPECT_EQ(network_layers_left_out({0, 2, 1, false}), std::nullopt);  // two nodes
  EXPECT_EQ(network_layers_left_out({0, 1, 1, true}), std::nullopt);   // not parallel
  ::setenv("ROCPROF_MERGE_ONE_NODE_MPI", "off", 1);
  EXPECT_EQ(network_layers_left_out(one_node()), std::nullopt);
  EXPECT_EQ(one_node_mpi_setting_problem(), "");
  ::setenv("ROCPROF_MERGE_ONE_NODE_MPI", "of", 1);
  EXPECT_EQ(network_layers_left_out(one_node()), std::nullopt);
  EXPECT_NE(one_node_mpi_setting_problem().find("ROCPROF_MERGE_ONE_NODE_MPI is 'of'"),
            std::string::npos);
}

TEST_F(MpiStartTest, ALayerChosenByNameStays) {
  ::setenv("OMPI_MCA_pml", "ob1", 1);
  EXPECT_EQ(network_layers_left_out(one_node()), std::nullopt);
  ::setenv("OMPI_MCA_pml", "^ucx", 1);
  EXPECT_EQ(network_layers_left_out(one_node()), "^ucx,cm");
  ::unsetenv("OMPI_MCA_pml");
  ::setenv("OMPI_MCA_mtl", "psm2", 1);
  EXPECT_EQ(network_layers_left_out(one_node()), std::nullopt);
  ::unsetenv("OMPI_MCA_mtl");
  user_file("pml = cm\n");
  EXPECT_EQ(network_layers_left_out(one_node()), std::nullopt);
  user_file("  pml=^ucx,v  # the last one counts\npml = ^ucx\nmtl = ^ofi\n");
  EXPECT_EQ(network_layers_left_out(one_node()), "^ucx,cm");
  ::setenv("OMPI_MCA_mca_base_param_files", "/somewhere/else.conf", 1);
  EXPECT_EQ(network_layers_left_out(one_node()), std::nullopt);
}

TEST_F(MpiStartTest, SetsTheVariableForMpisStart) {
  user_file("pml = ^ucx\n");
  ASSERT_TRUE(leave_out_network_layers(one_node()));
  EXPECT_STREQ(std::getenv("OMPI_MCA_pml"), "^ucx,cm");
  // Done: a second call has nothing to add.
  EXPECT_FALSE(leave_out_network_layers(one_node()));
}

}  // namespace
}  // namespace rocprof::merge
// NOLINTEND(concurrency-mt-unsafe)
