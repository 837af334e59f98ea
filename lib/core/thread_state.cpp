#include "lib/core/thread_state.hpp"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/core/activity_router.hpp"

namespace rocprof::core {
namespace {

constexpr std::uint64_t kCorrelationBlock = 4096;
std::atomic<std::uint64_t> g_next_correlation_block{1};

std::mutex g_registry_mutex;
std::vector<ThreadState*>& registry() {
  static auto* threads = new std::vector<ThreadState*>();  // never destroyed: used at exit
  return *threads;
}

// initial-exec: one instruction to reach; the pointer fits the static TLS surplus glibc keeps
// for libraries loaded later with dlopen (HSA_TOOLS_LIB loads us that way).
__attribute__((tls_model("initial-exec"))) thread_local ThreadState* tl_state = nullptr;
pthread_key_t g_exit_key;

bool register_membarrier() {
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}
// Decided once at load; with it, threads entering the hot path need no hardware fence.
const bool g_have_membarrier = register_membarrier();

void on_thread_exit(void* opaque) {
  auto* state = static_cast<ThreadState*>(opaque);
  detach_thread_from_pools(*state);
  {
    const std::lock_guard lock(g_registry_mutex);
    auto& threads = registry();
    threads.erase(std::remove(threads.begin(), threads.end(), state), threads.end());
  }
  tl_state = nullptr;
  delete state;
}

const bool g_exit_key_ready = pthread_key_create(&g_exit_key, on_thread_exit) == 0;

// The forking thread is the only one that exists in the child; its ids changed.
void refresh_ids_in_child() {
  if (tl_state == nullptr) return;
  tl_state->tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
  tl_state->pid = static_cast<std::uint32_t>(getpid());
}
[[maybe_unused]] const bool g_atfork_ready =
    pthread_atfork(nullptr, nullptr, refresh_ids_in_child) == 0;

ThreadState* create_state() {
  auto* state = new ThreadState();
  state->tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
  state->pid = static_cast<std::uint32_t>(getpid());
  {
    const std::lock_guard lock(g_registry_mutex);
    registry().push_back(state);
  }
  if (g_exit_key_ready) pthread_setspecific(g_exit_key, state);
  return state;
}

}  // namespace

ThreadState& this_thread_state() noexcept {
  if (tl_state == nullptr) [[unlikely]]
    tl_state = create_state();
  return *tl_state;
}

std::uint64_t next_correlation_id(ThreadState& state) noexcept {
  if (state.next_correlation_id == state.correlation_block_end) [[unlikely]] {
    const std::uint64_t first =
        g_next_correlation_block.fetch_add(kCorrelationBlock, std::memory_order_relaxed);
    state.next_correlation_id = first;
    state.correlation_block_end = first + kCorrelationBlock;
  }
  return state.next_correlation_id++;
}

void enter_hot_path(ThreadState& state) noexcept {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer models neither fences nor membarrier; a seq_cst store says the same.
  state.busy.store(1, std::memory_order_seq_cst);
  return;
#endif
  state.busy.store(1, std::memory_order_relaxed);
  // The busy store must be ordered before the route load that follows. With membarrier the
  // tearing-down thread forces that ordering on every CPU, so a compiler fence suffices.
  if (g_have_membarrier) [[likely]]
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

void wait_for_hot_path_quiescence() {
#if !defined(__SANITIZE_THREAD__)
  if (g_have_membarrier)
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  const std::lock_guard lock(g_registry_mutex);
  for (ThreadState* state : registry())
    while (state->busy.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
}

}  // namespace rocprof::core
