#include "merge/export/sqlite_db.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "lib/format/text.hpp"

namespace rocprof::merge {

namespace {

// A connection is used by one thread at a time: no locks around its statements, and no
// count of SQLite's memory (each allocation would take a lock for it). Set before SQLite
// starts; if something started it already, it keeps its settings.
void configure_sqlite_once() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return sqlite3_initialize() == SQLITE_OK;
  }();
  static_cast<void>(configured);
}

}  // namespace

SqliteDatabase::SqliteDatabase(const std::string& path) : path_(path) {
  configure_sqlite_once();
  const int status = sqlite3_open_v2(
      path.c_str(), &db_,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (status != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(status);
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, why));
  }
  sqlite3_extended_result_codes(db_, 1);
}

SqliteDatabase::~SqliteDatabase() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

void SqliteDatabase::fail(std::string_view doing) const {
  doing = doing.substr(0, std::min(doing.find('('), std::size_t{48}));
  throw std::runtime_error(
      fmt::format("writing {} failed ({}): {}", path_, doing, sqlite3_errmsg(db_)));
}

void SqliteDatabase::execute(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return;
  const std::string why = message != nullptr ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  // The statement's first words say which step failed.
  throw std::runtime_error(
      fmt::format("writing {} failed ({}): {}", path_, sql.substr(0, sql.find('(')), why));
}

SqliteStatement SqliteDatabase::prepare(std::string_view sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &statement, nullptr) != SQLITE_OK)
    fail(sql.substr(0, sql.find('(')));
  return {*this, statement};
}

std::int64_t SqliteDatabase::integer(const std::string& sql) {
  SqliteStatement statement = prepare(sql);
  return statement.step() ? statement.column_integer(0) : 0;
}

int SqliteDatabase::changes() const { return sqlite3_changes(db_); }

void SqliteDatabase::close() {
  if (db_ == nullptr) return;
  if (sqlite3_close(db_) != SQLITE_OK) fail("closing");
  db_ = nullptr;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), statement_(std::exchange(other.statement_, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(statement_);
    db_ = other.db_;
    statement_ = std::exchange(other.statement_, nullptr);
  }
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) db_->fail("binding");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK) db_->fail("binding");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  // Readers decode TEXT as UTF-8 (Python's sqlite3 fails on anything else).
  std::string repaired;
  if (!format::is_valid_utf8(text)) {
    repaired = format::valid_utf8(text);
    text = repaired;
  }
  if (sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8) != SQLITE_OK)
    db_->fail("binding");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) db_->fail("binding");
  return *this;
}

void SqliteStatement::run() {
  const int status = sqlite3_step(statement_);
  sqlite3_reset(statement_);
  if (status != SQLITE_DONE && status != SQLITE_ROW) db_->fail(sqlite3_sql(statement_));
}

bool SqliteStatement::step() {
  const int status = sqlite3_step(statement_);
  if (status == SQLITE_ROW) return true;
  if (status != SQLITE_DONE) db_->fail(sqlite3_sql(statement_));
  return false;
}

std::int64_t SqliteStatement::column_integer(int index) const {
  return sqlite3_column_int64(statement_, index);
}

std::string SqliteStatement::column_text(int index) const {
  const unsigned char* text = sqlite3_column_text(statement_, index);
  return text != nullptr ? reinterpret_cast<const char*>(text) : "";
}

void SqliteStatement::reset() { sqlite3_reset(statement_); }

}  // namespace rocprof::merge
