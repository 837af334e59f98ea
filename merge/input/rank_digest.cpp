#include "merge/input/rank_digest.hpp"

#include <string>
#include <vector>

namespace rocprof::merge {
namespace {

void put_strings(ByteWriter& out, const std::vector<std::string>& texts) {
  out.put<std::uint64_t>(texts.size());
  for (const std::string& text : texts) out.put_string(text);
}

std::vector<std::string> get_strings(ByteReader& in) {
  const auto count = in.get<std::uint64_t>();
  std::vector<std::string> texts;
  for (std::uint64_t i = 0; i < count; ++i) texts.push_back(in.get_string());
  return texts;
}

using Layout = format::RankFileReader::Layout;

void put_layout(ByteWriter& out, const Layout& layout) {
  out.put<std::uint8_t>(layout.packed ? 1 : 0);
  out.put(layout.base_address);
  out.put<std::uint64_t>(layout.tables.size());
  for (const Layout::TableLayout& table : layout.tables) {
    out.put(table.element_size);
    out.put_vector(table.field_offsets);
    out.put<std::uint8_t>(table.mapped ? 1 : 0);
    out.put<std::uint8_t>(table.decodable ? 1 : 0);
    out.put(table.chunk_rows);
    out.put<std::uint64_t>(table.columns.size());
    for (const Layout::Column& column : table.columns) {
      out.put_vector(column.filters);
      out.put<std::uint8_t>(column.supported ? 1 : 0);
      out.put_vector(column.chunks);
    }
  }
}

Layout get_layout(ByteReader& in) {
  Layout layout;
  layout.packed = in.get<std::uint8_t>() != 0;
  layout.base_address = in.get<std::uint64_t>();
  const auto tables = in.get<std::uint64_t>();
  for (std::uint64_t t = 0; t < tables; ++t) {
    Layout::TableLayout& table = layout.tables.emplace_back();
    table.element_size = in.get<std::uint64_t>();
    table.field_offsets = in.get_vector<std::uint64_t>();
    table.mapped = in.get<std::uint8_t>() != 0;
    table.decodable = in.get<std::uint8_t>() != 0;
    table.chunk_rows = in.get<std::uint64_t>();
    const auto columns = in.get<std::uint64_t>();
    for (std::uint64_t c = 0; c < columns; ++c) {
      Layout::Column& column = table.columns.emplace_back();
      column.filters = in.get_vector<std::uint8_t>();
      column.supported = in.get<std::uint8_t>() != 0;
      column.chunks = in.get_vector<Layout::Chunk>();
    }
  }
  return layout;
}

}  // namespace

void put_digest(ByteWriter& out, const format::RankFileReader::Digest& digest) {
  const format::RankMetadata& m = digest.metadata;
  out.put_string(digest.path);
  out.put_string(m.tool_version);
  out.put_string(m.job_id);
  out.put(m.rank);
  out.put(m.size);
  out.put_string(m.hostname);
  out.put(m.pid);
  put_strings(out, m.command_line);
  out.put(m.start_realtime_ns);
  out.put(m.start_clock_ns);
  out.put_string(m.clock);
  out.put_string(m.compression);
  out.put(m.flush_interval_ms);
  out.put_string(m.traced_ranks);
  out.put(m.parent_pid);
  out.put<std::uint8_t>(digest.status.complete ? 1 : 0);
  out.put(digest.status.records_dropped);
  out.put(digest.status.last_flush_clock_ns);
  out.put(digest.version_major);
  out.put(digest.version_minor);
  out.put_vector(digest.rows);
  put_strings(out, digest.strings);
  out.put_vector(digest.clock_samples);
  out.put_vector(digest.communicators);
  out.put<std::uint8_t>(digest.layout ? 1 : 0);
  if (digest.layout) put_layout(out, *digest.layout);
}

format::RankFileReader::Digest get_digest(ByteReader& in) {
  format::RankFileReader::Digest digest;
  format::RankMetadata& m = digest.metadata;
  digest.path = in.get_string();
  m.tool_version = in.get_string();
  m.job_id = in.get_string();
  m.rank = in.get<std::int32_t>();
  m.size = in.get<std::int32_t>();
  m.hostname = in.get_string();
  m.pid = in.get<std::uint32_t>();
  m.command_line = get_strings(in);
  m.start_realtime_ns = in.get<std::uint64_t>();
  m.start_clock_ns = in.get<std::uint64_t>();
  m.clock = in.get_string();
  m.compression = in.get_string();
  m.flush_interval_ms = in.get<std::uint32_t>();
  m.traced_ranks = in.get_string();
  m.parent_pid = in.get<std::uint32_t>();
  digest.status.complete = in.get<std::uint8_t>() != 0;
  digest.status.records_dropped = in.get<std::uint64_t>();
  digest.status.last_flush_clock_ns = in.get<std::uint64_t>();
  digest.version_major = in.get<std::uint32_t>();
  digest.version_minor = in.get<std::uint32_t>();
  digest.rows = in.get_vector<std::uint64_t>();
  digest.strings = get_strings(in);
  digest.clock_samples = in.get_vector<format::ClockSampleRow>();
  digest.communicators = in.get_vector<format::CommunicatorRow>();
  if (in.get<std::uint8_t>() != 0) digest.layout = get_layout(in);
  return digest;
}

}  // namespace rocprof::merge
