// The processes of a parallel merge (`srun -n K rocprof-merge ...`): MPI is used only when
// the merge itself was launched as an MPI job; otherwise this is a group of one and nothing
// touches MPI. Ranks' files are divided into contiguous blocks, one per process, so
// concatenating the processes' outputs in order gives what a serial merge writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "merge/parallel/active_processes.hpp"
#include "merge/parallel/merge_share.hpp"

namespace rocprof::merge {

// The block [first, last) of `count` items that process `index` of `processes` handles:
// contiguous, in order, the first `count % processes` blocks one larger.
std::pair<std::size_t, std::size_t> block_of(std::size_t count, std::size_t index,
                                             std::size_t processes) noexcept;

// The block [first, last) of the items that process `index` of `processes` handles, by their
// `weights` (a rank's rows): contiguous and in order, each cut where the weight before it comes
// nearest to its share, each block holding at least one item while there are items enough
// (only the last blocks are empty, as with block_of). The first process's share is
// `first_share` (0 to 1) of the others' equal shares: less where it has other work (it writes
// what the others encode). Every process computes the same blocks from the same arguments.
std::pair<std::size_t, std::size_t> weighted_block(const std::vector<std::uint64_t>& weights,
                                                   std::size_t index, std::size_t processes,
                                                   double first_share = 1.0) noexcept;

// Where the launcher placed this process, from its environment before MPI starts: mpirun's
// OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE (and _LOCAL_SIZE), or srun's PMIX_RANK and
// SLURM_STEP_NUM_TASKS. nullopt outside an MPI launch or where the environment does not say.
// A guess, for work that may start early: MPI's own answer decides.
struct LaunchPlace {
  std::size_t index = 0;
  std::size_t processes = 1;
  std::size_t on_node = 1;  // processes on this node (OMPI_COMM_WORLD_LOCAL_SIZE), 1 if unsaid
  // Every process on this node: OMPI_COMM_WORLD_LOCAL_SIZE is the size, or SLURM_STEP_NUM_NODES
  // is 1.
  bool one_node = false;
};
std::optional<LaunchPlace> launch_place_from_environment();

// ROCPROF_MERGE_SEND_THREAD's problem ("" if it is unset, auto or off): readable before MPI
// starts, so that every process refuses the merge before any work.
std::string send_thread_setting_problem();

class MergeGroup {
 public:
  MergeGroup(int* argc, char*** argv);  // MPI_Init if launched by mpirun/srun
  ~MergeGroup();                        // MPI_Finalize if it initialised MPI
  MergeGroup(const MergeGroup&) = delete;
  MergeGroup& operator=(const MergeGroup&) = delete;

  int index() const noexcept { return index_; }
  // Merge processes on this node, this one included (1 outside an MPI launch).
  int processes_on_node() const noexcept { return on_node_; }
  int size() const noexcept { return size_; }
  bool leader() const noexcept { return index_ == 0; }
  // Seconds this process spent starting MPI (0 outside an MPI launch): a visible part of a
  // parallel merge (merge/parallel/mpi_start.hpp says why).
  double start_seconds() const noexcept { return start_seconds_; }

  // Which processes merge the job, within `limits` (merge/parallel/active_processes.hpp):
  // fewer than launched for a small job or a node whose processes share its CPUs. Collective,
  // once the files are checked (the others checked their share) and before the blocks are
  // cut: block() and share() then cut among the merging processes alone, and
  // processes_on_node() counts those on this node. Returns how many merge.
  int choose_active(std::uint64_t records, const MergingLimits& limits);
  // The processes launched, merging or not.
  int launched() const noexcept { return launched_; }
  // Each launched process's place among the merging ones (-1: left out), in launch order.
  std::vector<int> merging_places() const;
  // Collective on every launched process, once they have shared what the merging ones need
  // of the others (their message spills' summaries): those left out leave the group, and
  // index() and size() count the merging ones from then on. False on a process that left: it
  // takes no part in the group's work any more, but keeps its files (its spill, which the
  // merging processes read) until release_left_out() lets it go.
  bool narrow();
  // Collective on every launched process after narrow(): the merging ones call it once they
  // have no use for the left-out ones' files any more, the left-out ones to wait for that
  // (without keeping a CPU busy). Nothing where none was left out.
  void release_left_out() const;

  // The first process's share of the ranks, of an equal share (weighted_block): set before
  // the blocks are cut, the same on every process.
  void set_first_share(double share) noexcept { first_share_ = share; }
  // The block of ranks this process writes, by their weights (weighted_block).
  std::pair<std::size_t, std::size_t> block(
      const std::vector<std::uint64_t>& weights) const noexcept;
  // This process's share of an output over ranks of these weights (its block, as above), for
  // the exporters (whose functions call this group's; it must outlive the share).
  MergeShare share(const std::vector<std::uint64_t>& weights);

  // Whether the collectives below may be called from any thread (one at a time): MPI gave
  // at least MPI_THREAD_SERIALIZED, or there is no MPI. Else only from the main thread.
  bool any_thread_may_exchange() const noexcept { return !mpi_ || any_thread_; }

  // Every process's bytes, in process order (the same everywhere).
  std::vector<std::vector<std::byte>> all_gather(const std::vector<std::byte>& mine) const;
  // Every process's bytes to the first process, one at a time in process order: `take` runs
  // there for each (its own first), so that it holds one other process's bytes at most; the
  // others only send. Any size (sent in pieces).
  void gather_to_leader(const std::vector<std::byte>& mine,
                        const std::function<void(const std::vector<std::byte>&)>& take) const;
  // The first process's bytes, everywhere. The others wait without keeping a CPU busy (it
  // serves to wait for the first process's matching, while helpers work).
  void broadcast(std::vector<std::byte>& bytes) const;
  void barrier() const;
  // Every process's value, in process order.
  std::vector<std::uint64_t> all_gather(std::uint64_t value) const;
  // `parts[p]` to process p (a part per process); what each process sent this one, in
  // process order. Any sizes: a part goes as it is, in messages of at most
  // kAllToAllPieceBytes, with no buffer besides the parts and what comes back.
  std::vector<std::vector<std::byte>> all_to_all(std::vector<std::vector<std::byte>> parts) const;
  static constexpr std::size_t kAllToAllPieceBytes = std::size_t{16} << 20;
  // Point to point, for streaming results to the first process: a blocking send, and the
  // first process's receive of the next message from anyone (false if none is waiting and
  // `wait` is false).
  // Sends overlap with the sender's work (on a thread of their own where MPI allows it): up
  // to a few are queued; finish_sends() waits for them all (and runs before MPI_Finalize in
  // any case).
  void send_to_leader(const std::vector<std::byte>& message);
  void finish_sends();
  bool receive(std::vector<std::byte>& message, bool wait) const;
  // OTF2's MPI collective callbacks on an archive every process opened (or OTF2's serial ones
  // in a group of one).
  void set_otf2_collectives(OTF2_Archive_struct* archive) const;
  // Ends every process of the merge: after a failure in a phase where the others may wait for
  // this one forever.
  [[noreturn]] void abort(int code) const;
  std::uint64_t sum(std::uint64_t value) const;
  // Any process failed: all agree (so that none waits for another forever).
  bool any(bool failed) const;
  // The same, and which failed first: the lowest index of a process that failed (the one to
  // say why), or -1 if none did.
  int first_failed(bool failed) const;

 private:
  struct Sends;  // in flight (MPI requests: mpi.h stays out of this header)
  std::unique_ptr<Sends> sends_;
  int index_ = 0;
  int size_ = 1;
  int launched_ = 1;
  // Where this process is (its node's lowest index, its place there), and its place among the
  // merging processes (active_count_ if it is not one of them).
  int node_ = 0;
  int node_place_ = 0;
  int active_place_ = 0;
  int active_count_ = 1;
  std::vector<std::size_t> active_;  // the merging processes' launch indexes, in their order
  double first_share_ = 1.0;
  int on_node_ = 1;
  bool mpi_ = false;
  double start_seconds_ = 0;
  bool sending_thread_ = false;  // MPI_THREAD_MULTIPLE: a thread of its own sends to the leader
  bool any_thread_ = false;      // MPI_THREAD_SERIALIZED or more
};

// Where process `index` writes its part of `output` before the parts are joined: beside the
// output, or in `scratch` (a directory of this node's own: the part's name then holds this
// process's id too, so that merges on one node never meet). The first process's part is
// `output` itself.
std::string part_path(const std::string& output, int index, const std::string& scratch = {});

// Collective: every process's part (part_path(), a file) goes into `output` at its place in
// process order, and is removed. The first process writes its part as `output` itself
// (nothing to copy). Parts beside the output are copied in equal shares by every process,
// the first included; parts in a node's `scratch` only its own process sees, so each copies
// its own. Each on `copy_threads` threads (merge/files/part_copy.hpp). False everywhere if any
// process failed (after printing why).
bool join_parts(const MergeGroup& group, const std::string& output, std::size_t copy_threads,
                const std::string& scratch = {});

}  // namespace rocprof::merge
