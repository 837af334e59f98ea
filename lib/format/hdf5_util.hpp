// Small HDF5 helpers shared by the rank-file writer and reader.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rocprof::format {

// Owns an HDF5 identifier and closes it with the right function.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) noexcept : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }
  void reset() noexcept;
  // Gives up ownership without closing (after the caller closed it itself).
  hid_t release_without_close() noexcept { return std::exchange(id_, H5I_INVALID_HID); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Silences HDF5's automatic error printing on this thread while alive (the application may
// use HDF5 too: only the calling thread's setting changes, in the thread-safe library).
class QuietErrors {
 public:
  QuietErrors() noexcept;
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

// The innermost messages of this thread's HDF5 error stack, e.g. "H5Dwrite_chunk(): unable
// to write raw data chunk: file write failed", or "" if the stack is empty.
std::string hdf5_error_text();

// Scalar attributes.
bool write_attribute(hid_t object, const char* name, std::uint64_t value);
bool write_attribute(hid_t object, const char* name, std::int32_t value);
bool write_attribute(hid_t object, const char* name, std::uint32_t value);
bool write_attribute(hid_t object, const char* name, const std::string& value);
bool write_attribute(hid_t object, const char* name, const std::vector<std::string>& values);
bool write_attribute(hid_t object, const char* name, const std::vector<std::uint32_t>& values);

// A one-dimensional dataset of variable-length strings (for lists too long for an attribute,
// whose header message is limited to 64 KiB).
bool write_string_dataset(hid_t parent, const char* name, const std::vector<std::string>& values);
bool read_string_dataset(hid_t parent, const char* name, std::vector<std::string>& values);

bool read_attribute(hid_t object, const char* name, std::uint64_t& value);
bool read_attribute(hid_t object, const char* name, std::int32_t& value);
bool read_attribute(hid_t object, const char* name, std::uint32_t& value);
bool read_attribute(hid_t object, const char* name, std::string& value);
bool read_attribute(hid_t object, const char* name, std::vector<std::string>& values);
bool read_attribute(hid_t object, const char* name, std::vector<std::uint32_t>& values);

}  // namespace rocprof::format
