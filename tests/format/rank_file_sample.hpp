// A deterministic rank file with every record kind, shared by the round-trip test and the
// stock-tool checks (h5dump, h5py): both compare against the same generated values.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/format/rank_file_writer.hpp"

namespace rocprof::test {

template <typename Row>
Row zeroed() {
  Row row;
  std::memset(&row, 0, sizeof row);  // padding too, so rows compare with memcmp
  return row;
}

struct SampleRows {
  std::vector<format::ApiCallRow> api_calls;
  std::vector<format::ActivityRow> activities;
  std::vector<format::ExternalCorrelationRow> externals;
  std::vector<format::MarkerRow> markers;
  std::vector<format::MpiCallRow> mpi_calls;
  std::vector<format::CommunicatorRow> communicators;
  std::vector<format::CounterSampleRow> counters;
  std::vector<format::CounterSessionRow> sessions;
  std::vector<format::ClockSampleRow> clocks;
  std::vector<format::OpNameRow> op_names;
  std::vector<format::ThreadRow> threads;
  std::vector<format::AnnotationRow> annotations;
  std::vector<format::TickCalibrationRow> tick_pairs;
  std::vector<format::CodeObjectRow> code_objects;
  std::vector<format::KernelSymbolRow> kernel_symbols;
};

// `api_rows` API calls (more than one chunk exercises full and partial chunks); string ids
// are interned in `writer`.
SampleRows make_sample(format::RankFileWriter& writer, std::size_t api_rows);
format::RankMetadata sample_metadata();

// Writes the sample to `path`, in several appends with flushes between them.
SampleRows write_sample_file(const std::string& path, const format::Compression& compression,
                             std::size_t api_rows);

// Rewrites a rank file in place in the column-group layout of format 1.2 (a group per table,
// a dataset per column, HDF5 applying the filters of `compression`), as the recorder wrote
// before format 2: what older files look like, for the reader's tests.
void rewrite_as_column_groups(const std::string& path, const format::Compression& compression);

// Rewrites the activities of a format-2 rank file in place as format 2.`minor` wrote them
// (without the columns later minor versions added) and marks the file 2.`minor`.
void rewrite_activities_as_format(const std::string& path, std::uint32_t minor);

// The sample as a reader of an older file sees it: the columns added in format 2.`minor` or
// later are zeros.
void clear_columns_since(std::vector<format::ActivityRow>& rows, std::uint32_t minor);

}  // namespace rocprof::test
