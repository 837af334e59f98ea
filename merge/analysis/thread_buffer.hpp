// A vector the calling thread keeps from one call to the next, for orderings done once per
// rank: a vector of their own each time was fresh memory for every rank, which the kernel
// then had to map page by page.
#pragma once

#include <cstddef>
#include <vector>

namespace rocprof::merge {

// `Tag` tells apart two buffers of one item type that one call uses at once.
template <typename T, typename Tag = void>
class ThreadBuffer {
 public:
  // The thread's buffer, of at least `size` items (their values are left from earlier use).
  static std::vector<T>& at_least(std::size_t size) {
    std::vector<T>& buffer = held();
    if (buffer.size() < size) buffer.resize(size);
    return buffer;
  }
  // Gives the buffer's memory back if it grew past `most` items: one large rank then does
  // not leave its size with every thread that ordered it.
  static void keep_at_most(std::size_t most) {
    std::vector<T>& buffer = held();
    if (buffer.size() > most) std::vector<T>().swap(buffer);
  }

 private:
  static std::vector<T>& held() {
    thread_local std::vector<T> buffer;
    return buffer;
  }
};

}  // namespace rocprof::merge
