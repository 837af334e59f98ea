// The analysis's exchange when each merge process analyses its ranks on several threads: every
// thread of every process is an analysis process of its own, numbered after the threads of
// the processes before it. A process's threads meet at a barrier; the last to arrive packs
// what they send to each other process into one part per process, exchanges those over the
// merge's processes (`outer`) and unpacks what came back, so that the merge's processes
// exchange once per step whatever their numbers of threads. Parts between threads of one
// process are moved, never copied.
#pragma once

#include <barrier>
#include <cstddef>
#include <exception>
#include <vector>

#include "merge/analysis/analysis_exchange.hpp"

namespace rocprof::merge {

class NestedExchange final : public AnalysisExchange {
 public:
  // What a process's threads share: made before them, outliving them.
  class Meeting {
   public:
    // Collective over `outer`: every process says how many threads it analyses on (at least
    // one).
    Meeting(const AnalysisExchange& outer, std::size_t threads);
    Meeting(const Meeting&) = delete;
    Meeting& operator=(const Meeting&) = delete;
    ~Meeting() = default;
    std::size_t threads() const noexcept { return threads_; }
    // A thread that stops (it failed) lets the others go on without it: its parts are empty
    // from then on.
    void leave() { barrier_.arrive_and_drop(); }

   private:
    friend class NestedExchange;
    struct Completion {
      Meeting* meeting;
      void operator()() const noexcept { meeting->exchange(); }
    };
    // The barrier's completion, on the last thread to arrive: the step's exchange.
    void exchange() noexcept;
    void pack_and_exchange();

    const AnalysisExchange& outer_;
    std::size_t threads_;
    std::vector<std::size_t> first_;  // per process its first thread's index; then the total
    std::vector<std::vector<std::vector<std::byte>>> out_;  // [thread][to]
    std::vector<std::vector<std::vector<std::byte>>> in_;   // [thread][from]
    std::exception_ptr failure_;  // the exchange's: every thread throws it
    std::barrier<Completion> barrier_;
  };

  NestedExchange(Meeting& meeting, std::size_t thread) : meeting_(meeting), thread_(thread) {}
  std::size_t processes() const override { return meeting_.first_.back(); }
  std::size_t index() const override { return meeting_.first_[meeting_.outer_.index()] + thread_; }
  std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const override;
  // This thread stops exchanging (Meeting::leave).
  void leave() const { meeting_.leave(); }

 private:
  Meeting& meeting_;
  std::size_t thread_;
};

}  // namespace rocprof::merge
