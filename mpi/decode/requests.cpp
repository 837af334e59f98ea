#include "mpi/decode/requests.hpp"

#include <array>
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

thread_local std::vector<MPI_Status> tl_statuses;
thread_local MPI_Status tl_status;

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
    Stripe& stripe = stripe_of(request);
    const std::lock_guard lock(stripe.mutex);
    stripe.requests[request] = info;
  } catch (...) {
  }
}

std::optional<RequestInfo> find_request(MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL) return std::nullopt;
  Stripe& stripe = stripe_of(request);
  const std::lock_guard lock(stripe.mutex);
  const auto found = stripe.requests.find(request);
  if (found == stripe.requests.end()) return std::nullopt;
  return found->second;
}

std::optional<RequestInfo> take_request(MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL) return std::nullopt;
  Stripe& stripe = stripe_of(request);
  const std::lock_guard lock(stripe.mutex);
  const auto found = stripe.requests.find(request);
  if (found == stripe.requests.end()) return std::nullopt;
  RequestInfo info = found->second;
  stripe.requests.erase(found);
  return info;
}

}  // namespace rocprof::mpi
