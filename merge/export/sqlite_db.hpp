// A small RAII layer over SQLite's C API for the writers of SQLite outputs: a connection that
// throws std::runtime_error naming the file on any error, and prepared statements bound by
// position. Nothing here knows a schema.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace rocprof::merge {

class SqliteStatement;

class SqliteDatabase {
 public:
  // Creates `path` (truncating nothing: the caller gives a new or empty file).
  explicit SqliteDatabase(const std::string& path);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  // Runs statements that return no rows (a script of several is fine).
  void execute(const std::string& sql);
  SqliteStatement prepare(std::string_view sql);
  // The first column of the first row of `sql`, an integer (0 when no row).
  std::int64_t integer(const std::string& sql);
  // Rows the last INSERT, UPDATE or DELETE changed.
  int changes() const;
  // Closes the file; throws if SQLite could not finish writing it.
  void close();

  const std::string& path() const noexcept { return path_; }
  sqlite3* handle() const noexcept { return db_; }
  [[noreturn]] void fail(std::string_view doing) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// A prepared statement: bind by 1-based position, then run() (statements returning no rows)
// or step() row by row. Reset after run() so it can be bound again. Text is bound as valid
// UTF-8 (format/text.hpp's repair where it is not).
class SqliteStatement {
 public:
  SqliteStatement(SqliteDatabase& db, sqlite3_stmt* statement) : db_(&db), statement_(statement) {}
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, std::uint64_t value) {
    return bind(index, static_cast<std::int64_t>(value));
  }
  SqliteStatement& bind(int index, std::int32_t value) { return bind(index, std::int64_t{value}); }
  SqliteStatement& bind(int index, std::uint32_t value) { return bind(index, std::int64_t{value}); }
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  SqliteStatement& bind_null(int index);
  template <typename T>
  SqliteStatement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  void run();
  // One row: true while there is one (read it with column_*), false at the end.
  bool step();
  std::int64_t column_integer(int index) const;
  std::string column_text(int index) const;
  void reset();

 private:
  SqliteDatabase* db_;
  sqlite3_stmt* statement_;
};

}  // namespace rocprof::merge
