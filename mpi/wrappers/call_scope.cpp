#include "mpi/wrappers/call_scope.hpp"

#include <atomic>

#include <rocprof-mpi/external_id.h>

#include "mpi/runtime/call_filter.hpp"

namespace rocprof::mpi {
namespace {

constexpr int kSequenceBits = 44;
// Sequences come in per-thread blocks: a thread-local increment instead of a shared atomic.
constexpr std::uint64_t kSequenceBlock = 1024;
std::atomic<std::uint64_t> g_next_block{1};
__attribute__((tls_model("initial-exec"))) thread_local std::uint64_t tl_next = 0;
__attribute__((tls_model("initial-exec"))) thread_local std::uint64_t tl_block_end = 0;
// The thread's external-id stack in libroctracer64, pushed and popped in place.
__attribute__((tls_model(
    "initial-exec"))) thread_local rocprof_mpi_external_id_stack_t* tl_external_ids = nullptr;

rocprof_mpi_external_id_stack_t& external_ids() noexcept {
  if (tl_external_ids == nullptr) [[unlikely]]
    tl_external_ids = rocprof_mpi_thread_external_ids();
  return *tl_external_ids;
}

}  // namespace

std::uint64_t next_external_id() noexcept {
  std::int32_t rank = mpi_state().world_rank.load(std::memory_order_relaxed);
  if (rank < 0) rank = 0xFFFFF;  // no rank known: a value no real rank of 2^20 - 1 uses
  if (tl_next == tl_block_end) [[unlikely]] {
    tl_next = g_next_block.fetch_add(kSequenceBlock, std::memory_order_relaxed);
    tl_block_end = tl_next + kSequenceBlock;
  }
  const std::uint64_t sequence = tl_next++;
  return (static_cast<std::uint64_t>(rank) << kSequenceBits) |
         (sequence & ((std::uint64_t{1} << kSequenceBits) - 1));
}

bool recording_mpi() noexcept { return rocprof_mpi_recorder_active() != 0; }

bool calls_in_ticks() noexcept {
  static const bool ticks = rocprof_mpi_mpi_call_ticks() != 0;
  return ticks;
}

void CallRecord::emit(const rocprof_mpi_mpi_call_t& extra) const noexcept {
  if (!recorded) return;
  if (calls_in_ticks())
    rocprof_mpi_record_mpi_call_ticks(function_name(fn), &extra);
  else
    rocprof_mpi_record_mpi_call_static_name(function_name(fn), &extra);
}

CallScope::CallScope(Fn fn) noexcept : active_(recording_mpi()) {
  if (!active_) return;
  call_.fn = fn;
  call_.row.peer = -1;
  call_.row.tag = -1;
  call_.recorded = call_recorded(fn);
  if (!call_.recorded) return;  // the decoders still run (bookkeeping); no id, no times
  call_.row.external_id = next_external_id();
  pushed_ = rocprof_mpi_external_id_push(&external_ids(), call_.row.external_id) != 0;
  call_.row.begin_ns = call_stamp();
}

CallScope::~CallScope() {
  if (!active_ || !call_.recorded) return;
  if (pushed_) rocprof_mpi_external_id_pop(&external_ids(), nullptr);
  if (call_.row.end_ns == 0) call_.row.end_ns = call_stamp();
  call_.emit(call_.row);
}

}  // namespace rocprof::mpi
