// Writes realistic rank files of a made-up job: each rank's clock differs from the
// reference (rank 0's) by a known offset and drift, so alignment can be checked exactly;
// every rank runs the same iterations (ROC-TX "compute" and "exchange" ranges, a ring of
// MPI_Isend/MPI_Irecv/MPI_Waitall, an MPI_Allreduce), sized to reach `events` per rank.
#pragma once

#include <cstdint>
#include <string>

namespace rocprof::test {

struct SyntheticJob {
  int ranks = 4;
  std::uint64_t events_per_rank = 10000;  // MPI calls + markers
  std::string directory;
  std::string job_id = "synthetic";
  std::uint64_t start_ns = 1'000'000'000'000ULL;  // reference-clock start of the run
  // Rank r's clock reads reference + offset(r) + drift_ppb(r) * elapsed / 1e9.
  std::int64_t offset_step_ns = 1'500'000'123;  // offset(r) = r * step (alternating sign)
  std::int64_t drift_step_ppb = 2'000;          // drift(r) = r * step ppb
  std::uint64_t iteration_ns = 50'000;
  // A clock measurement error for one rank: its recorded offsets are off by this much, so
  // after alignment some of its receives end before their sends began.
  int skewed_rank = -1;
  std::int64_t skew_ns = 0;
  // GPU-aware MPI: each MPI_Allreduce stages its buffer with a hipMemcpyAsync (an API call
  // carrying the allreduce's external id) and the copy it issues on GPU queue 1.
  bool gpu_aware_allreduce = false;
  // The "compute" ranges as user regions (rocprofsys_user_push_region), each with a
  // hipMemcpyAsync made inside it (carrying the region's external id) and its copy.
  bool user_regions = false;
  // One rank much larger than the others: `busy_ranges` more ranges on a thread of its own of
  // rank `busy_rank`, after its iterations (markers only: its messages still match).
  int busy_rank = -1;
  std::uint64_t busy_ranges = 0;
  // The ranks the run traced ("0,2", as rocprof-mpi --mpi-ranks takes them; "" for all): the
  // others get no file, and every file records the list.
  std::string traced_ranks;
  // Device counters: every even rank samples "its" GPU (rank / 2, a simulated one) and the
  // host this many times over the run, as the lowest local rank using a device does.
  std::uint64_t counter_samples = 0;
  // A late rank: rank `late_rank` computes `late_ns` longer every iteration before it sends,
  // so the next rank of the ring waits for its message (a late sender) and the other ranks
  // wait for it in the MPI_Allreduce (a wait at NxN); the next rank's own wait there is 100 ns.
  // With `late_on_gpu` its compute range holds a hipLaunchKernel of "slow_kernel" (running
  // the range but 3 us) and a hipDeviceSynchronize that waits for it.
  int late_rank = -1;
  std::uint64_t late_ns = 0;
  bool late_on_gpu = false;
  // With `late_on_gpu`: the synchronisation is also recorded as CUDA records a host wait (an
  // activity of no device), from the call's begin to its end.
  bool host_waits = false;
  // The rank files' compression, as the recorder's option takes it ("zstd:1", "deflate:1").
  std::string compression = "zstd:1";
};

// Local clock of `rank` at reference time `reference_ns`.
std::uint64_t synthetic_local_ns(const SyntheticJob& job, int rank, std::uint64_t reference_ns);

// Writes <directory>/<rank>.h5 for every rank; returns the number of MPI calls per rank.
std::uint64_t write_synthetic_job(const SyntheticJob& job);

}  // namespace rocprof::test
