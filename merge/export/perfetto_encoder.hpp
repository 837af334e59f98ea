// Writes Perfetto trace packets straight into a file buffer: track events are encoded field by
// field (protobuf's own wire-format helpers, no message objects on the hot path), and names,
// categories and annotation names are interned once per packet sequence. Each rank is a
// sequence of its own, so ranks can be written by different merge processes and concatenated.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "merge/files/block_file.hpp"
#include "merge/timeline/user_annotations.hpp"

namespace google::protobuf {
class MessageLite;
}

namespace rocprof::merge {

// Buffered output of a Trace message (a run of length-prefixed field-1 packets): to a file,
// or into memory, for a rank encoded on another thread and appended to the file in its turn.
class PacketFile {
 public:
  explicit PacketFile(const std::string& path,  // throws std::runtime_error
                      BlockFile::DirectIo direct_io = BlockFile::direct_io_from_environment())
      : file_(std::make_unique<BlockFile>(path, direct_io)) {}
  PacketFile() = default;  // in memory

  // Room for `bytes` more; returns where to write them.
  std::uint8_t* reserve(std::size_t bytes) {
    if (file_) return file_->reserve(bytes);
    if (used_ + bytes > capacity_) grow(used_ + bytes);
    return memory_.get() + used_;
  }
  void commit(const std::uint8_t* end) {
    if (file_)
      file_->commit(end);
    else
      used_ = static_cast<std::size_t>(end - memory_.get());
  }
  // What an in-memory one holds.
  std::span<const std::uint8_t> memory() const noexcept { return {memory_.get(), used_}; }
  // Appends the packets `other` holds in memory (and counts them).
  void append(const PacketFile& other);
  // Empties an in-memory one, keeping its memory for the next rank.
  void clear() noexcept {
    used_ = 0;
    packets_ = 0;
  }
  void close() {  // flushes; throws on I/O errors
    if (file_) file_->close();
  }
  std::uint64_t packets() const noexcept { return packets_; }
  void count_packet() noexcept { ++packets_; }

 private:
  void grow(std::size_t bytes);

  std::unique_ptr<BlockFile> file_;  // null: in memory
  std::unique_ptr<std::uint8_t[]> memory_;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::uint64_t packets_ = 0;
};

// A debug annotation: an integer unless `kind` says otherwise (the kinds a user annotation
// decodes to).
struct Annotation {
  using Kind = AnnotationValue::Kind;
  std::uint64_t name_iid;
  std::int64_t value;  // kInt; kUint and kDouble keep their bits here
  Kind kind = Kind::kInt;
  std::string_view text = {};  // kString
};

// One packet sequence (one rank): interning state and the packet encoders.
class PacketSequence {
 public:
  PacketSequence(PacketFile& file, std::uint32_t sequence_id) : file_(file), id_(sequence_id) {}

  // Interned ids, stable for the sequence; a new one goes out with the next packet.
  std::uint64_t event_name(std::string_view name) { return intern(names_, 2, name); }
  std::uint64_t category(std::string_view name) { return intern(categories_, 1, name); }
  std::uint64_t annotation_name(std::string_view name) { return intern(annotations_, 3, name); }

  // A descriptor packet (track descriptors).
  void write_message(int field, const google::protobuf::MessageLite& message);

  enum class EventType : std::uint8_t {
    kSliceBegin = 1,
    kSliceEnd = 2,
    kInstant = 3,
    kCounter = 4
  };
  struct Event {
    EventType type;
    std::uint64_t timestamp;
    std::uint64_t track;
    std::uint64_t category_iid = 0;  // 0: none (a slice end)
    std::uint64_t name_iid = 0;
    std::span<const Annotation> annotations = {};
    std::span<const std::uint64_t> flows = {};
    std::span<const std::uint64_t> terminating_flows = {};
    double counter_value = 0;  // kCounter: the value
  };
  void write_event(const Event& event);

 private:
  struct Pending {
    int field;  // InternedData: 1 categories, 2 event names, 3 annotation names
    std::uint64_t iid;
    std::string name;
  };
  // Looked up by string_view: no allocation for a name already interned.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const noexcept {
      return std::hash<std::string_view>{}(name);
    }
  };
  using Table = std::unordered_map<std::string, std::uint64_t, NameHash, std::equal_to<>>;
  std::uint64_t intern(Table& table, int field, std::string_view name);
  std::uint8_t* write_header(std::uint8_t* out);
  std::size_t interned_size() const;
  std::uint8_t* write_interned(std::uint8_t* out);

  PacketFile& file_;
  std::uint32_t id_;
  void start(std::uint64_t default_track);  // before the first event: see the .cpp
  bool started_ = false;                    // incremental state cleared and the default track set
  std::uint64_t default_track_ = 0;
  Table names_, categories_, annotations_;
  std::vector<Pending> pending_;
};

}  // namespace rocprof::merge
