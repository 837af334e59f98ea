#include "cli/merge/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace rocprof::cli {

namespace {
constexpr std::size_t kWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled && isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { clear(); }

void ProgressBar::end_phase() {
  if (!in_phase_) return;
  const auto now = std::chrono::steady_clock::now();
  timings_.emplace_back(label_, std::chrono::duration<double>(now - phase_start_).count());
  in_phase_ = false;
}

void ProgressBar::phase(std::string label) {
  end_phase();
  label_ = std::move(label);
  phase_start_ = std::chrono::steady_clock::now();
  in_phase_ = true;
  last_draw_ = {};  // the phase's first update draws at once
}

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done != total && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  const std::size_t filled = total == 0 ? 0 : done * kWidth / total;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  // \r returns to the line start; ESC[K erases what a longer earlier line left behind.
  fmt::print(stderr, "\rrocprof-merge: {} [{}{}] {}/{} {:.1f}s\x1b[K", label_,
             std::string(filled, '#'), std::string(kWidth - filled, '.'), done, total, seconds);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  end_phase();
  if (!drawn_) return;
  fmt::print(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace rocprof::cli
