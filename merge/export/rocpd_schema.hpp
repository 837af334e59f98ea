// The rocpd database layout (rocprofiler-sdk's SQLite format, schema version 3) as
// rocprof-merge writes it: the rocpd tables under one suffix, the unsuffixed views AMD's tools
// read them through, and the tables of our own (prefix rocprofmpi_) for what rocpd has no place
// for. Names, columns and their order are rocpd's; docs/ROCPD.md describes what goes where.
#pragma once

#include <string>
#include <vector>

namespace rocprof::merge {

// The tables every rocpd database holds, by their unsuffixed names, and ours.
const std::vector<std::string>& rocpd_table_names();
const std::vector<std::string>& rocprofmpi_table_names();

// SQL creating the tables (each name followed by `suffix`, "_<uuid>"), with `guid` as their
// guid column's default, and the metadata rows.
std::string rocpd_tables_sql(const std::string& suffix, const std::string& guid);
// SQL creating the views: the unsuffixed rocpd_* views over the suffixed tables, the data and
// summary views rocpd's tools query, and ours.
std::string rocpd_views_sql(const std::string& suffix);

}  // namespace rocprof::merge
