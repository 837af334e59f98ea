// Row vectors kept from one table read to the next. Growing a vector fills the new rows with
// zeros before the decoder overwrites them, and a fresh vector's memory is faulted in: a
// merge of many small ranks reads thousands of one-chunk tables, and this was a few percent
// of its time. A vector is kept at its size (shrinking it then costs nothing, and growing it
// fills only the rows it gains). Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "lib/format/schema.hpp"

namespace rocprof::format {

template <typename Row>
class RowBuffers {
 public:
  // A kept vector (of any size: resize it), or an empty one.
  static std::vector<Row> take() {
    Kept& kept = instance();
    const std::lock_guard lock(kept.mutex);
    if (kept.vectors.empty()) return {};
    std::vector<Row> rows = std::move(kept.vectors.back());
    kept.vectors.pop_back();
    return rows;
  }
  // Keeps `rows` (leaving it empty) unless enough are kept already, or it holds more than a
  // chunk (a whole large table read at once).
  static void give_back(std::vector<Row>& rows) noexcept {
    std::vector<Row> given;
    given.swap(rows);
    if (given.capacity() == 0 || given.capacity() > 2 * kChunkRows) return;
    Kept& kept = instance();
    const std::lock_guard lock(kept.mutex);
    if (kept.vectors.size() < kKept) kept.vectors.push_back(std::move(given));
  }

 private:
  // A few per thread that reads tables at once, with some to spare.
  static constexpr std::size_t kKept = 8;
  struct Kept {
    Kept() { vectors.reserve(kKept); }  // give_back allocates nothing
    std::mutex mutex;
    std::vector<std::vector<Row>> vectors;
  };
  static Kept& instance() {
    // Never destroyed, like ChunkReaderPool's: rows given back by static destructors at exit
    // find it alive.
    static Kept* const kept = new Kept;  // NOLINT(cppcoreguidelines-owning-memory)
    return *kept;
  }
};

}  // namespace rocprof::format
