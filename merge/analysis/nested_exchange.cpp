#include "merge/analysis/nested_exchange.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {

NestedExchange::Meeting::Meeting(const AnalysisExchange& outer, std::size_t threads)
    : outer_(outer),
      threads_(std::max<std::size_t>(threads, 1)),
      out_(threads_),
      in_(threads_),
      barrier_(static_cast<std::ptrdiff_t>(threads_), Completion{this}) {
  ByteWriter mine;
  mine.put<std::uint64_t>(threads_);
  const std::vector<std::byte> told = mine.take();
  first_.push_back(0);
  for (const std::vector<std::byte>& part : all_gather(outer_, told)) {
    ByteReader in(part);
    const auto count = in.get<std::uint64_t>();
    if (count == 0 || count > (std::uint64_t{1} << 20) || !in.done())
      throw std::runtime_error("a merge process sent a damaged analysis message");
    first_.push_back(first_.back() + static_cast<std::size_t>(count));
  }
  if (first_[outer_.index() + 1] - first_[outer_.index()] != threads_)
    throw std::runtime_error("a merge process sent a damaged analysis message");
}

void NestedExchange::Meeting::exchange() noexcept {
  try {
    pack_and_exchange();
  } catch (...) {
    failure_ = std::current_exception();
  }
  for (std::vector<std::vector<std::byte>>& parts : out_) parts.clear();
}

void NestedExchange::Meeting::pack_and_exchange() {
  const std::size_t me = outer_.index();
  const std::size_t total = first_.back();
  for (std::vector<std::vector<std::byte>>& parts : in_) parts.assign(total, {});
  // A thread that left (or failed before it sent) sends nothing.
  for (std::vector<std::vector<std::byte>>& parts : out_)
    if (parts.empty()) parts.resize(total);
  const auto part = [this](std::size_t thread, std::size_t to) -> std::vector<std::byte>& {
    return out_[thread][to];
  };
  std::vector<std::vector<std::byte>> outgoing(outer_.processes());
  for (std::size_t process = 0; process < outgoing.size(); ++process) {
    if (process == me) continue;
    std::size_t bytes = 0;
    for (std::size_t t = 0; t < threads_; ++t)
      for (std::size_t to = first_[process]; to < first_[process + 1]; ++to)
        bytes += sizeof(std::uint64_t) + part(t, to).size();
    ByteWriter packed;
    packed.reserve(bytes);
    for (std::size_t t = 0; t < threads_; ++t)
      for (std::size_t to = first_[process]; to < first_[process + 1]; ++to) {
        std::vector<std::byte>& bytes_to = part(t, to);
        packed.put_bytes(bytes_to);
        std::vector<std::byte>().swap(bytes_to);
      }
    outgoing[process] = packed.take();
  }
  for (std::size_t t = 0; t < threads_; ++t)
    for (std::size_t to = first_[me]; to < first_[me + 1]; ++to)
      in_[to - first_[me]][first_[me] + t] = std::move(part(t, to));
  std::vector<std::vector<std::byte>> received = outer_.all_to_all(std::move(outgoing));
  for (std::size_t process = 0; process < received.size(); ++process) {
    if (process == me) continue;
    ByteReader in(received[process]);
    for (std::size_t from = first_[process]; from < first_[process + 1]; ++from)
      for (std::size_t t = 0; t < threads_; ++t) {
        const std::span<const std::byte> bytes = in.get_bytes();
        in_[t][from].assign(bytes.begin(), bytes.end());
      }
    if (!in.done()) throw std::runtime_error("a merge process sent a damaged analysis message");
    std::vector<std::byte>().swap(received[process]);
  }
}

std::vector<std::vector<std::byte>> NestedExchange::all_to_all(
    std::vector<std::vector<std::byte>> parts) const {
  if (parts.size() != processes())
    throw std::logic_error("the analysis's all_to_all needs a part per process");
  meeting_.out_[thread_] = std::move(parts);
  meeting_.barrier_.arrive_and_wait();
  if (meeting_.failure_) std::rethrow_exception(meeting_.failure_);
  return std::move(meeting_.in_[thread_]);
}

}  // namespace rocprof::merge
