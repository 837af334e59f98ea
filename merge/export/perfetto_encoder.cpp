#include "merge/export/perfetto_encoder.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
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

std::size_t entry_size(std::uint64_t iid, std::size_t name_length) {
  return 1 + Coded::VarintSize64(iid) + length_delimited_size(1, name_length);
}

}  // namespace

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
  // The TrackEvent first (its length prefixes the packet's field), in a reused buffer.
  std::size_t text_bytes = 0;
  for (const Annotation& annotation : event.annotations) text_bytes += annotation.text.size();
  const std::size_t most = std::size_t{4} * 11 + event.annotations.size() * 36 + text_bytes +
                           (event.flows.size() + event.terminating_flows.size()) * 10;
  if (scratch_.size() < most) scratch_.resize(most);
  std::uint8_t* const body_begin = scratch_.data();
  std::uint8_t* body = body_begin;
  body = WireFormatLite::WriteEnumToArray(kType, static_cast<int>(event.type), body);
  if (event.track != default_track_)
    body = WireFormatLite::WriteUInt64ToArray(kTrackUuid, event.track, body);
  if (event.category_iid != 0)
    body = WireFormatLite::WriteUInt64ToArray(kCategoryIids, event.category_iid, body);
  if (event.name_iid != 0)
    body = WireFormatLite::WriteUInt64ToArray(kNameIid, event.name_iid, body);
  for (const Annotation& annotation : event.annotations) {
    const auto bits = static_cast<std::uint64_t>(annotation.value);
    std::size_t value_size = 1 + Coded::VarintSize64(bits);  // int and uint
    if (annotation.kind == Annotation::Kind::kDouble) value_size = 1 + 8;
    if (annotation.kind == Annotation::Kind::kString)
      value_size = length_delimited_size(1, annotation.text.size());
    body = write_length(kDebugAnnotations,
                        1 + Coded::VarintSize64(annotation.name_iid) + value_size, body);
    body = WireFormatLite::WriteUInt64ToArray(kAnnotationNameIid, annotation.name_iid, body);
    switch (annotation.kind) {
      case Annotation::Kind::kInt:
        body = WireFormatLite::WriteInt64ToArray(kAnnotationIntValue, annotation.value, body);
        break;
      case Annotation::Kind::kUint:
        body = WireFormatLite::WriteUInt64ToArray(kAnnotationUintValue, bits, body);
        break;
      case Annotation::Kind::kDouble:
        body = WireFormatLite::WriteFixed64ToArray(kAnnotationDoubleValue, bits, body);
        break;
      case Annotation::Kind::kString:
        body = write_length(kAnnotationStringValue, annotation.text.size(), body);
        body = std::copy(annotation.text.begin(), annotation.text.end(), body);
        break;
    }
  }
  for (const std::uint64_t flow : event.flows)
    body = WireFormatLite::WriteFixed64ToArray(kFlowIds, flow, body);
  for (const std::uint64_t flow : event.terminating_flows)
    body = WireFormatLite::WriteFixed64ToArray(kTerminatingFlowIds, flow, body);
  const auto body_size = static_cast<std::size_t>(body - body_begin);

  const std::uint32_t flags = kNeedsIncrementalState;
  const std::size_t interned = pending_.empty() ? 0 : interned_size();
  const std::size_t packet = 1 + Coded::VarintSize64(event.timestamp) + 1 +
                             Coded::VarintSize32(id_) + 2 +
                             (interned != 0 ? length_delimited_size(1, interned) : 0) +
                             length_delimited_size(1, body_size);
  std::uint8_t* out = file_.reserve(length_delimited_size(1, packet));
  out = write_length(kTracePacket, packet, out);
  out = WireFormatLite::WriteUInt64ToArray(kTimestamp, event.timestamp, out);
  out = WireFormatLite::WriteUInt32ToArray(kSequenceId, id_, out);
  out = WireFormatLite::WriteUInt32ToArray(kSequenceFlags, flags, out);
  if (interned != 0) {
    out = write_length(kInternedData, interned, out);
    out = write_interned(out);
  }
  out = write_length(kTrackEvent, body_size, out);
  out = static_cast<std::uint8_t*>(std::memcpy(out, body_begin, body_size)) + body_size;
  file_.commit(out);
  file_.count_packet();
}

}  // namespace rocprof::merge
