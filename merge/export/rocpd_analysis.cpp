#include "merge/export/rocpd_analysis.hpp"

#include <span>
#include <stdexcept>

#include "merge/analysis/critical_path.hpp"
#include "merge/analysis/wait_patterns.hpp"
#include "merge/analysis/wait_states.hpp"
#include "merge/export/sqlite_db.hpp"

namespace rocprof::merge {
namespace {

constexpr const char* kTables = R"SQL(
CREATE TABLE "rocprofmpi_wait_state" (
  "pattern" TEXT NOT NULL, "rank" INTEGER NOT NULL, "awaited_rank" INTEGER NOT NULL,
  "call_path" TEXT NOT NULL, "function" TEXT NOT NULL, "cause" TEXT NOT NULL,
  "count" INTEGER NOT NULL, "total_ns" REAL NOT NULL);
CREATE TABLE "rocprofmpi_wait" (
  "id" INTEGER NOT NULL PRIMARY KEY, "rank" INTEGER NOT NULL, "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL, "pattern" TEXT NOT NULL, "awaited_rank" INTEGER NOT NULL,
  "cause" TEXT NOT NULL);
CREATE TABLE "rocprofmpi_critical_path" (
  "id" INTEGER NOT NULL PRIMARY KEY, "rank" INTEGER NOT NULL, "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL);
CREATE TABLE "rocprofmpi_critical_path_activity" (
  "activity" TEXT NOT NULL, "time_ns" REAL NOT NULL, "share" REAL NOT NULL);
)SQL";

void write_wait_states(SqliteDatabase& db, const WaitStateReport& waits) {
  SqliteStatement add =
      db.prepare(R"(INSERT INTO "rocprofmpi_wait_state" VALUES (?, ?, ?, ?, ?, ?, ?, ?))");
  for (const auto& [key, sum] : waits.waits) {
    const auto& [pattern, rank, call_path, function, awaited, cause] = key;
    add.bind(1, wait_pattern_name(pattern))
        .bind(2, rank)
        .bind(3, awaited)
        .bind(4, call_path)
        .bind(5, function)
        .bind(6, cause)
        .bind(7, sum.count)
        .bind(8, sum.total_ns)
        .run();
  }
  SqliteStatement add_wait =
      db.prepare(R"(INSERT INTO "rocprofmpi_wait" VALUES (?, ?, ?, ?, ?, ?, ?))");
  std::int64_t id = 0;
  waits.edges.for_each_piece([&](std::span<const WaitEdge> piece) {
    for (const WaitEdge& edge : piece)
      add_wait.bind(1, ++id)
          .bind(2, edge.waiting)
          .bind(3, edge.from)
          .bind(4, edge.to)
          .bind(5, wait_pattern_name(edge.pattern))
          .bind(6, edge.awaited)
          .bind(7, edge.cause < waits.causes.size() ? std::string_view(waits.causes[edge.cause])
                                                    : std::string_view())
          .run();
  });
}

void write_critical_path(SqliteDatabase& db, const CriticalPath& path) {
  SqliteStatement add = db.prepare(R"(INSERT INTO "rocprofmpi_critical_path" VALUES (?, ?, ?, ?))");
  std::int64_t id = 0;
  for (std::size_t i = path.stretches.size(); i-- > 0;)  // earliest first
    add.bind(1, ++id)
        .bind(2, path.stretches[i].rank)
        .bind(3, path.stretches[i].from)
        .bind(4, path.stretches[i].to)
        .run();
  SqliteStatement activity =
      db.prepare(R"(INSERT INTO "rocprofmpi_critical_path_activity" VALUES (?, ?, ?))");
  for (const auto& [name, ns] : path.activities())
    activity.bind(1, name.empty() ? "(host work no tracer saw)" : name)
        .bind(2, ns)
        .bind(3, path.length_ns > 0 ? ns / path.length_ns : 0.0)
        .run();
}

}  // namespace

bool add_analysis_to_rocpd(const std::string& path, const JobAnalysis& analysis,
                           std::string& error) {
  if (analysis.waits == nullptr || analysis.critical_path == nullptr) return true;
  try {
    SqliteDatabase db(path);
    db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;");
    db.execute(kTables);
    write_wait_states(db, *analysis.waits);
    write_critical_path(db, *analysis.critical_path);
    db.execute("COMMIT");
    db.close();
  } catch (const std::exception& failure) {
    error = failure.what();
    return false;
  }
  return true;
}

}  // namespace rocprof::merge
