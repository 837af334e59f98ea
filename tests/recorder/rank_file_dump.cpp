// Test tool: opens a rank file with the format module's reader and prints one line per
// table ("table rows") plus the status, or the reader's error with exit code 1.
#include <cstdio>

#include "lib/format/rank_file_reader.hpp"

int main(int argc, char** argv) {
  using namespace rocprof::format;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RANK_FILE\n", argv[0]);
    return 2;
  }
  try {
    const RankFileReader reader(argv[1]);
    for (const Table* table : all_tables())
      std::printf("%s %llu\n", table->name,
                  static_cast<unsigned long long>(reader.row_count(*table)));
    // Reading every marker decodes every chunk of one table end to end.
    std::size_t markers = 0;
    TableCursor<MarkerRow> cursor(reader);
    std::vector<MarkerRow> rows;
    while (cursor.next(rows)) markers += rows.size();
    const auto& arguments = reader.metadata().command_line;
    std::printf(
        "markers_read %zu\ncomplete %d\nrecords_dropped %llu\nrank %d\narguments %zu\n"
        "last_argument %s\n",
        markers, reader.status().complete ? 1 : 0,
        static_cast<unsigned long long>(reader.status().records_dropped), reader.metadata().rank,
        arguments.size(), arguments.empty() ? "" : arguments.back().c_str());
  } catch (const FormatError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
