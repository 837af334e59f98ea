#pragma once
// Plain values, arrays and strings appended to a byte vector and read back: what merge
// processes exchange (message summaries, corrections, partial summaries). Both sides are the
// same build on the same kind of machine, so values travel as their bytes.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace rocprof::merge {

// Plain values and arrays of them, appended to and read back from a byte vector.
class ByteWriter {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* bytes = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), bytes, bytes + sizeof(T));
  }
  template <typename T>
  void put_vector(const std::vector<T>& values) {
    put<std::uint64_t>(values.size());
    const auto* bytes = reinterpret_cast<const std::byte*>(values.data());
    bytes_.insert(bytes_.end(), bytes, bytes + values.size() * sizeof(T));
  }
  void put_string(const std::string& text) {
    put_bytes(std::as_bytes(std::span(text.data(), text.size())));
  }
  // Bytes with their length, read back by get_bytes without a copy.
  void put_bytes(std::span<const std::byte> bytes) {
    put<std::uint64_t>(bytes.size());
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  }
  void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
  std::vector<std::byte> take() { return std::move(bytes_); }

 private:
  std::vector<std::byte> bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  std::string get_string() {
    const std::span<const std::byte> bytes = get_bytes();
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  // What put_bytes wrote: a view into the message, valid as long as it is.
  std::span<const std::byte> get_bytes() {
    const auto size = get<std::uint64_t>();
    if (size > bytes_.size()) throw std::runtime_error("a merge process sent a damaged message");
    return {take(size), static_cast<std::size_t>(size)};
  }
  bool done() const noexcept { return position_ == bytes_.size(); }
  template <typename T>
  std::vector<T> get_vector() {
    const auto count = get<std::uint64_t>();
    if (count > bytes_.size()) throw std::runtime_error("a merge process sent a damaged message");
    std::vector<T> values(count);
    const std::byte* from = take(count * sizeof(T));
    if (count > 0) std::memcpy(values.data(), from, count * sizeof(T));  // data() may be null
    return values;
  }

 private:
  const std::byte* take(std::size_t size) {
    if (bytes_.size() - position_ < size)
      throw std::runtime_error("a merge process sent a damaged message");
    const std::byte* at = bytes_.data() + position_;
    position_ += size;
    return at;
  }
  std::span<const std::byte> bytes_;
  std::size_t position_ = 0;
};

}  // namespace rocprof::merge
