// MergeGroup::all_to_all between real merge processes (run under mpirun): parts of many sizes,
// empty ones and ones of several messages (past kAllToAllPieceBytes), each arriving whole at its
// process. Exits 1 naming the first part that did not.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "merge/parallel/merge_group.hpp"

namespace {

using rocprof::merge::MergeGroup;

// The part process `from` sends process `to`: its size and bytes follow from the pair alone.
std::vector<std::byte> part(std::size_t from, std::size_t to) {
  const std::uint64_t piece = MergeGroup::kAllToAllPieceBytes;
  std::size_t size = 0;
  switch ((from + 2 * to) % 4) {
    case 0:
      size = 0;
      break;  // nothing
    case 1:
      size = 1 + from * 7 + to;
      break;  // a few bytes
    case 2:
      size = static_cast<std::size_t>(piece) - 1;
      break;  // one message, just
    default:
      size = static_cast<std::size_t>(3 * piece + 12345);  // several messages
  }
  std::vector<std::byte> bytes(size);
  std::uint64_t state = 0x9e3779b97f4a7c15ULL * (from * 131 + to + 1);
  for (std::byte& byte : bytes) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    byte = static_cast<std::byte>(state);
  }
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  MergeGroup group(&argc, &argv);
  const auto processes = static_cast<std::size_t>(group.size());
  const auto me = static_cast<std::size_t>(group.index());
  if (processes < 2) {
    std::fprintf(stderr, "all_to_all_check: run it under mpirun with 2 or more processes\n");
    return 1;
  }
  std::vector<std::vector<std::byte>> parts;
  for (std::size_t to = 0; to < processes; ++to) parts.push_back(part(me, to));
  const std::vector<std::vector<std::byte>> received = group.all_to_all(std::move(parts));
  int failed = received.size() == processes ? 0 : 1;
  for (std::size_t from = 0; from < received.size() && failed == 0; ++from)
    if (received[from] != part(from, me)) {
      std::fprintf(stderr, "all_to_all_check: process %zu got a wrong part from %zu (%zu bytes)\n",
                   me, from, received[from].size());
      failed = 1;
    }
  if (failed == 0 && me == 0) std::printf("all_to_all_check: %zu processes agree\n", processes);
  return failed;
}
