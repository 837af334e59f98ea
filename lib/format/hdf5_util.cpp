#include "lib/format/hdf5_util.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rocprof::format {
namespace {

Handle vlen_string_type() {
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

// Opens `name` on `object` for writing, creating it with `type` and `space` if missing.
Handle open_or_create(hid_t object, const char* name, hid_t type, hid_t space) {
  if (H5Aexists(object, name) > 0) return Handle(H5Aopen(object, name, H5P_DEFAULT));
  return Handle(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
}

template <typename T>
bool write_scalar(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                  const T& value) {
  const Handle space(H5Screate(H5S_SCALAR));
  const Handle attribute = open_or_create(object, name, file_type, space.get());
  return attribute.valid() && H5Awrite(attribute.get(), memory_type, &value) >= 0;
}

// The attribute `name` of `object`, or an invalid handle (with nothing printed and nothing
// left on the error stack) if it has none. One look through the object's header: asking
// H5Aexists first looked twice, a tenth of checking a small rank's file.
Handle open_attribute(hid_t object, const char* name) {
  const QuietErrors quiet;
  Handle attribute(H5Aopen(object, name, H5P_DEFAULT));
  if (!attribute.valid()) H5Eclear2(H5E_DEFAULT);
  return attribute;
}

template <typename T>
bool read_scalar(hid_t object, const char* name, H5T_class_t expected, hid_t memory_type,
                 T& value) {
  const Handle attribute = open_attribute(object, name);
  if (!attribute.valid()) return false;
  const Handle type(H5Aget_type(attribute.get()));
  const Handle space(H5Aget_space(attribute.get()));
  if (H5Tget_class(type.get()) != expected || H5Sget_simple_extent_npoints(space.get()) != 1)
    return false;
  return H5Aread(attribute.get(), memory_type, &value) >= 0;
}

herr_t collect_error(unsigned depth, const H5E_error2_t* error, void* opaque) {
  auto& text = *static_cast<std::string*>(opaque);
  // The outermost two entries name what failed and why; deeper ones repeat the detail.
  if (depth < 2 && error->desc != nullptr) {
    if (!text.empty()) text += ": ";
    text += fmt::format("{}(): {}", error->func_name, error->desc);
  }
  return 0;
}

}  // namespace

void Handle::reset() noexcept {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE:
      H5Fclose(id_);
      break;
    case H5I_GROUP:
      H5Gclose(id_);
      break;
    case H5I_DATASET:
      H5Dclose(id_);
      break;
    case H5I_DATASPACE:
      H5Sclose(id_);
      break;
    case H5I_DATATYPE:
      H5Tclose(id_);
      break;
    case H5I_ATTR:
      H5Aclose(id_);
      break;
    case H5I_GENPROP_LST:
      H5Pclose(id_);
      break;
    default:
      H5Idec_ref(id_);
      break;
  }
  id_ = H5I_INVALID_HID;
}

QuietErrors::QuietErrors() noexcept {
  H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

std::string hdf5_error_text() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, &text);
  // One line: HDF5's messages may hold line breaks (a write error's time stamp ends in one).
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

bool write_attribute(hid_t object, const char* name, std::uint64_t value) {
  return write_scalar(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, value);
}
bool write_attribute(hid_t object, const char* name, std::int32_t value) {
  return write_scalar(object, name, H5T_STD_I32LE, H5T_NATIVE_INT32, value);
}
bool write_attribute(hid_t object, const char* name, std::uint32_t value) {
  return write_scalar(object, name, H5T_STD_U32LE, H5T_NATIVE_UINT32, value);
}
bool write_attribute(hid_t object, const char* name, const std::string& value) {
  const Handle type = vlen_string_type();
  const char* text = value.c_str();
  return write_scalar(object, name, type.get(), type.get(), text);
}

bool write_attribute(hid_t object, const char* name, const std::vector<std::string>& values) {
  const Handle type = vlen_string_type();
  const hsize_t count = values.size();
  const Handle space(count == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &count, nullptr));
  const Handle attribute = open_or_create(object, name, type.get(), space.get());
  if (!attribute.valid()) return false;
  if (count == 0) return true;
  std::vector<const char*> texts;
  texts.reserve(values.size());
  for (const auto& value : values) texts.push_back(value.c_str());
  return H5Awrite(attribute.get(), type.get(), texts.data()) >= 0;
}

bool write_attribute(hid_t object, const char* name, const std::vector<std::uint32_t>& values) {
  const hsize_t count = values.size();
  const Handle space(H5Screate_simple(1, &count, nullptr));
  const Handle attribute = open_or_create(object, name, H5T_STD_U32LE, space.get());
  return attribute.valid() && H5Awrite(attribute.get(), H5T_NATIVE_UINT32, values.data()) >= 0;
}

bool write_string_dataset(hid_t parent, const char* name, const std::vector<std::string>& values) {
  const Handle type = vlen_string_type();
  const hsize_t count = values.size();
  const Handle space(H5Screate_simple(1, &count, nullptr));
  const Handle dataset(
      H5Dcreate2(parent, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!dataset.valid()) return false;
  std::vector<const char*> texts;
  texts.reserve(values.size());
  for (const auto& value : values) texts.push_back(value.c_str());
  return count == 0 ||
         H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()) >= 0;
}

bool read_string_dataset(hid_t parent, const char* name, std::vector<std::string>& values) {
  values.clear();
  if (H5Lexists(parent, name, H5P_DEFAULT) <= 0) return false;
  const Handle dataset(H5Dopen2(parent, name, H5P_DEFAULT));
  if (!dataset.valid()) return false;
  const Handle type(H5Dget_type(dataset.get()));
  const Handle space(H5Dget_space(dataset.get()));
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0) return false;
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count <= 0) return count == 0;
  const Handle memory_type = vlen_string_type();
  std::vector<char*> texts(static_cast<std::size_t>(count), nullptr);
  if (H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()) < 0)
    return false;
  for (char* text : texts) {
    values.emplace_back(text == nullptr ? "" : text);
    H5free_memory(text);
  }
  return true;
}

bool read_attribute(hid_t object, const char* name, std::uint64_t& value) {
  return read_scalar(object, name, H5T_INTEGER, H5T_NATIVE_UINT64, value);
}
bool read_attribute(hid_t object, const char* name, std::int32_t& value) {
  return read_scalar(object, name, H5T_INTEGER, H5T_NATIVE_INT32, value);
}
bool read_attribute(hid_t object, const char* name, std::uint32_t& value) {
  return read_scalar(object, name, H5T_INTEGER, H5T_NATIVE_UINT32, value);
}

bool read_attribute(hid_t object, const char* name, std::string& value) {
  std::vector<std::string> values;
  if (!read_attribute(object, name, values) || values.size() != 1) return false;
  value = std::move(values.front());
  return true;
}

bool read_attribute(hid_t object, const char* name, std::vector<std::string>& values) {
  values.clear();
  const Handle attribute = open_attribute(object, name);
  if (!attribute.valid()) return false;
  const Handle type(H5Aget_type(attribute.get()));
  const Handle space(H5Aget_space(attribute.get()));
  if (H5Tget_class(type.get()) != H5T_STRING) return false;
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count <= 0) return count == 0;
  if (H5Tis_variable_str(type.get()) > 0) {
    const Handle memory_type = vlen_string_type();
    std::vector<char*> texts(static_cast<std::size_t>(count), nullptr);
    if (H5Aread(attribute.get(), memory_type.get(), texts.data()) < 0) return false;
    for (char* text : texts) {
      values.emplace_back(text == nullptr ? "" : text);
      H5free_memory(text);
    }
    return true;
  }
  const std::size_t width = H5Tget_size(type.get());
  std::string buffer(width * static_cast<std::size_t>(count), '\0');
  if (H5Aread(attribute.get(), type.get(), buffer.data()) < 0) return false;
  for (hssize_t i = 0; i < count; ++i) {
    std::string text = buffer.substr(static_cast<std::size_t>(i) * width, width);
    text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
    values.push_back(std::move(text));
  }
  return true;
}

bool read_attribute(hid_t object, const char* name, std::vector<std::uint32_t>& values) {
  values.clear();
  const Handle attribute = open_attribute(object, name);
  if (!attribute.valid()) return false;
  const Handle type(H5Aget_type(attribute.get()));
  const Handle space(H5Aget_space(attribute.get()));
  if (H5Tget_class(type.get()) != H5T_INTEGER) return false;
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0 || count > 64) return false;
  values.resize(static_cast<std::size_t>(count));
  return H5Aread(attribute.get(), H5T_NATIVE_UINT32, values.data()) >= 0;
}

}  // namespace rocprof::format
