#include "mpi/decode/requests.hpp"

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "mpi/decode/support.hpp"

namespace rocprof::mpi {
namespace {

// Requests complete on other threads than the one that started them under
// MPI_THREAD_MULTIPLE: a shared map, split in stripes so threads rarely meet.
constexpr std::size_t kStripes = 64;

struct Stripe {
  std::mutex mutex;
  std::unordered_map<MPI_Request, RequestInfo> requests;
};

std::array<Stripe, kStripes>& stripes() {
  static auto* instance = new std::array<Stripe, kStripes>();  // used until exit
  return *instance;
}

Stripe& stripe_of(MPI_Request request) {
  return stripes()[std::hash<MPI_Request>{}(request) / 16 % kStripes];
}

// The calling thread's own requests, oldest first per handle. The thread that starts a
// request usually completes it, and a handle does not always name one request: Open MPI
// hands every thread the same, already complete request for a send it finished at once.
__attribute__((tls_model(
    "initial-exec"))) thread_local std::unordered_map<MPI_Request, std::deque<RequestInfo>>
    tl_requests;

__attribute__((tls_model("initial-exec"))) thread_local std::vector<MPI_Status> tl_statuses;
__attribute__((tls_model("initial-exec"))) thread_local MPI_Status tl_status;
std::atomic<std::uint64_t> g_next_sequence{1};

}  // namespace

MPI_Status* scratch_status() noexcept { return &tl_status; }

MPI_Status* scratch_statuses(int count) noexcept {
  try {
    if (tl_statuses.size() < static_cast<std::size_t>(count))
      tl_statuses.resize(static_cast<std::size_t>(count));
    return tl_statuses.data();
  } catch (...) {
    return nullptr;  // keep the caller's MPI_STATUSES_IGNORE
  }
}

void remember_request(MPI_Request request, const RequestInfo& info) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  try {
    RequestInfo numbered = info;
    numbered.sequence = g_next_sequence.fetch_add(1, std::memory_order_relaxed);
    tl_requests[request].push_back(numbered);
    Stripe& stripe = stripe_of(request);
    const std::lock_guard lock(stripe.mutex);
    stripe.requests[request] = numbered;
  } catch (...) {
  }
}

void forget_request(MPI_Request request, std::uint64_t sequence) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  if (const auto mine = tl_requests.find(request); mine != tl_requests.end()) {
    auto& infos = mine->second;
    for (auto info = infos.begin(); info != infos.end(); ++info)
      if (info->sequence == sequence) {
        infos.erase(info);
        break;
      }
    if (infos.empty()) tl_requests.erase(mine);
  }
  Stripe& stripe = stripe_of(request);
  const std::lock_guard lock(stripe.mutex);
  const auto found = stripe.requests.find(request);
  if (found != stripe.requests.end() && found->second.sequence == sequence)
    stripe.requests.erase(found);
}

std::optional<RequestInfo> find_request(MPI_Request request, std::size_t skip) noexcept {
  if (request == MPI_REQUEST_NULL) return std::nullopt;
  if (const auto mine = tl_requests.find(request);
      mine != tl_requests.end() && skip < mine->second.size())
    return mine->second[skip];
  Stripe& stripe = stripe_of(request);
  const std::lock_guard lock(stripe.mutex);
  const auto found = stripe.requests.find(request);
  if (found == stripe.requests.end()) return std::nullopt;
  return found->second;
}

std::optional<RequestInfo> take_request(MPI_Request request) noexcept {
  const std::optional<RequestInfo> info = find_request(request);
  if (info) forget_request(request, info->sequence);
  return info;
}

}  // namespace rocprof::mpi
