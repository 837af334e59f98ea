#pragma once
// A parallel merge's share of one output, as the exporters see it: this process's block of
// ranks and the group operations they need. The front end fills the functions from its merge
// group (MPI); the exporters themselves stay MPI-free. Without a share, one process writes
// every rank.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

struct OTF2_Archive_struct;  // libotf2's archive (OTF2_Archive)

namespace rocprof::merge {

struct MergeShare {
  std::size_t first_rank = 0;  // this process's ranks: [first_rank, last_rank) of `ranks`
  std::size_t last_rank = 0;
  std::size_t index = 0;  // this process's place in process order; 0 leads
  int processes = 1;
  bool leader() const noexcept { return index == 0; }

  std::function<void(const std::vector<std::byte>&)> send_to_leader;
  std::function<bool(std::vector<std::byte>&, bool)> receive;       // the leader's: (message, wait)
  std::function<std::vector<std::uint64_t>(std::uint64_t)> gather;  // every process's value
  std::function<std::vector<std::vector<std::byte>>(const std::vector<std::byte>&)> all_gather;
  std::function<void()> barrier;
  std::function<void(OTF2_Archive_struct*)> set_otf2_collectives;
};

}  // namespace rocprof::merge
