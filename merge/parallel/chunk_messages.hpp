#pragma once
// The messages that carry a shared merged file's rows from the merge processes that encode
// them to the one that writes the file: whole chunks as their encoded columns, the rows of a
// chunk that two processes' blocks share as they are, and each sender's "my tables are sent"
// and "everything is sent". This layer frames the messages and counts the senders; what the
// rows are (tables, row sizes, chunk bounds) is the writer's to check.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "merge/parallel/merge_share.hpp"

namespace rocprof::merge {

// A process's side that sends to the writer (the share's leader).
class ChunkSender {
 public:
  explicit ChunkSender(const MergeShare& share) : share_(share) {}
  // Chunk `chunk` of `table`, of `rows` rows, as its encoded columns.
  void send_encoded_chunk(std::uint32_t table, std::uint64_t chunk, std::uint64_t rows,
                          const std::vector<std::vector<std::byte>>& columns) const;
  // `count` rows of chunk `chunk` of `table` from its row `first` on, as they are.
  void send_partial_rows(std::uint32_t table, std::uint64_t chunk, std::uint64_t first,
                         std::uint64_t count, std::span<const std::byte> rows) const;
  // Every row of the tables before the ranges is sent (the processes then agree on where
  // each one's ranges start).
  void send_tables_done() const;
  void send_done() const;

 private:
  const MergeShare& share_;
};

// What the writer does with the messages it receives.
class ChunkHandler {
 public:
  virtual ~ChunkHandler() = default;
  virtual std::size_t tables() const = 0;
  virtual std::size_t columns(std::uint32_t table) const = 0;  // of a table < tables()
  virtual void encoded_chunk(std::uint32_t table, std::uint64_t chunk, std::uint64_t rows,
                             const std::vector<std::span<const std::byte>>& columns) = 0;
  virtual void partial_rows(std::uint32_t table, std::uint64_t chunk, std::uint64_t first,
                            std::uint64_t count, std::span<const std::byte> rows) = 0;
};

// The writer's side: the messages, and how far the other processes are.
class ChunkReceiver {
 public:
  explicit ChunkReceiver(const MergeShare& share) : share_(share) {}
  // Hands each message to `handler` until every other process has sent its tables
  // (`until_tables_done`) or everything, or, without `wait`, none is waiting. A damaged
  // message, or one of a table that does not exist, throws std::runtime_error.
  void receive(ChunkHandler& handler, bool wait, bool until_tables_done);

 private:
  const MergeShare& share_;
  int tables_done_ = 0;
  int done_ = 0;
};

}  // namespace rocprof::merge
