#include "merge/parallel/chunk_messages.hpp"

#include <stdexcept>

#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {
namespace {

enum class MessageKind : std::uint32_t { kEncodedChunk, kPartialRows, kTablesDone, kDone };

struct MessageHeader {
  MessageKind kind;
  std::uint32_t table;
  std::uint64_t chunk;  // chunk index in the table
  std::uint64_t first;  // first row inside the chunk
  std::uint64_t count;  // rows (in the chunk, or these partial rows)
};

}  // namespace

void ChunkSender::send_encoded_chunk(std::uint32_t table, std::uint64_t chunk, std::uint64_t rows,
                                     const std::vector<std::vector<std::byte>>& columns) const {
  ByteWriter message;
  message.put(MessageHeader{MessageKind::kEncodedChunk, table, chunk, 0, rows});
  for (const std::vector<std::byte>& column : columns) message.put_bytes(column);
  share_.send_to_leader(message.take());
}

void ChunkSender::send_partial_rows(std::uint32_t table, std::uint64_t chunk, std::uint64_t first,
                                    std::uint64_t count, std::span<const std::byte> rows) const {
  ByteWriter message;
  message.put(MessageHeader{MessageKind::kPartialRows, table, chunk, first, count});
  message.put_bytes(rows);
  share_.send_to_leader(message.take());
}

void ChunkSender::send_tables_done() const {
  ByteWriter message;
  message.put(MessageHeader{MessageKind::kTablesDone, 0, 0, 0, 0});
  share_.send_to_leader(message.take());
}

void ChunkSender::send_done() const {
  ByteWriter message;
  message.put(MessageHeader{MessageKind::kDone, 0, 0, 0, 0});
  share_.send_to_leader(message.take());
}

void ChunkReceiver::receive(ChunkHandler& handler, bool wait, bool until_tables_done) {
  const int others = share_.processes - 1;
  std::vector<std::byte> message;
  while ((until_tables_done ? tables_done_ : done_) < others && share_.receive(message, wait)) {
    ByteReader in(message);  // throws on a message cut short
    const auto header = in.get<MessageHeader>();
    if (header.kind == MessageKind::kTablesDone) {
      ++tables_done_;
      continue;
    }
    if (header.kind == MessageKind::kDone) {
      ++done_;
      continue;
    }
    if (header.table >= handler.tables())
      throw std::runtime_error("a merge process sent rows of an unknown table");
    if (header.kind == MessageKind::kPartialRows) {
      handler.partial_rows(header.table, header.chunk, header.first, header.count, in.get_bytes());
      continue;
    }
    std::vector<std::span<const std::byte>> columns;
    for (std::size_t c = 0; c < handler.columns(header.table); ++c)
      columns.push_back(in.get_bytes());
    handler.encoded_chunk(header.table, header.chunk, header.count, columns);
  }
}

}  // namespace rocprof::merge
