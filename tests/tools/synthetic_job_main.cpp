// Test tool: writes a synthetic job's rank files (tests/tools/synthetic_job.hpp) for merge
// tests and benchmarks.
// Usage: synthetic_job DIR RANKS EVENTS_PER_RANK [SKEWED_RANK SKEW_NS] [--gpu-aware-allreduce]
//        [--user-regions] [--busy-rank=RANK:RANGES] [--counters=SAMPLES]
//        [--late-rank=RANK:NS[:gpu]] [--host-waits]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/tools/synthetic_job.hpp"

int main(int argc, char** argv) {
  rocprof::test::SyntheticJob job;
  for (bool flag = true; flag && argc > 1;) {
    flag = false;
    if (std::strcmp(argv[argc - 1], "--gpu-aware-allreduce") == 0)
      flag = job.gpu_aware_allreduce = true;
    else if (std::strcmp(argv[argc - 1], "--user-regions") == 0)
      flag = job.user_regions = true;
    else if (std::strcmp(argv[argc - 1], "--host-waits") == 0)
      flag = job.host_waits = true;
    else if (std::strncmp(argv[argc - 1], "--counters=", 11) == 0) {
      job.counter_samples = std::strtoull(argv[argc - 1] + 11, nullptr, 10);
      flag = true;
    } else if (std::strncmp(argv[argc - 1], "--late-rank=", 12) == 0) {
      char* end = nullptr;
      job.late_rank = static_cast<int>(std::strtol(argv[argc - 1] + 12, &end, 10));
      if (*end == ':') job.late_ns = std::strtoull(end + 1, &end, 10);
      if (std::strcmp(end, ":gpu") == 0) {
        job.late_on_gpu = true;
        end += 4;
      }
      if (*end != '\0' || job.late_ns == 0) {
        std::fprintf(stderr, "%s: --late-rank takes RANK:NS[:gpu]\n", argv[0]);
        return 2;
      }
      flag = true;
    } else if (std::strncmp(argv[argc - 1], "--busy-rank=", 12) == 0) {
      char* end = nullptr;
      job.busy_rank = static_cast<int>(std::strtol(argv[argc - 1] + 12, &end, 10));
      if (*end == ':') job.busy_ranges = std::strtoull(end + 1, &end, 10);
      if (*end != '\0' || job.busy_ranges == 0) {
        std::fprintf(stderr, "%s: --busy-rank takes RANK:RANGES\n", argv[0]);
        return 2;
      }
      flag = true;
    }
    if (flag) --argc;
  }
  if (argc != 4 && argc != 6) {
    std::fprintf(stderr,
                 "usage: %s DIR RANKS EVENTS_PER_RANK [SKEWED_RANK SKEW_NS] "
                 "[--gpu-aware-allreduce] [--user-regions] [--busy-rank=RANK:RANGES] "
                 "[--counters=SAMPLES] [--late-rank=RANK:NS[:gpu]] [--host-waits]\n",
                 argv[0]);
    return 2;
  }
  job.directory = argv[1];
  job.ranks = std::atoi(argv[2]);
  job.events_per_rank = std::strtoull(argv[3], nullptr, 10);
  if (argc == 6) {
    job.skewed_rank = std::atoi(argv[4]);
    job.skew_ns = std::strtoll(argv[5], nullptr, 10);
  }
  rocprof::test::write_synthetic_job(job);
  return 0;
}
