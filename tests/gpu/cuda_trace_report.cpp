// Test tool for the GPU tests: prints a rank file's CUDA records one per line, for a script
// to check against what the traced program did (no h5py needed on the GPU machine).
//   api DOMAIN NAME CORRELATION EXTERNAL_ID BEGIN END COPY_DIRECTION
//   activity OP_NAME QUEUE DEVICE CORRELATION BEGIN END BYTES KERNEL_NAME
//   kernel CORRELATION GRID_X GRID_Y GRID_Z BLOCK_X BLOCK_Y BLOCK_Z SHARED_BYTES REGISTERS CONTEXT
//   memory OP_NAME CORRELATION SRC_KIND DST_KIND CONTEXT      (copies and memsets)
//   mpi NAME EXTERNAL_ID BEGIN END
//   status complete DROPPED
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "lib/format/rank_file_reader.hpp"

int main(int argc, char** argv) {
  using namespace rocprof::format;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RANK_FILE\n", argv[0]);
    return 2;
  }
  try {
    const RankFileReader reader(argv[1]);
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> names;
    for (const OpNameRow& op : reader.read_all<OpNameRow>())
      names[{op.domain, op.op}] = reader.string(op.name);
    const auto name_of = [&](std::uint32_t domain, std::uint32_t op) {
      const auto found = names.find({domain, op});
      return found != names.end() && !found->second.empty() ? found->second : std::string("?");
    };
    for (const ApiCallRow& call : reader.read_all<ApiCallRow>())
      std::printf(
          "api %u %s %llu %llu %llu %llu %u\n", call.domain, name_of(call.domain, call.op).c_str(),
          static_cast<unsigned long long>(call.correlation_id),
          static_cast<unsigned long long>(call.external_id),
          static_cast<unsigned long long>(call.begin_ns),
          static_cast<unsigned long long>(call.end_ns), static_cast<unsigned>(call.copy_direction));
    for (const ActivityRow& work : reader.read_all<ActivityRow>())
      std::printf(
          "activity %s %llu %d %llu %llu %llu %llu %s\n", name_of(work.domain, work.op).c_str(),
          static_cast<unsigned long long>(work.queue_id), work.device_id,
          static_cast<unsigned long long>(work.correlation_id),
          static_cast<unsigned long long>(work.begin_ns),
          static_cast<unsigned long long>(work.end_ns), static_cast<unsigned long long>(work.bytes),
          work.kernel_name != 0 ? reader.string(work.kernel_name).c_str() : "-");
    for (const ActivityRow& work : reader.read_all<ActivityRow>())
      if (work.registers != 0 || work.grid[0] != 0)
        std::printf("kernel %llu %u %u %u %u %u %u %u %u %u\n",
                    static_cast<unsigned long long>(work.correlation_id), work.grid[0],
                    work.grid[1], work.grid[2], work.block[0], work.block[1], work.block[2],
                    work.shared_bytes, work.registers, work.context_id);
      else if (work.bytes != 0)
        std::printf("memory %s %llu %u %u %u\n", name_of(work.domain, work.op).c_str(),
                    static_cast<unsigned long long>(work.correlation_id),
                    static_cast<unsigned>(work.src_kind), static_cast<unsigned>(work.dst_kind),
                    work.context_id);
    for (const MpiCallRow& call : reader.read_all<MpiCallRow>())
      std::printf("mpi %s %llu %llu %llu\n", reader.string(call.function).c_str(),
                  static_cast<unsigned long long>(call.external_id),
                  static_cast<unsigned long long>(call.begin_ns),
                  static_cast<unsigned long long>(call.end_ns));
    std::printf("status %d %llu\n", reader.status().complete ? 1 : 0,
                static_cast<unsigned long long>(reader.status().records_dropped));
  } catch (const FormatError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
