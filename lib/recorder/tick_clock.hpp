// Timestamps in TSC ticks and their conversion to the trace clock (CLOCK_BOOTTIME ns).
//
// Where the CPU's time-stamp counter runs at a constant rate on every core (an invariant
// TSC the kernel trusts), the MPI layer stamps calls with it: a read costs about half of a
// clock_gettime. The recorder reads (tick, ns) pairs as records are delivered, keeps them
// (they go into the rank file's tick_calibration table), and converts every tick to ns by
// linear interpolation between the pairs around it, so the file holds nanoseconds as before.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocprof::recorder {

struct TickPair {
  std::uint64_t tick;
  std::uint64_t ns;  // CLOCK_BOOTTIME
};

// Whether ticks can stand for time here: the CPU says its TSC is invariant and the kernel
// still lists it as a usable clocksource (it removes a TSC it found unstable or unsynchronised
// across CPUs). `why` says what decided.
bool tsc_is_usable(std::string& why);

// A tick and the CLOCK_BOOTTIME read at the same moment: the tightest of a few tries, the
// tick taken half-way through the clock read.
TickPair read_tick_pair() noexcept;

// Converts ticks to ns from pairs observed in increasing order. Pairs at least
// kKeepSpacingNs apart are kept (up to kKeptPairs, the oldest dropped); the newest pair
// observed is used too until a newer one comes.
class TickConverter {
 public:
  static constexpr std::uint64_t kKeepSpacingNs = 100'000'000;  // 100 ms
  static constexpr std::size_t kKeptPairs = 4096;               // 410 s at the spacing

  // A new pair, later than every earlier one. Returns true when it was kept (`keep`: even
  // closer than kKeepSpacingNs to the last kept one, for the run's last pair).
  bool observe(TickPair pair, bool keep = false);
  // ns for `tick`: between two pairs by interpolation, beyond them by the slope of the
  // nearest two that are kKeepSpacingNs apart (of any two when no such pair exists yet).
  std::uint64_t to_ns(std::uint64_t tick) const noexcept;
  bool empty() const noexcept { return kept_.empty(); }

 private:
  // Between `low` and `high`, remembering the span: most ticks of a delivery fall in the
  // same one, and then need neither the search nor the division.
  std::uint64_t between(const TickPair& low, const TickPair& high,
                        std::uint64_t tick) const noexcept;

  std::vector<TickPair> kept_;
  TickPair newest_{};
  bool newest_kept_ = true;
  struct Span {
    TickPair low{};
    std::uint64_t high_tick = 0;
    double slope = 0;  // ns per tick
    bool valid = false;
    // ns for a tick in [low.tick, high_tick]
    std::uint64_t at(std::uint64_t tick) const noexcept;
  };
  mutable Span span_;
};

}  // namespace rocprof::recorder
