// How the processes of a merge hand each other the analysis's pieces: one all-to-all
// exchange of bytes, from which gathering to the first process and broadcasting from it are
// made. The merge's MPI group implements it (merge/parallel/group_exchange.hpp); a merge of
// one process uses SingleProcessExchange, and tests may run several in threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

namespace rocprof::merge {

class AnalysisExchange {
 public:
  AnalysisExchange() = default;
  AnalysisExchange(const AnalysisExchange&) = delete;
  AnalysisExchange& operator=(const AnalysisExchange&) = delete;
  virtual ~AnalysisExchange() = default;
  virtual std::size_t processes() const = 0;
  virtual std::size_t index() const = 0;
  // Collective: `parts[p]` goes to process p (parts has processes() entries); returns what
  // each process sent this one, in process order. Any sizes.
  virtual std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const = 0;
};

class SingleProcessExchange final : public AnalysisExchange {
 public:
  std::size_t processes() const override { return 1; }
  std::size_t index() const override { return 0; }
  std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const override {
    std::vector<std::vector<std::byte>> received;
    received.push_back(std::move(parts.at(0)));
    return received;
  }
};

// Another exchange, timed: how long its all-to-alls took, waiting for the others included
// (for --timings). Not for concurrent use, as no exchange is.
class TimedExchange final : public AnalysisExchange {
 public:
  explicit TimedExchange(const AnalysisExchange& inner) : inner_(inner) {}
  std::size_t processes() const override { return inner_.processes(); }
  std::size_t index() const override { return inner_.index(); }
  std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const override {
    const auto began = std::chrono::steady_clock::now();
    std::vector<std::vector<std::byte>> received = inner_.all_to_all(std::move(parts));
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    ++count_;
    return received;
  }
  double seconds() const noexcept { return seconds_; }
  std::size_t count() const noexcept { return count_; }

 private:
  const AnalysisExchange& inner_;
  mutable double seconds_ = 0;
  mutable std::size_t count_ = 0;
};

// Every process's bytes on the first process, in process order; empty parts elsewhere.
inline std::vector<std::vector<std::byte>> gather_to_first(const AnalysisExchange& exchange,
                                                           std::vector<std::byte> mine) {
  std::vector<std::vector<std::byte>> parts(exchange.processes());
  parts[0] = std::move(mine);
  return exchange.all_to_all(std::move(parts));
}

// The first process's bytes, on every process.
inline std::vector<std::byte> broadcast_from_first(const AnalysisExchange& exchange,
                                                   const std::vector<std::byte>& bytes) {
  std::vector<std::vector<std::byte>> parts(exchange.processes());
  if (exchange.index() == 0)
    for (std::vector<std::byte>& part : parts) part = bytes;
  return std::move(exchange.all_to_all(std::move(parts)).at(0));
}

// Every process's bytes, on every process, in process order.
inline std::vector<std::vector<std::byte>> all_gather(const AnalysisExchange& exchange,
                                                      const std::vector<std::byte>& mine) {
  return exchange.all_to_all(std::vector<std::vector<std::byte>>(exchange.processes(), mine));
}

}  // namespace rocprof::merge
