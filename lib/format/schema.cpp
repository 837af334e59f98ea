#include "lib/format/schema.hpp"

#include <zlib.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rocprof::format {
namespace {

#define ROCPROF_COLUMN(row, field, type) \
  Column { #field, ColumnType::type, static_cast < std::uint32_t>(offsetof(row, field)) }
#define ROCPROF_ARRAY_COLUMN(row, field, index, name, type)                                \
  Column {                                                                                 \
    name, ColumnType::type,                                                                \
        static_cast<std::uint32_t>(offsetof(row, field) + (index) * sizeof(std::uint32_t)) \
  }

#define ROCPROF_ARRAY_COLUMN_SINCE(row, field, index, name, type, minor)                          \
  Column {                                                                                        \
    name, ColumnType::type,                                                                       \
        static_cast<std::uint32_t>(offsetof(row, field) + (index) * sizeof(std::uint32_t)), minor \
  }
#define ROCPROF_COLUMN_SINCE(row, field, type, minor) \
  Column { #field, ColumnType::type, static_cast < std::uint32_t>(offsetof(row, field)), minor }

constexpr std::array kApiCallColumns = {
    ROCPROF_COLUMN(ApiCallRow, begin_ns, kU64),
    ROCPROF_COLUMN(ApiCallRow, end_ns, kU64),
    ROCPROF_COLUMN(ApiCallRow, correlation_id, kU64),
    ROCPROF_COLUMN(ApiCallRow, external_id, kU64),
    ROCPROF_COLUMN(ApiCallRow, stream, kU64),
    ROCPROF_COLUMN(ApiCallRow, bytes, kU64),
    ROCPROF_COLUMN(ApiCallRow, thread_id, kU32),
    ROCPROF_COLUMN(ApiCallRow, op, kU32),
    ROCPROF_COLUMN(ApiCallRow, kernel_name, kU32),
    ROCPROF_ARRAY_COLUMN(ApiCallRow, grid, 0, "grid_x", kU32),
    ROCPROF_ARRAY_COLUMN(ApiCallRow, grid, 1, "grid_y", kU32),
    ROCPROF_ARRAY_COLUMN(ApiCallRow, grid, 2, "grid_z", kU32),
    ROCPROF_ARRAY_COLUMN(ApiCallRow, block, 0, "block_x", kU32),
    ROCPROF_ARRAY_COLUMN(ApiCallRow, block, 1, "block_y", kU32),
    ROCPROF_ARRAY_COLUMN(ApiCallRow, block, 2, "block_z", kU32),
    ROCPROF_COLUMN(ApiCallRow, domain, kU8),
    ROCPROF_COLUMN(ApiCallRow, copy_direction, kU8),
};

constexpr std::array kActivityColumns = {
    ROCPROF_COLUMN(ActivityRow, begin_ns, kU64),
    ROCPROF_COLUMN(ActivityRow, end_ns, kU64),
    ROCPROF_COLUMN(ActivityRow, correlation_id, kU64),
    ROCPROF_COLUMN(ActivityRow, queue_id, kU64),
    ROCPROF_COLUMN(ActivityRow, bytes, kU64),
    ROCPROF_COLUMN(ActivityRow, op, kU32),
    ROCPROF_COLUMN(ActivityRow, kind, kU32),
    ROCPROF_COLUMN(ActivityRow, device_id, kI32),
    ROCPROF_COLUMN(ActivityRow, kernel_name, kU32),
    ROCPROF_COLUMN(ActivityRow, domain, kU8),
    ROCPROF_ARRAY_COLUMN_SINCE(ActivityRow, grid, 0, "grid_x", kU32, 2),
    ROCPROF_ARRAY_COLUMN_SINCE(ActivityRow, grid, 1, "grid_y", kU32, 2),
    ROCPROF_ARRAY_COLUMN_SINCE(ActivityRow, grid, 2, "grid_z", kU32, 2),
    ROCPROF_ARRAY_COLUMN_SINCE(ActivityRow, block, 0, "block_x", kU32, 2),
    ROCPROF_ARRAY_COLUMN_SINCE(ActivityRow, block, 1, "block_y", kU32, 2),
    ROCPROF_ARRAY_COLUMN_SINCE(ActivityRow, block, 2, "block_z", kU32, 2),
    ROCPROF_COLUMN_SINCE(ActivityRow, shared_bytes, kU32, 2),
    ROCPROF_COLUMN_SINCE(ActivityRow, registers, kU32, 2),
    ROCPROF_COLUMN_SINCE(ActivityRow, context_id, kU32, 3),
    ROCPROF_COLUMN_SINCE(ActivityRow, src_kind, kU8, 3),
    ROCPROF_COLUMN_SINCE(ActivityRow, dst_kind, kU8, 3),
};

constexpr std::array kExternalColumns = {
    ROCPROF_COLUMN(ExternalCorrelationRow, correlation_id, kU64),
    ROCPROF_COLUMN(ExternalCorrelationRow, external_id, kU64),
};

constexpr std::array kMarkerColumns = {
    ROCPROF_COLUMN(MarkerRow, timestamp_ns, kU64), ROCPROF_COLUMN(MarkerRow, id, kU64),
    ROCPROF_COLUMN(MarkerRow, thread_id, kU32),    ROCPROF_COLUMN(MarkerRow, level, kU32),
    ROCPROF_COLUMN(MarkerRow, message, kU32),      ROCPROF_COLUMN(MarkerRow, op, kU8),
};

constexpr std::array kMpiColumns = {
    ROCPROF_COLUMN(MpiCallRow, begin_ns, kU64),
    ROCPROF_COLUMN(MpiCallRow, end_ns, kU64),
    ROCPROF_COLUMN(MpiCallRow, external_id, kU64),
    ROCPROF_COLUMN(MpiCallRow, communicator, kU64),
    ROCPROF_COLUMN(MpiCallRow, request, kU64),
    ROCPROF_COLUMN(MpiCallRow, bytes_sent, kU64),
    ROCPROF_COLUMN(MpiCallRow, bytes_received, kU64),
    ROCPROF_COLUMN(MpiCallRow, thread_id, kU32),
    ROCPROF_COLUMN(MpiCallRow, function, kU32),
    ROCPROF_COLUMN(MpiCallRow, peer, kI32),
    ROCPROF_COLUMN(MpiCallRow, tag, kI32),
};

constexpr std::array kCounterColumns = {
    ROCPROF_COLUMN(CounterSampleRow, timestamp_ns, kU64),
    ROCPROF_COLUMN(CounterSampleRow, value, kF64),
    ROCPROF_COLUMN(CounterSampleRow, session, kU32),
    ROCPROF_COLUMN(CounterSampleRow, counter, kU32),
};

constexpr std::array kSessionColumns = {
    ROCPROF_COLUMN(CounterSessionRow, start_ns, kU64),
    ROCPROF_COLUMN(CounterSessionRow, session, kU32),
    ROCPROF_COLUMN(CounterSessionRow, device_id, kI32),
    ROCPROF_COLUMN(CounterSessionRow, name, kU32),
    ROCPROF_COLUMN_SINCE(CounterSessionRow, interval_ns, kU64, 5),
    ROCPROF_COLUMN_SINCE(CounterSessionRow, backend, kU32, 5),
    ROCPROF_COLUMN_SINCE(CounterSessionRow, counters, kU32, 5),
};

constexpr std::array kTickCalibrationColumns = {
    ROCPROF_COLUMN(TickCalibrationRow, tick, kU64),
    ROCPROF_COLUMN(TickCalibrationRow, boottime_ns, kU64),
};

constexpr std::array kClockColumns = {
    ROCPROF_COLUMN(ClockSampleRow, local_ns, kU64),
    ROCPROF_COLUMN(ClockSampleRow, offset_ns, kI64),
    ROCPROF_COLUMN(ClockSampleRow, round_trip_ns, kU64),
    ROCPROF_COLUMN(ClockSampleRow, uncertainty_ns, kU64),
    ROCPROF_COLUMN(ClockSampleRow, reference_rank, kI32),
};

constexpr std::array kCommunicatorColumns = {
    ROCPROF_COLUMN(CommunicatorRow, created_ns, kU64),
    ROCPROF_COLUMN(CommunicatorRow, communicator, kU64),
    ROCPROF_COLUMN(CommunicatorRow, parent, kU64),
    ROCPROF_COLUMN(CommunicatorRow, size, kI32),
    ROCPROF_COLUMN(CommunicatorRow, remote_size, kI32),
    ROCPROF_COLUMN(CommunicatorRow, rank, kI32),
    ROCPROF_COLUMN(CommunicatorRow, creator, kU32),
};

constexpr std::array kCodeObjectColumns = {
    ROCPROF_COLUMN(CodeObjectRow, load_base, kU64),
    ROCPROF_COLUMN(CodeObjectRow, load_size, kU64),
    ROCPROF_COLUMN(CodeObjectRow, load_delta, kI64),
    ROCPROF_COLUMN(CodeObjectRow, first_seen_ns, kU64),
    ROCPROF_COLUMN(CodeObjectRow, uri, kU32),
};

constexpr std::array kKernelSymbolColumns = {
    ROCPROF_COLUMN(KernelSymbolRow, kernel_object, kU64),
    ROCPROF_COLUMN(KernelSymbolRow, load_base, kU64),
    ROCPROF_COLUMN(KernelSymbolRow, name, kU32),
};

constexpr std::array kOpNameColumns = {
    ROCPROF_COLUMN(OpNameRow, op, kU32),
    ROCPROF_COLUMN(OpNameRow, name, kU32),
    ROCPROF_COLUMN(OpNameRow, domain, kU8),
};

constexpr std::array kThreadColumns = {
    ROCPROF_COLUMN(ThreadRow, first_seen_ns, kU64),
    ROCPROF_COLUMN(ThreadRow, thread_id, kU32),
    ROCPROF_COLUMN(ThreadRow, name, kU32),
};

constexpr std::array kAnnotationColumns = {
    ROCPROF_COLUMN(AnnotationRow, timestamp_ns, kU64),
    ROCPROF_COLUMN(AnnotationRow, marker_id, kU64),
    ROCPROF_COLUMN(AnnotationRow, value, kU64),
    ROCPROF_COLUMN(AnnotationRow, thread_id, kU32),
    ROCPROF_COLUMN(AnnotationRow, name, kU32),
    ROCPROF_COLUMN(AnnotationRow, text, kU32),
    ROCPROF_COLUMN(AnnotationRow, type, kU8),
};

#undef ROCPROF_COLUMN
#undef ROCPROF_ARRAY_COLUMN

constexpr Table kApiCalls{"api_calls", sizeof(ApiCallRow), kApiCallColumns};
constexpr Table kActivities{"activities", sizeof(ActivityRow), kActivityColumns};
constexpr Table kExternal{"external_correlations", sizeof(ExternalCorrelationRow),
                          kExternalColumns};
constexpr Table kMarkers{"markers", sizeof(MarkerRow), kMarkerColumns};
constexpr Table kMpiCalls{"mpi_calls", sizeof(MpiCallRow), kMpiColumns};
constexpr Table kCounterSamples{"counter_samples", sizeof(CounterSampleRow), kCounterColumns};
constexpr Table kCounterSessions{"counter_sessions", sizeof(CounterSessionRow), kSessionColumns,
                                 kSmallTableChunkRows};
constexpr Table kClockSamples{"clock_samples", sizeof(ClockSampleRow), kClockColumns,
                              kSmallTableChunkRows};
constexpr Table kTickCalibration{"tick_calibration", sizeof(TickCalibrationRow),
                                 kTickCalibrationColumns, kSmallTableChunkRows, 4};
constexpr Table kCommunicators{"communicators", sizeof(CommunicatorRow), kCommunicatorColumns,
                               kSmallTableChunkRows};
constexpr Table kOpNames{"op_names", sizeof(OpNameRow), kOpNameColumns, kSmallTableChunkRows};
constexpr Table kCodeObjects{"code_objects", sizeof(CodeObjectRow), kCodeObjectColumns,
                             kSmallTableChunkRows, 6};
constexpr Table kKernelSymbols{"kernel_symbols", sizeof(KernelSymbolRow), kKernelSymbolColumns,
                               kSmallTableChunkRows, 6};
constexpr Table kThreads{"threads", sizeof(ThreadRow), kThreadColumns, kSmallTableChunkRows};
constexpr Table kAnnotations{"annotations", sizeof(AnnotationRow), kAnnotationColumns};

constexpr std::array<const Table*, 15> kAllTables = {
    &kApiCalls,      &kActivities,     &kExternal,        &kMarkers,      &kMpiCalls,
    &kCommunicators, &kCounterSamples, &kCounterSessions, &kClockSamples, &kOpNames,
    &kThreads,       &kAnnotations,    &kTickCalibration, &kCodeObjects,  &kKernelSymbols,
};

}  // namespace

std::size_t column_type_size(ColumnType type) noexcept {
  switch (type) {
    case ColumnType::kU8:
      return 1;
    case ColumnType::kU32:
    case ColumnType::kI32:
      return 4;
    case ColumnType::kU64:
    case ColumnType::kI64:
    case ColumnType::kF64:
      return 8;
  }
  return 0;
}

hid_t column_hdf5_type(ColumnType type) noexcept {
  switch (type) {
    case ColumnType::kU8:
      return H5T_STD_U8LE;
    case ColumnType::kU32:
      return H5T_STD_U32LE;
    case ColumnType::kU64:
      return H5T_STD_U64LE;
    case ColumnType::kI32:
      return H5T_STD_I32LE;
    case ColumnType::kI64:
      return H5T_STD_I64LE;
    case ColumnType::kF64:
      return H5T_IEEE_F64LE;
  }
  return H5I_INVALID_HID;
}

std::string_view column_type_name(ColumnType type) noexcept {
  switch (type) {
    case ColumnType::kU8:
      return "uint8";
    case ColumnType::kU32:
      return "uint32";
    case ColumnType::kU64:
      return "uint64";
    case ColumnType::kI32:
      return "int32";
    case ColumnType::kI64:
      return "int64";
    case ColumnType::kF64:
      return "float64";
  }
  return "?";
}

std::span<const Table* const> all_tables() noexcept { return kAllTables; }

std::size_t packed_row_size(const Table& table) noexcept {
  std::size_t size = 0;
  for (const Column& column : table.columns) size += column_type_size(column.type);
  return size;
}

hid_t create_packed_row_type(const Table& table) noexcept {
  const hid_t type = H5Tcreate(H5T_COMPOUND, packed_row_size(table));
  std::size_t offset = 0;
  for (const Column& column : table.columns) {
    H5Tinsert(type, column.name, offset, column_hdf5_type(column.type));
    offset += column_type_size(column.type);
  }
  return type;
}

hid_t create_memory_row_type(const Table& table) noexcept {
  const hid_t type = H5Tcreate(H5T_COMPOUND, table.row_size);
  for (const Column& column : table.columns)
    H5Tinsert(type, column.name, column.offset, column_hdf5_type(column.type));
  return type;
}

template <>
const Table& table_of<ApiCallRow>() noexcept {
  return kApiCalls;
}
template <>
const Table& table_of<ActivityRow>() noexcept {
  return kActivities;
}
template <>
const Table& table_of<ExternalCorrelationRow>() noexcept {
  return kExternal;
}
template <>
const Table& table_of<MarkerRow>() noexcept {
  return kMarkers;
}
template <>
const Table& table_of<MpiCallRow>() noexcept {
  return kMpiCalls;
}
template <>
const Table& table_of<CounterSampleRow>() noexcept {
  return kCounterSamples;
}
template <>
const Table& table_of<CounterSessionRow>() noexcept {
  return kCounterSessions;
}
template <>
const Table& table_of<ClockSampleRow>() noexcept {
  return kClockSamples;
}
template <>
const Table& table_of<TickCalibrationRow>() noexcept {
  return kTickCalibration;
}
template <>
const Table& table_of<CommunicatorRow>() noexcept {
  return kCommunicators;
}
template <>
const Table& table_of<OpNameRow>() noexcept {
  return kOpNames;
}
template <>
const Table& table_of<ThreadRow>() noexcept {
  return kThreads;
}
template <>
const Table& table_of<AnnotationRow>() noexcept {
  return kAnnotations;
}
template <>
const Table& table_of<CodeObjectRow>() noexcept {
  return kCodeObjects;
}
template <>
const Table& table_of<KernelSymbolRow>() noexcept {
  return kKernelSymbols;
}

ColumnSet columns_named(const Table& table, std::initializer_list<std::string_view> names) {
  ColumnSet set = 0;
  for (const std::string_view name : names) {
    std::size_t c = 0;
    while (c < table.columns.size() && table.columns[c].name != name) ++c;
    if (c == table.columns.size())
      throw std::invalid_argument(std::string(table.name) + " has no column " + std::string(name));
    set |= ColumnSet{1} << c;
  }
  return set;
}

std::uint32_t extend_strings_crc(std::uint32_t crc, const char* text) noexcept {
  const char* bytes = text == nullptr ? "" : text;
  uLong extended =
      crc32(crc, reinterpret_cast<const Bytef*>(bytes), static_cast<uInt>(std::strlen(bytes)));
  extended = crc32(extended, reinterpret_cast<const Bytef*>(""), 1);
  return static_cast<std::uint32_t>(extended);
}

}  // namespace rocprof::format
