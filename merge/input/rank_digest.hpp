// A rank file's digest (RankFileReader::Digest) as bytes, for the processes of a parallel merge
// to tell each other what they found in the files they checked, and for check helpers to
// tell their merge process (with the layout).
#pragma once

#include "lib/format/rank_file_reader.hpp"
#include "merge/exchange/bytes.hpp"

namespace rocprof::merge {

void put_digest(ByteWriter& out, const format::RankFileReader::Digest& digest);
// Throws std::runtime_error for a damaged message.
format::RankFileReader::Digest get_digest(ByteReader& in);

}  // namespace rocprof::merge
