// Temporary files beside a merge's output (the staged output, message spills, the parts of a
// parallel merge) are created under names nobody can guess, and only where nothing exists
// yet: a file or link planted under a predictable name (OUT.messages.0 -> victim) would
// otherwise be written through.
#pragma once

#include <cstdio>
#include <string>

namespace rocprof::merge {

// `prefix` followed by '.' and 12 random letters and digits (then `suffix`).
std::string unique_name(const std::string& prefix, const std::string& suffix = "");

// Creates `path` for writing, where nothing is (O_CREAT | O_EXCL | O_NOFOLLOW): never an
// existing file, nor through a link. Returns the descriptor, or -1 with errno set.
int create_exclusive(const std::string& path, int flags = 0);

// Creates `path` as an empty file by create_exclusive, for a writer to open later (with
// O_NOFOLLOW); throws std::runtime_error naming it and the reason.
void create_empty(const std::string& path);

// A new file named unique_name(prefix, suffix), created by create_exclusive (another name is
// tried should one exist). Returns its descriptor and sets `path`; throws std::runtime_error
// naming `prefix` and the reason.
int create_unique(const std::string& prefix, const std::string& suffix, std::string& path,
                  int flags = 0);

// Opens `path` for writing as a stream, truncated, never through a link (O_NOFOLLOW): for an
// output the merge staged itself. Returns null with errno set.
std::FILE* open_for_writing(const std::string& path);

}  // namespace rocprof::merge
