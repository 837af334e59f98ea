#include "merge/clock/step_function.hpp"

#include <algorithm>
#include <stdexcept>

namespace rocprof::merge {
namespace {

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(value));
}

// Reads a varint at `*at` (before `end`); false if it runs past `end` or over 64 bits.
bool get_varint(const std::uint8_t*& at, const std::uint8_t* end, std::uint64_t& value) {
  value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (at == end) return false;
    const std::uint8_t byte = *at++;
    value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return shift < 63 || byte <= 1;
  }
  return false;
}

}  // namespace

std::size_t StepFunction::chunk_at(std::uint64_t t) const noexcept {
  return in_force_at(chunks_, t, [](const Chunk& chunk) { return chunk.time; });
}

std::size_t StepFunction::decode(std::size_t index, Step* out) const noexcept {
  const Chunk& chunk = chunks_[index];
  const std::uint8_t* at = deltas_.data() + chunk.offset;
  const std::uint8_t* end = deltas_.data() + deltas_.size();
  Step step{chunk.time, chunk.value};
  out[0] = step;
  for (std::size_t i = 1; i < chunk.count; ++i) {
    std::uint64_t dt = 0;
    std::uint64_t dv = 0;
    get_varint(at, end, dt);  // checked when the function was built
    get_varint(at, end, dv);
    step.first += dt;
    step.second += dv;
    out[i] = step;
  }
  return chunk.count;
}

const StepFunction::Step* StepFunction::in_force(const Step* first, const Step* last,
                                                 std::uint64_t t) noexcept {
  return std::prev(std::upper_bound(
      first, last, t, [](std::uint64_t time, const Step& step) { return time < step.first; }));
}

std::uint64_t StepFunction::at(std::uint64_t t) const noexcept {
  if (!tail_.empty() && t >= tail_.front().first)
    return in_force(tail_.data(), tail_.data() + tail_.size(), t)->second;
  const std::size_t index = chunk_at(t);
  if (index == chunks_.size()) return 0;
  std::array<Step, kChunkSteps> steps;
  return in_force(steps.data(), steps.data() + decode(index, steps.data()), t)->second;
}

std::size_t StepFunction::size() const noexcept {
  std::size_t steps = 0;
  for (const Chunk& chunk : chunks_) steps += chunk.count;
  return steps;
}

std::vector<StepFunction::Step> StepFunction::steps_from(std::size_t index) const {
  std::vector<Step> steps;
  std::array<Step, kChunkSteps> chunk;
  for (std::size_t i = index; i < chunks_.size(); ++i) {
    const std::size_t count = decode(i, chunk.data());
    steps.insert(steps.end(), chunk.begin(), chunk.begin() + count);
  }
  return steps;
}

std::vector<StepFunction::Step> StepFunction::steps() const { return steps_from(0); }

void StepFunction::append(std::uint64_t time, std::uint64_t value) {
  if (chunks_.empty() || chunks_.back().count == kChunkSteps) {
    chunks_.push_back({time, value, deltas_.size(), 1});
    tail_.clear();
  } else {
    put_varint(deltas_, time - tail_.back().first);
    put_varint(deltas_, value - tail_.back().second);
    ++chunks_.back().count;
  }
  tail_.emplace_back(time, value);
}

void StepFunction::truncate(std::size_t index) {
  if (index < chunks_.size()) {
    deltas_.resize(chunks_[index].offset);
    chunks_.resize(index);
  }
  tail_.resize(kChunkSteps);
  tail_.resize(index > 0 ? decode(index - 1, tail_.data()) : 0);
}

void StepFunction::raise(std::uint64_t t, std::uint64_t shift) {
  const std::uint64_t total = at(t) + shift;
  if (tail_.empty() || t > tail_.back().first) {  // the usual case: a rank's walk goes forward
    if (total > max()) append(t, total);
    return;
  }
  // At or before the last step: decode from the chunk holding `t`, fix, encode again.
  std::size_t index = chunk_at(t);
  if (index == chunks_.size()) index = 0;
  std::vector<Step> tail = steps_from(index);
  auto position = std::lower_bound(tail.begin(), tail.end(), Step{t, 0});
  if (position != tail.end() && position->first == t)
    position->second = std::max(position->second, total);
  else
    position = tail.insert(position, {t, total});
  for (auto it = position; it != tail.end(); ++it) it->second = std::max(it->second, total);
  truncate(index);
  for (const Step& step : tail) append(step.first, step.second);
}

void StepFunction::assign(const std::vector<Step>& steps) {
  chunks_.clear();
  deltas_.clear();
  tail_.clear();
  for (const Step& step : steps) {
    if (!tail_.empty() && (step.first <= tail_.back().first || step.second < tail_.back().second))
      throw std::runtime_error("a correction's steps are out of order");
    append(step.first, step.second);
  }
}

void StepFunction::shrink_to_fit() {
  chunks_.shrink_to_fit();
  deltas_.shrink_to_fit();
}

StepFunction StepFunction::from_encoded(std::vector<Chunk> chunks,
                                        std::vector<std::uint8_t> deltas) {
  StepFunction function;
  function.chunks_ = std::move(chunks);
  function.deltas_ = std::move(deltas);
  const auto bad = [] { throw std::runtime_error("a correction's encoding is damaged"); };
  const std::uint8_t* begin = function.deltas_.data();
  if (function.chunks_.empty() ? !function.deltas_.empty() : function.chunks_[0].offset != 0)
    bad();  // bytes no step uses
  Step last{0, 0};
  for (std::size_t i = 0; i < function.chunks_.size(); ++i) {
    const Chunk& chunk = function.chunks_[i];
    const std::uint64_t next =
        i + 1 < function.chunks_.size() ? function.chunks_[i + 1].offset : function.deltas_.size();
    if (chunk.count == 0 || chunk.count > kChunkSteps || chunk.offset > next ||
        next > function.deltas_.size())
      bad();
    if (i > 0 && (chunk.time <= last.first || chunk.value < last.second)) bad();
    Step step{chunk.time, chunk.value};
    const std::uint8_t* at = begin + chunk.offset;
    for (std::uint64_t k = 1; k < chunk.count; ++k) {
      std::uint64_t dt = 0;
      std::uint64_t dv = 0;
      if (!get_varint(at, begin + next, dt) || !get_varint(at, begin + next, dv) || dt == 0 ||
          step.first + dt < step.first || step.second + dv < step.second)
        bad();
      step.first += dt;
      step.second += dv;
    }
    if (at != begin + next) bad();
    last = step;
  }
  function.truncate(function.chunks_.size());  // decodes the last chunk into tail_
  return function;
}

void StepFunction::Lookup::find(std::uint64_t t) noexcept {
  const std::size_t index = function_.chunk_at(t);
  if (index == function_.chunks_.size()) {
    stretch_ = {0, function_.chunks_.empty() ? ~std::uint64_t{0} : function_.chunks_[0].time};
    value_ = 0;
    return;
  }
  if (index != chunk_) {
    count_ = function_.decode(index, steps_.data());
    chunk_ = index;
  }
  const auto k =
      static_cast<std::size_t>(in_force(steps_.data(), steps_.data() + count_, t) - steps_.data());
  stretch_ = {steps_[k].first, k + 1 < count_ ? steps_[k + 1].first : function_.chunk_end(index)};
  value_ = steps_[k].second;
}

}  // namespace rocprof::merge
