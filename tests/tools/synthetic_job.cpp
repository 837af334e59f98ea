#include "tests/tools/synthetic_job.hpp"

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "lib/format/rank_file_writer.hpp"
#include "lib/format/rank_list.hpp"

namespace rocprof::test {
namespace {

using namespace rocprof::format;

template <typename Row>
Row blank() {
  Row row;
  std::memset(&row, 0, sizeof row);
  return row;
}

std::int64_t offset_of(const SyntheticJob& job, int rank) {
  const std::int64_t sign = rank % 2 == 0 ? 1 : -1;
  return sign * rank * job.offset_step_ns;
}

}  // namespace

std::uint64_t synthetic_local_ns(const SyntheticJob& job, int rank, std::uint64_t reference_ns) {
  const auto elapsed = static_cast<long double>(reference_ns - job.start_ns);
  const long double drift = elapsed * static_cast<long double>(rank * job.drift_step_ppb) / 1e9L;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(reference_ns) + offset_of(job, rank) +
                                    static_cast<std::int64_t>(drift));
}

std::uint64_t write_synthetic_job(const SyntheticJob& job) {
  std::filesystem::create_directories(job.directory);
  // Per iteration: 2 ranges (4 markers), Irecv, Isend, Waitall (3 rows), Allreduce = 10 rows.
  const std::uint64_t iterations = std::max<std::uint64_t>(1, job.events_per_rank / 10);
  std::uint64_t mpi_calls = 0;
  RankList traced;
  if (std::string error;
      !job.traced_ranks.empty() && !parse_rank_list(job.traced_ranks, traced, error))
    throw std::runtime_error(error);
  for (int rank = 0; rank < job.ranks; ++rank) {
    if (!traced.contains(rank)) continue;
    RankMetadata metadata;
    metadata.tool_version = "synthetic";
    metadata.job_id = job.job_id;
    metadata.rank = rank;
    metadata.size = job.ranks;
    metadata.hostname = "node" + std::to_string(rank / 4);
    metadata.pid = 1000 + static_cast<std::uint32_t>(rank);
    metadata.command_line = {"./synthetic"};
    metadata.start_clock_ns = synthetic_local_ns(job, rank, job.start_ns);
    metadata.start_realtime_ns = 1'763'800'000'000'000'000ULL;
    metadata.compression = job.compression;
    metadata.traced_ranks = job.traced_ranks;
    std::string error;
    Compression compression;
    if (!Compression::parse(job.compression, compression, error)) throw std::runtime_error(error);
    auto writer = RankFileWriter::create(job.directory + "/" + std::to_string(rank) + ".h5",
                                         metadata, compression, error);
    if (!writer) throw std::runtime_error(error);
    const StringId compute = writer->intern("compute");
    const StringId exchange = writer->intern("exchange");
    const StringId isend = writer->intern("MPI_Isend");
    const StringId irecv = writer->intern("MPI_Irecv");
    const StringId waitall = writer->intern("MPI_Waitall");
    const StringId allreduce = writer->intern("MPI_Allreduce");
    const std::uint32_t thread = 5000 + static_cast<std::uint32_t>(rank);
    const int next = (rank + 1) % job.ranks;
    const int previous = (rank + job.ranks - 1) % job.ranks;
    std::vector<MarkerRow> markers;
    std::vector<MpiCallRow> calls;
    std::vector<ApiCallRow> api_calls;
    std::vector<ActivityRow> copies;
    std::uint64_t correlation = 1;
    constexpr std::uint8_t kHipApi = 3;  // ACTIVITY_DOMAIN_HIP_API
    constexpr std::uint8_t kHipOps = 2;  // ACTIVITY_DOMAIN_HIP_OPS
    if (job.gpu_aware_allreduce || job.user_regions) {
      writer->append(OpNameRow{1, writer->intern("hipMemcpyAsync"), kHipApi});
      writer->append(OpNameRow{1, writer->intern("CopyDeviceToHost"), kHipOps});
    }
    const bool late = job.late_rank >= 0 && job.late_ns > 0;
    const std::uint64_t delay = late ? job.late_ns : 0;
    const std::uint64_t own_delay = rank == job.late_rank ? delay : 0;
    const bool waits_for_late = late && rank == (job.late_rank + 1) % job.ranks;
    const bool slow_kernel = job.late_on_gpu && own_delay > 0;
    constexpr std::uint32_t kLaunch = 2;
    constexpr std::uint32_t kSynchronize = 3;
    constexpr std::uint8_t kCudaOps = 18;       // ROCPROF_MPI_DOMAIN_CUDA_OPS
    constexpr std::uint32_t kCudaHostWait = 3;  // ROCPROF_MPI_CUDA_OP_SYNCHRONIZATION
    if (slow_kernel) {
      writer->append(OpNameRow{kLaunch, writer->intern("hipLaunchKernel"), kHipApi});
      writer->append(OpNameRow{kSynchronize, writer->intern("hipDeviceSynchronize"), kHipApi});
      writer->append(OpNameRow{0, writer->intern("KernelExecution"), kHipOps});
    }
    const StringId slow_kernel_name = slow_kernel ? writer->intern("slow_kernel") : 0;
    std::uint64_t range_id = 1;
    std::uint64_t external = (static_cast<std::uint64_t>(rank) << 44) | 1;
    auto local = [&](std::uint64_t reference) { return synthetic_local_ns(job, rank, reference); };
    auto flush = [&] {
      writer->append<MarkerRow>(markers);
      writer->append<MpiCallRow>(calls);
      writer->append<ApiCallRow>(api_calls);
      writer->append<ActivityRow>(copies);
      markers.clear();
      calls.clear();
      api_calls.clear();
      copies.clear();
    };
    for (std::uint64_t it = 0; it < iterations; ++it) {
      const std::uint64_t t = job.start_ns + it * (job.iteration_ns + delay);
      // A staging copy: the API call (made with `external_id` pushed) and the copy it issues.
      auto copy_inside = [&](std::uint64_t external_id, std::uint64_t at) {
        auto api = blank<ApiCallRow>();
        api.begin_ns = local(at);
        api.end_ns = local(at + 100);
        api.correlation_id = correlation;
        api.external_id = external_id;
        api.bytes = 8;
        api.thread_id = thread;
        api.op = 1;
        api.domain = kHipApi;
        api_calls.push_back(api);
        auto copy = blank<ActivityRow>();
        copy.begin_ns = local(at + 200);
        copy.end_ns = local(at + 300);
        copy.correlation_id = correlation++;
        copy.queue_id = 1;
        copy.bytes = 8;
        copy.op = 1;
        copy.domain = kHipOps;
        copies.push_back(copy);
      };
      auto range = [&](StringId name, std::uint64_t begin, std::uint64_t end) {
        const bool region = job.user_regions && name == compute;
        auto push = blank<MarkerRow>();
        push.op = region ? MarkerOp::kRegionPush : MarkerOp::kPush;
        push.id = range_id;
        push.thread_id = thread;
        push.message = name;
        push.timestamp_ns = local(begin);
        auto pop = push;
        pop.op = region ? MarkerOp::kRegionPop : MarkerOp::kPop;
        if (region) copy_inside(kRegionExternalBit | range_id, begin + 1000);
        pop.message = 0;
        pop.timestamp_ns = local(end);
        markers.push_back(push);
        markers.push_back(pop);
        ++range_id;
      };
      auto call = [&](StringId function, std::uint64_t begin, std::uint64_t end, int peer,
                      std::uint64_t sent, std::uint64_t received, std::uint64_t request) {
        auto row = blank<MpiCallRow>();
        row.function = function;
        row.begin_ns = local(begin);
        row.end_ns = local(end);
        row.thread_id = thread;
        row.external_id = external++;
        row.communicator = 1;
        row.peer = peer;
        row.tag = peer >= 0 ? 7 : -1;
        row.bytes_sent = sent;
        row.bytes_received = received;
        row.request = request;
        calls.push_back(row);
      };
      range(compute, t, t + 30'000 + own_delay);
      range(exchange, t + 30'000 + own_delay, t + 45'000 + delay);
      if (slow_kernel) {
        // The launch, the kernel and the synchronisation waiting for it, inside "compute".
        auto api = blank<ApiCallRow>();
        api.begin_ns = local(t + 1'000);
        api.end_ns = local(t + 1'500);
        api.correlation_id = correlation;
        api.thread_id = thread;
        api.op = kLaunch;
        api.domain = kHipApi;
        api.kernel_name = slow_kernel_name;
        api_calls.push_back(api);
        auto kernel = blank<ActivityRow>();
        kernel.begin_ns = local(t + 2'000);
        kernel.end_ns = local(t + 27'000 + own_delay);
        kernel.correlation_id = correlation++;
        kernel.queue_id = 2;
        kernel.kernel_name = slow_kernel_name;
        kernel.domain = kHipOps;
        copies.push_back(kernel);
        api.begin_ns = local(t + 1'600);
        api.end_ns = local(t + 27'100 + own_delay);
        api.correlation_id = correlation++;
        api.op = kSynchronize;
        api.kernel_name = 0;
        api_calls.push_back(api);
        if (job.host_waits) {
          auto wait = blank<ActivityRow>();
          wait.begin_ns = api.begin_ns;
          wait.end_ns = api.end_ns;
          wait.correlation_id = api.correlation_id;
          wait.device_id = -1;
          wait.op = kCudaHostWait;
          wait.domain = kCudaOps;
          copies.push_back(wait);
        }
      }
      // The ring: receive from the previous rank, send to the next; Waitall completes both
      // (a row per request, then its own, as the MPI layer records them). A message sent
      // at t + 31'100 arrives by t + 40'000 (the end of the receiver's Waitall); one sent
      // late arrives as late.
      const std::uint64_t base = t + own_delay;
      const std::uint64_t wait_end = waits_for_late ? t + 39'900 + delay : base + 40'000;
      const std::uint64_t allreduce_begin = waits_for_late ? t + 40'000 + delay : base + 40'100;
      call(irecv, base + 30'100, base + 31'000, previous, 0, 0, 0x100);
      call(isend, base + 31'100, base + 32'000, next, 4096, 0, 0x200);
      const std::uint64_t wait_external = external;
      call(waitall, base + 32'100, wait_end, previous, 0, 4096, 0x100);
      external = wait_external;
      call(waitall, base + 32'100, wait_end, next, 4096, 0, 0x200);
      external = wait_external;
      call(waitall, base + 32'100, wait_end, -1, 0, 0, 0);
      if (job.gpu_aware_allreduce) copy_inside(external, allreduce_begin + 100);  // its id
      call(allreduce, allreduce_begin, t + 44'000 + delay, -1, 8, 8, 0);
      mpi_calls += rank == 0 ? 4 : 0;
      if (markers.size() >= 16384) flush();
    }
    if (rank == job.busy_rank) {
      const std::uint64_t after = job.start_ns + iterations * (job.iteration_ns + delay);
      const StringId busy = writer->intern("busy");
      for (std::uint64_t i = 0; i < job.busy_ranges; ++i) {
        auto push = blank<MarkerRow>();
        push.op = MarkerOp::kPush;
        push.id = range_id++;
        push.thread_id = thread + 1;
        push.message = busy;
        push.timestamp_ns = local(after + i * 20);
        auto pop = push;
        pop.op = MarkerOp::kPop;
        pop.message = 0;
        pop.timestamp_ns = local(after + i * 20 + 10);
        markers.push_back(push);
        markers.push_back(pop);
        if (markers.size() >= 16384) flush();
      }
    }
    flush();
    // Clock samples as the MPI layer takes them: at the start and at the end.
    for (const std::uint64_t reference :
         {job.start_ns, job.start_ns + iterations * (job.iteration_ns + delay)}) {
      auto sample = blank<ClockSampleRow>();
      sample.local_ns = local(reference);
      sample.offset_ns = static_cast<std::int64_t>(reference) -
                         static_cast<std::int64_t>(sample.local_ns) +
                         (rank == job.skewed_rank ? job.skew_ns : 0);
      sample.round_trip_ns = rank == 0 ? 0 : 2000;
      sample.uncertainty_ns = rank == 0 ? 0 : 1000;
      sample.reference_rank = 0;
      writer->append(sample);
    }
    if (job.counter_samples > 0 && rank % 2 == 0) {
      // Session 1: GPU rank / 2 (GPU_UTIL, GPU_POWER); session 2: the host (CPU_UTIL).
      const StringId gpu_util = writer->intern("GPU_UTIL");
      const StringId gpu_power = writer->intern("GPU_POWER");
      const StringId cpu_util = writer->intern("CPU_UTIL");
      auto session = blank<CounterSessionRow>();
      session.start_ns = local(job.start_ns);
      session.session = 1;
      session.device_id = rank / 2;
      session.name = writer->intern("GPU " + std::to_string(rank / 2) + " (simulated)");
      writer->append(session);
      session.session = 2;
      session.device_id = -1;
      session.name = writer->intern("host");
      writer->append(session);
      std::vector<CounterSampleRow> samples;
      const std::uint64_t span = iterations * (job.iteration_ns + delay);
      for (std::uint64_t i = 0; i < job.counter_samples; ++i) {
        const std::uint64_t at = local(job.start_ns + span * i / job.counter_samples);
        const auto busy = static_cast<double>((i * 37 + static_cast<std::uint64_t>(rank)) % 101);
        samples.push_back({at, busy, 1, gpu_util});
        samples.push_back({at, 100.0 + 2.0 * busy, 1, gpu_power});
        samples.push_back({at, 100.0 - busy / 2.0, 2, cpu_util});
      }
      writer->append<CounterSampleRow>(samples);
    }
    auto world = blank<CommunicatorRow>();
    world.communicator = 1;
    world.size = job.ranks;
    world.rank = rank;
    world.creator = writer->intern("MPI_COMM_WORLD");
    writer->append(world);
    if (!writer->close(RankFileStatus{})) throw std::runtime_error(writer->error());
  }
  return mpi_calls;
}

}  // namespace rocprof::test
