// Text as the rank files and every output promise it: valid UTF-8 (docs/FORMAT.md, Strings).
// Applications hand the tracer arbitrary bytes (a ROC-TX message is a char*); a byte that
// starts no valid UTF-8 sequence becomes U+FFFD, so strict readers (h5py's asstr(), protobuf,
// JSON parsers, browsers) accept every name, and the same name reads the same everywhere.
#pragma once

#include <string>
#include <string_view>

namespace rocprof::format {

// True when `text` is valid UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool is_valid_utf8(std::string_view text) noexcept;

// `text` with each byte that is not part of a valid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// `text` (valid UTF-8) for a terminal: control characters (C0, DEL, C1), which could move the
// cursor or recolour the screen, shown as `\xNN` (`\u00NN` for C1) instead.
std::string printable(std::string_view text);

}  // namespace rocprof::format
