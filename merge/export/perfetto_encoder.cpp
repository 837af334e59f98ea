#include "merge/export/perfetto_encoder.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

using google::protobuf::internal::WireFormatLite;
using Coded = google::protobuf::io::CodedOutputStream;

// Field numbers of Perfetto's TracePacket, TrackEvent, DebugAnnotation and InternedData.
constexpr int kTracePacket = 1;
constexpr int kTimestamp = 8;
constexpr int kSequenceId = 10;
constexpr int kTrackEvent = 11;
constexpr int kInternedData = 12;
constexpr int kSequenceFlags = 13;
constexpr int kCategoryIids = 3;
constexpr int kDebugAnnotations = 4;
constexpr int kType = 9;
constexpr int kNameIid = 10;
constexpr int kTrackUuid = 11;
constexpr int kDoubleCounterValue = 44;
constexpr int kFlowIds = 47;
constexpr int kTerminatingFlowIds = 48;
constexpr int kTracePacketDefaults = 59;  // TracePacket
constexpr int kTrackEventDefaults = 11;   // TracePacketDefaults
constexpr int kDefaultTrackUuid = 11;     // TrackEventDefaults
constexpr int kAnnotationNameIid = 1;
constexpr int kAnnotationUintValue = 3;
constexpr int kAnnotationIntValue = 4;
constexpr int kAnnotationDoubleValue = 5;  // a double, as fixed64 bits
constexpr int kAnnotationStringValue = 6;
constexpr int kInternedIid = 1;
constexpr int kInternedName = 2;

constexpr std::uint32_t kIncrementalStateCleared = 1;
constexpr std::uint32_t kNeedsIncrementalState = 2;

std::size_t length_delimited_size(std::size_t tag_bytes, std::size_t length) {
  return tag_bytes + Coded::VarintSize64(length) + length;
}

std::uint8_t* write_length(int field, std::size_t length, std::uint8_t* out) {
  out = WireFormatLite::WriteTagToArray(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, out);
  return Coded::WriteVarint64ToArray(length, out);
}

// A flow id: fields 47 and 48 take two tag bytes, then a fixed64.
constexpr std::size_t kFlowIdSize = 2 + 8;

// A DebugAnnotation's bytes: its name's iid and its value (an int's as a varint of its bits).
std::size_t annotation_size(const Annotation& annotation) {
  std::size_t value_size = 1 + Coded::VarintSize64(static_cast<std::uint64_t>(annotation.value));
  if (annotation.kind == Annotation::Kind::kDouble) value_size = 1 + 8;
  if (annotation.kind == Annotation::Kind::kString)
    value_size = length_delimited_size(1, annotation.text.size());
  return 1 + Coded::VarintSize64(annotation.name_iid) + value_size;
}

std::size_t entry_size(std::uint64_t iid, std::size_t name_length) {
  return 1 + Coded::VarintSize64(iid) + length_delimited_size(1, name_length);
}

}  // namespace

void PacketFile::grow(std::size_t bytes) {
  const std::size_t capacity = std::max(bytes, std::max<std::size_t>(capacity_ * 2, 64 << 10));
  auto grown = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
  if (used_ != 0) std::memcpy(grown.get(), memory_.get(), used_);
  memory_ = std::move(grown);
  capacity_ = capacity;
}

void PacketFile::append(const PacketFile& other) {
  if (other.used_ != 0) {
    std::uint8_t* out = reserve(other.used_);
    std::memcpy(out, other.memory_.get(), other.used_);
    commit(out + other.used_);
  }
  packets_ += other.packets_;
}

std::uint64_t PacketSequence::intern(Table& table, int field, std::string_view name) {
  if (const auto found = table.find(name); found != table.end()) return found->second;
  const std::uint64_t iid = table.size() + 1;  // iids start at 1 in each table
  pending_.push_back({field, iid, std::string(name)});
  table.emplace(std::string(name), iid);
  return iid;
}

std::size_t PacketSequence::interned_size() const {
  std::size_t size = 0;
  for (const Pending& entry : pending_)
    size += length_delimited_size(1, entry_size(entry.iid, entry.name.size()));
  return size;
}

std::uint8_t* PacketSequence::write_interned(std::uint8_t* out) {
  for (const Pending& entry : pending_) {
    out = write_length(entry.field, entry_size(entry.iid, entry.name.size()), out);
    out = WireFormatLite::WriteUInt64ToArray(kInternedIid, entry.iid, out);
    out = write_length(kInternedName, entry.name.size(), out);
    out = std::copy(entry.name.begin(), entry.name.end(), out);
  }
  pending_.clear();
  return out;
}

void PacketSequence::write_message(int field, const google::protobuf::MessageLite& message) {
  // Descriptors are not incremental state: no sequence flags.
  const std::size_t body = message.ByteSizeLong();
  const std::size_t packet = 1 + Coded::VarintSize32(id_) + length_delimited_size(2, body);
  std::uint8_t* out = file_.reserve(length_delimited_size(1, packet));
  out = write_length(kTracePacket, packet, out);
  out = WireFormatLite::WriteUInt32ToArray(kSequenceId, id_, out);
  out = write_length(field, body, out);
  out = message.SerializeWithCachedSizesToArray(out);
  file_.commit(out);
  file_.count_packet();
}

void PacketSequence::start(std::uint64_t default_track) {
  // Clears the sequence's incremental state and makes `default_track` the track of every
  // event that names none (TracePacketDefaults.track_event_defaults.track_uuid), as the
  // Perfetto SDK does for a thread's own track: most events of a rank are on one thread, and
  // each then saves its track uuid (about 10 of its 30-80 bytes).
  const std::size_t track = 1 + Coded::VarintSize64(default_track);
  const std::size_t defaults = length_delimited_size(1, track);
  const std::size_t packet = 1 + Coded::VarintSize32(id_) + 2 + length_delimited_size(2, defaults);
  std::uint8_t* out = file_.reserve(length_delimited_size(1, packet));
  out = write_length(kTracePacket, packet, out);
  out = WireFormatLite::WriteUInt32ToArray(kSequenceId, id_, out);
  out = WireFormatLite::WriteUInt32ToArray(kSequenceFlags, kIncrementalStateCleared, out);
  out = write_length(kTracePacketDefaults, defaults, out);
  out = write_length(kTrackEventDefaults, track, out);
  out = WireFormatLite::WriteUInt64ToArray(kDefaultTrackUuid, default_track, out);
  file_.commit(out);
  file_.count_packet();
  default_track_ = default_track;
  started_ = true;
}

void PacketSequence::write_event(const Event& event) {
  if (!started_) start(event.track);
  // The TrackEvent's size first (it prefixes the packet's field), then the packet straight
  // into the file's buffer: encoding the event aside and copying it in cost more (measured).
  std::size_t body_size = 2;  // type
  const bool own_track = event.track != default_track_;
  if (own_track) body_size += 1 + Coded::VarintSize64(event.track);
  if (event.category_iid != 0) body_size += 1 + Coded::VarintSize64(event.category_iid);
  if (event.name_iid != 0) body_size += 1 + Coded::VarintSize64(event.name_iid);
  // Each annotation's size is needed twice (the body's, then its own length prefix): the
  // first few are kept from the first time.
  std::array<std::size_t, 8> sizes{};
  for (std::size_t i = 0; i < event.annotations.size(); ++i) {
    const std::size_t size = annotation_size(event.annotations[i]);
    if (i < sizes.size()) sizes[i] = size;
    body_size += length_delimited_size(1, size);
  }
  body_size += (event.flows.size() + event.terminating_flows.size()) * kFlowIdSize;
  const bool counter = event.type == EventType::kCounter;
  if (counter) body_size += kFlowIdSize;  // a two-byte tag and a fixed64, as a flow id

  const std::uint32_t flags = kNeedsIncrementalState;
  const std::size_t interned = pending_.empty() ? 0 : interned_size();
  const std::size_t packet = 1 + Coded::VarintSize64(event.timestamp) + 1 +
                             Coded::VarintSize32(id_) + 2 +
                             (interned != 0 ? length_delimited_size(1, interned) : 0) +
                             length_delimited_size(1, body_size);
  const std::size_t packet_bytes = length_delimited_size(1, packet);
  std::uint8_t* out = file_.reserve(packet_bytes);
  [[maybe_unused]] std::uint8_t* const packet_begin = out;
  out = write_length(kTracePacket, packet, out);
  out = WireFormatLite::WriteUInt64ToArray(kTimestamp, event.timestamp, out);
  out = WireFormatLite::WriteUInt32ToArray(kSequenceId, id_, out);
  out = WireFormatLite::WriteUInt32ToArray(kSequenceFlags, flags, out);
  if (interned != 0) {
    out = write_length(kInternedData, interned, out);
    out = write_interned(out);
  }
  out = write_length(kTrackEvent, body_size, out);
  out = WireFormatLite::WriteEnumToArray(kType, static_cast<int>(event.type), out);
  if (own_track) out = WireFormatLite::WriteUInt64ToArray(kTrackUuid, event.track, out);
  if (event.category_iid != 0)
    out = WireFormatLite::WriteUInt64ToArray(kCategoryIids, event.category_iid, out);
  if (event.name_iid != 0) out = WireFormatLite::WriteUInt64ToArray(kNameIid, event.name_iid, out);
  for (std::size_t i = 0; i < event.annotations.size(); ++i) {
    const Annotation& annotation = event.annotations[i];
    const std::size_t size = i < sizes.size() ? sizes[i] : annotation_size(annotation);
    out = write_length(kDebugAnnotations, size, out);
    out = WireFormatLite::WriteUInt64ToArray(kAnnotationNameIid, annotation.name_iid, out);
    const auto bits = static_cast<std::uint64_t>(annotation.value);
    switch (annotation.kind) {
      case Annotation::Kind::kInt:
        out = WireFormatLite::WriteInt64ToArray(kAnnotationIntValue, annotation.value, out);
        break;
      case Annotation::Kind::kUint:
        out = WireFormatLite::WriteUInt64ToArray(kAnnotationUintValue, bits, out);
        break;
      case Annotation::Kind::kDouble:
        out = WireFormatLite::WriteFixed64ToArray(kAnnotationDoubleValue, bits, out);
        break;
      case Annotation::Kind::kString:
        out = write_length(kAnnotationStringValue, annotation.text.size(), out);
        out = std::copy(annotation.text.begin(), annotation.text.end(), out);
        break;
    }
  }
  if (counter)
    out = WireFormatLite::WriteDoubleToArray(kDoubleCounterValue, event.counter_value, out);
  for (const std::uint64_t flow : event.flows)
    out = WireFormatLite::WriteFixed64ToArray(kFlowIds, flow, out);
  for (const std::uint64_t flow : event.terminating_flows)
    out = WireFormatLite::WriteFixed64ToArray(kTerminatingFlowIds, flow, out);
  assert(static_cast<std::size_t>(out - packet_begin) == packet_bytes);
  file_.commit(out);
  file_.count_packet();
}

}  // namespace rocprof::merge
