#include "merge/parallel/merge_group.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

bool launched_as_mpi_job() {
  // Read once at start; nothing here calls setenv.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name) != nullptr) return true;  // NOLINT(concurrency-mt-unsafe)
  return false;
}

}  // namespace

MergeGroup::MergeGroup(int* argc, char*** argv) {
  if (!launched_as_mpi_job()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0 && MPI_Init(argc, argv) != MPI_SUCCESS) return;
  mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &index_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MergeGroup::~MergeGroup() {
  if (mpi_) MPI_Finalize();
}

std::pair<std::size_t, std::size_t> MergeGroup::block(std::size_t count) const noexcept {
  const auto processes = static_cast<std::size_t>(size_);
  const auto me = static_cast<std::size_t>(index_);
  const std::size_t base = count / processes;
  const std::size_t extra = count % processes;
  const std::size_t first = me * base + std::min(me, extra);
  return {first, first + base + (me < extra ? 1 : 0)};
}

std::vector<std::vector<std::byte>> MergeGroup::all_gather(
    const std::vector<std::byte>& mine) const {
  if (!mpi_ || size_ == 1) return {mine};
  const int bytes = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size_));
  MPI_Allgather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> offsets(counts.size(), 0);
  std::size_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    offsets[i] = static_cast<int>(total);
    total += static_cast<std::size_t>(counts[i]);
  }
  std::vector<std::byte> all(total);
  MPI_Allgatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  std::vector<std::vector<std::byte>> parts;
  for (std::size_t i = 0; i < counts.size(); ++i)
    parts.emplace_back(all.begin() + offsets[i], all.begin() + offsets[i] + counts[i]);
  return parts;
}

void MergeGroup::broadcast(std::vector<std::byte>& bytes) const {
  if (!mpi_ || size_ == 1) return;
  auto size = static_cast<std::uint64_t>(bytes.size());
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  bytes.resize(size);
  MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, MPI_COMM_WORLD);
}

void MergeGroup::barrier() const {
  if (mpi_) MPI_Barrier(MPI_COMM_WORLD);
}

std::uint64_t MergeGroup::sum(std::uint64_t value) const {
  if (!mpi_) return value;
  std::uint64_t total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

bool MergeGroup::any(bool failed) const {
  if (!mpi_) return failed;
  int local = failed ? 1 : 0;
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return global != 0;
}

void concatenate_parts(const std::vector<std::string>& parts, const std::string& output) {
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", output));
  for (const std::string& part : parts) {
    std::ifstream in(part, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("cannot read {}", part));
    out << in.rdbuf();
    in.close();
    std::remove(part.c_str());
  }
  if (!out.flush()) throw std::runtime_error(fmt::format("writing {} failed", output));
}

}  // namespace rocprof::merge
