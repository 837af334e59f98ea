// libFuzzer target for opening and checking a whole rank file as rocprof-merge does: the
// bytes are written to a file, checked by a check helper process (this program, run again as
// one, merge/input/check_helpers.hpp), and every row of every table is then read back in this
// process from the helper's layout. Neither this process nor the helper may crash on our
// code: a damaged file is a FormatError of one line naming it.
//
// HDF5 itself crashes on some damaged files, in the helper: that costs the file (its problem
// says so), not the merge. Sanitizer reports of the helpers go to files under the work
// directory; one whose crashing frame is outside libhdf5 is a bug of ours, and stops the run.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/rank_file_reader.hpp"
#include "merge/input/check_helpers.hpp"

namespace {

using namespace rocprof;

std::string g_self;  // this program: the helpers' executable
std::string g_dir;   // work directory: the file under test and the helpers' reports

// Every row of every table, through the reader the merge would use.
void read_everything(const format::RankFileReader& reader) {
  for (const format::Table* table : format::all_tables()) {
    const std::uint64_t rows = reader.row_count(*table);
    std::vector<std::byte> buffer;
    for (std::uint64_t first = 0; first < rows; first += format::kChunkRows) {
      const std::uint64_t count = std::min<std::uint64_t>(format::kChunkRows, rows - first);
      format::StoredChunk chunk;
      format::ChunkDecodeBuffers buffers;
      if (!reader.fetch_chunk(*table, first, count, chunk)) return;  // read through HDF5
      buffer.resize(chunk.count * table->row_size);
      format::decode_chunk(chunk, buffers, buffer.data());
    }
  }
  for (std::size_t id = 0; id < reader.string_count(); ++id)
    (void)reader.string(static_cast<format::StringId>(id));
}

// Whether a sanitizer report's first stack (the crash's) reaches HDF5 before any code of
// ours: frames of the C library and the sanitizer's interceptors (memcpy, strdup: no source
// line) are passed over.
bool blames_hdf5(const std::string& report) {
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos || line[at] != '#') continue;
    if (line.find("libhdf5") != std::string::npos) return true;
    if (line.find("rocprof") != std::string::npos || line.find(".cpp:") != std::string::npos ||
        line.find(".hpp:") != std::string::npos)
      return false;
  }
  return false;  // no stack: an undefined-behaviour report, of our code
}

// Stops the run if a helper's sanitizer report blames a frame outside HDF5.
void check_helper_reports() {
  DIR* dir = ::opendir(g_dir.c_str());
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind("helper-report", 0) != 0) continue;
    const std::string path = g_dir + "/" + name;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string report = text.str();
    ::unlink(path.c_str());
    if (!blames_hdf5(report)) {
      std::fprintf(stderr, "a check helper crashed outside HDF5:\n%s\n", report.c_str());
      std::abort();
    }
  }
  ::closedir(dir);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Run as a check helper: the fuzzer's own flags are not for it.
  for (int i = 1; i < *argc; ++i)
    if (std::string_view((*argv)[i]) == merge::kCheckHelperArgument)
      std::_Exit(merge::run_check_helper(i + 1 < *argc && std::string_view((*argv)[i + 1]) ==
                                                              merge::kEveryChunkArgument));
  char self[4096];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) std::abort();
  g_self.assign(self, static_cast<std::size_t>(length));
  char dir[] = "/tmp/rank_file_fuzz.XXXXXX";
  if (::mkdtemp(dir) == nullptr) std::abort();
  g_dir = dir;
  // Removed when the run ends (libFuzzer exits through exit()); helpers leave by _Exit.
  std::atexit([] { std::filesystem::remove_all(g_dir); });
  // The helpers' sanitizer reports, to files read after each input (not to the log).
  const char* options = std::getenv("ASAN_OPTIONS");
  const std::string asan = (options != nullptr ? std::string(options) + ":" : std::string()) +
                           "log_path=" + g_dir + "/helper-report";
  ::setenv("ASAN_OPTIONS", asan.c_str(), 1);
  ::setenv("UBSAN_OPTIONS", ("log_path=" + g_dir + "/helper-report").c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = g_dir + "/0.h5";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  {
    // A helper stopped sooner than the merge's: HDF5 loops for ever on some inputs. Half the
    // inputs are checked as under --skip-bad (every chunk read by the helper).
    merge::CheckHelpers helpers({g_self, 1, std::chrono::milliseconds(2000), size % 2 == 1},
                                {path});
    if (helpers.running() != 1) std::abort();  // the helper must check it, not this process
    merge::RankSet::CheckedFile file = helpers.take(0);
    if (file.reader) {
      try {
        read_everything(*file.reader);
        (void)file.reader->read_all<format::CommunicatorRow>();
      } catch (const format::FormatError& error) {
        file.problem = error.what();
      }
    }
    if (!file.reader || !file.problem.empty()) {
      // One line, naming the file.
      if (file.problem.rfind(path + ": ", 0) != 0 || file.problem.find('\n') != std::string::npos)
        std::abort();
    }
  }
  check_helper_reports();
  return 0;
}
