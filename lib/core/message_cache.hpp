// ROC-TX messages kept once per thread instead of copied into every record.
//
// Most programs mark the same few texts over and over (a range per iteration). The first time
// a thread records a text it is copied into memory that lives as long as the process; later
// records of the same text (same pointer, same bytes) point there, and the record's chunk
// holds no copy. Records then carry a message pointer that stays valid after delivery.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rocprof::core {

class MessageCache {
 public:
  // Per thread, and for the whole process: past these, texts are copied into records again.
  static constexpr std::size_t kThreadBudgetBytes = std::size_t{64} << 10;
  static constexpr std::size_t kProcessBudgetBytes = std::size_t{16} << 20;

  // A lasting copy of `message` (at most `max_length` bytes of it, then a NUL), or nullptr
  // when the budget is spent. Hot path when the text was seen: a compare, no copy.
  const char* lasting_copy(const char* message, std::size_t max_length) noexcept;

 private:
  static constexpr std::size_t kEntries = 64;  // 32 sets of 2, by the text's address (slot_of)
  static constexpr std::size_t kBlockBytes = std::size_t{16} << 10;
  struct Entry {
    const char* source = nullptr;
    const char* copy = nullptr;
    std::size_t length = 0;
  };
  const char* keep(const char* message, std::size_t length) noexcept;

  Entry entries_[kEntries];
  char* block_ = nullptr;  // current block of lasting copies
  std::size_t block_used_ = 0;
  std::size_t kept_bytes_ = 0;
};

}  // namespace rocprof::core
