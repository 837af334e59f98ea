// What a parallel merge asks of MPI before it starts it. Open MPI probes every point-to-point
// layer it has when it starts; its network-only one (pml "cm", over PSM, PSM2 or OFI) is of
// no use when every merge process runs on one node, where shared memory carries the messages,
// yet probing it took most of each process's start (the PSM2 library calibrates a timer with
// short sleeps when it is loaded): a sizeable part of a merge of thousands of small ranks.
#pragma once

#include <optional>
#include <string>

#include "merge/parallel/merge_group.hpp"

namespace rocprof::merge {

// ROCPROF_MERGE_ONE_NODE_MPI's problem ("" if unset, auto or off).
std::string one_node_mpi_setting_problem();

// The OMPI_MCA_pml value that leaves out the network-only layer, nullopt to leave Open MPI's
// choice alone: when not every process is on one node (place.one_node), with
// ROCPROF_MERGE_ONE_NODE_MPI=off, or when a pml or an mtl is chosen by name (OMPI_MCA_pml or
// OMPI_MCA_mtl, the user's or the installation's parameter file, or a parameter file named by
// OMPI_MCA_mca_base_param_files, which is not read). A list of layers to leave out ("^ucx")
// is kept, with cm added.
std::optional<std::string> network_layers_left_out(const LaunchPlace& place);

// Sets OMPI_MCA_pml to network_layers_left_out(place), if any; returns whether it did. Call it
// before any other thread starts (it changes the environment) and before MPI starts.
bool leave_out_network_layers(const LaunchPlace& place);

}  // namespace rocprof::merge
