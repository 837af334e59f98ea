#include "lib/recorder/tick_clock.hpp"

#include <cpuid.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iterator>

#include "lib/core/tsc.hpp"

namespace rocprof::recorder {
namespace {

constexpr unsigned kPowerManagementLeaf = 0x80000007;
constexpr unsigned kInvariantTscBit = 1U << 8;  // of EDX

std::uint64_t boottime_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// ns at `tick` on the line through `anchor` with the slope of `from` -> `to`. In double: the
// ticks of one interval (minutes at most) keep sub-nanosecond precision in its 53 bits.
std::uint64_t along(const TickPair& anchor, const TickPair& from, const TickPair& to,
                    std::uint64_t tick) noexcept {
  const double dt = tick >= anchor.tick ? static_cast<double>(tick - anchor.tick)
                                        : -static_cast<double>(anchor.tick - tick);
  if (to.tick == from.tick)  // no slope known
    return anchor.ns + static_cast<std::uint64_t>(static_cast<std::int64_t>(dt));
  const double slope = (static_cast<double>(to.ns) - static_cast<double>(from.ns)) /
                       (static_cast<double>(to.tick) - static_cast<double>(from.tick));
  // The offset in double, the anchor exact: nodes stay up for longer than 2^53 ns.
  const std::int64_t offset = std::llround(dt * slope);
  if (offset < 0 && static_cast<std::uint64_t>(-offset) > anchor.ns) return 0;
  return anchor.ns + static_cast<std::uint64_t>(offset);
}

}  // namespace

bool tsc_is_usable(std::string& why) {
  unsigned eax = 0;
  unsigned ebx = 0;
  unsigned ecx = 0;
  unsigned edx = 0;
  if (__get_cpuid_max(0x80000000, nullptr) < kPowerManagementLeaf ||
      __get_cpuid(kPowerManagementLeaf, &eax, &ebx, &ecx, &edx) == 0 ||
      (edx & kInvariantTscBit) == 0) {
    why = "the CPU does not report an invariant TSC";
    return false;
  }
  std::ifstream sources("/sys/devices/system/clocksource/clocksource0/available_clocksource");
  const std::vector<std::string> names{std::istream_iterator<std::string>(sources),
                                       std::istream_iterator<std::string>()};
  if (std::find(names.begin(), names.end(), "tsc") == names.end()) {
    why = "the kernel does not list the TSC as a usable clocksource";
    return false;
  }
  why = "invariant TSC, trusted by the kernel";
  return true;
}

TickPair read_tick_pair() noexcept {
  TickPair best{};
  std::uint64_t best_window = ~std::uint64_t{0};
  for (int attempt = 0; attempt < 5; ++attempt) {
    const std::uint64_t before = core::read_tsc();
    const std::uint64_t ns = boottime_ns();
    const std::uint64_t after = core::read_tsc();
    if (after - before < best_window) {
      best_window = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

bool TickConverter::observe(TickPair pair, bool keep) {
  newest_ = pair;
  span_.valid = false;
  if (!keep && !kept_.empty() && pair.ns - kept_.back().ns < kKeepSpacingNs) {
    newest_kept_ = false;
    return false;
  }
  if (kept_.size() == kKeptPairs) kept_.erase(kept_.begin());
  kept_.push_back(pair);
  newest_kept_ = true;
  return true;
}

std::uint64_t TickConverter::Span::at(std::uint64_t tick) const noexcept {
  // Rounded to nearest by adding a half and truncating (no library call on this path, run
  // for every record); the offset is positive, and a half-way case may go either way by 1 ns.
  const double offset = static_cast<double>(tick - low.tick) * slope;
  if (offset <= 0) return low.ns;
  // NOLINTNEXTLINE(bugprone-incorrect-roundings): positive, and 1 ns either way is no matter
  return low.ns + static_cast<std::uint64_t>(offset + 0.5);
}

std::uint64_t TickConverter::between(const TickPair& low, const TickPair& high,
                                     std::uint64_t tick) const noexcept {
  if (high.tick == low.tick) return along(low, low, high, tick);
  span_ = {low, high.tick,
           (static_cast<double>(high.ns) - static_cast<double>(low.ns)) /
               (static_cast<double>(high.tick) - static_cast<double>(low.tick)),
           true};
  return span_.at(tick);
}

std::uint64_t TickConverter::to_ns(std::uint64_t tick) const noexcept {
  if (span_.valid && tick >= span_.low.tick && tick <= span_.high_tick) return span_.at(tick);
  if (kept_.empty()) return tick;
  const auto later = [](std::uint64_t t, const TickPair& p) { return t < p.tick; };
  const auto above = std::upper_bound(kept_.begin(), kept_.end(), tick, later);
  const TickPair& oldest = kept_.front();
  const TickPair& last = kept_.back();
  if (above == kept_.begin())  // before every pair: back from the oldest
    return kept_.size() > 1 ? along(oldest, oldest, kept_[1], tick)
                            : along(oldest, oldest, newest_, tick);
  if (above != kept_.end()) return between(*(above - 1), *above, tick);
  if (!newest_kept_ && tick <= newest_.tick) return between(last, newest_, tick);
  // Beyond the newest pair: on from it, by the slope of the last two kept pairs (at least
  // kKeepSpacingNs apart, so a pair's read error hardly tilts it).
  const TickPair& anchor = newest_kept_ ? last : newest_;
  if (kept_.size() > 1) return along(anchor, kept_[kept_.size() - 2], last, tick);
  return along(anchor, last, newest_, tick);
}

}  // namespace rocprof::recorder
