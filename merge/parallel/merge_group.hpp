// The processes of a parallel merge (`srun -n K rocprof-merge ...`): MPI is used only when
// the merge itself was launched as an MPI job; otherwise this is a group of one and nothing
// touches MPI. Ranks' files are divided into contiguous blocks, one per process, so
// concatenating the processes' outputs in order gives what a serial merge writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rocprof::merge {

class MergeGroup {
 public:
  MergeGroup(int* argc, char*** argv);  // MPI_Init if launched by mpirun/srun
  ~MergeGroup();                        // MPI_Finalize if it initialised MPI
  MergeGroup(const MergeGroup&) = delete;
  MergeGroup& operator=(const MergeGroup&) = delete;

  int index() const noexcept { return index_; }
  int size() const noexcept { return size_; }
  bool leader() const noexcept { return index_ == 0; }

  // The block [first, last) of `count` items this process handles.
  std::pair<std::size_t, std::size_t> block(std::size_t count) const noexcept;

  // Every process's bytes, in process order (the same everywhere).
  std::vector<std::vector<std::byte>> all_gather(const std::vector<std::byte>& mine) const;
  // The first process's bytes, everywhere.
  void broadcast(std::vector<std::byte>& bytes) const;
  void barrier() const;
  std::uint64_t sum(std::uint64_t value) const;
  // Any process failed: all agree (so that none waits for another forever).
  bool any(bool failed) const;

 private:
  int index_ = 0;
  int size_ = 1;
  bool mpi_ = false;
};

// Concatenates `parts` into `output` in order and removes them. Throws on I/O errors.
void concatenate_parts(const std::vector<std::string>& parts, const std::string& output);

}  // namespace rocprof::merge
