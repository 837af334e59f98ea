// A rank's doings (wait_input.hpp) held within a budget, with every one's time kept. Below the
// budget each doing is kept as recorded. Past it, neighbours of one kind on one lane (one
// thread's calls, one region level, one GPU queue) that lie less than a distance apart are
// joined into one doing from the first's begin to the last's end, named after the longer:
// a polling loop of a million one-microsecond MPI_Test calls becomes a few MPI_Test doings
// that cover the loop, rather than time no record explains. The distance starts at 1 us and
// doubles until half the budget is used, and stays for the doings that follow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "merge/analysis/doing.hpp"

namespace rocprof::merge {

class DoingList {
 public:
  // The budget is reserved at once (address space: memory only as doings come), so that the
  // list never grows by copying.
  explicit DoingList(std::size_t budget) : budget_(budget < 2 ? 2 : budget) {
    doings_.reserve(budget_ + 1);
  }
  void add(const Doing& doing);
  std::size_t size() const noexcept { return doings_.size(); }
  // Neighbours less than this apart were joined (0: none was).
  std::uint64_t joined_within_ns() const noexcept { return distance_; }
  // The doings in doing_order; the list is left empty.
  std::vector<Doing> take();

 private:
  void join_all();
  // Joins `next` into `into` if they are neighbours close enough; false if not.
  bool joined(Doing& into, const Doing& next) const;

  std::size_t budget_;
  std::uint64_t distance_ = 0;
  std::vector<Doing> doings_;
  std::vector<std::size_t> latest_of_lane_;  // index into doings_, kNone if none
  std::size_t sorted_ = 0;                   // doings_ before this are in doing_order
  static constexpr std::size_t kNone = ~std::size_t{0};
};

}  // namespace rocprof::merge
