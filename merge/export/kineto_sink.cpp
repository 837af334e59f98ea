// .hta: per-rank Kineto JSON for Holistic Trace Analysis. NAME.hta is an index of the files,
// which are in the directory NAME/ beside it (staged and moved into place with it, as an OTF2
// archive's); every merge process writes its own ranks' files.
#include <filesystem>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "merge/export/job_origin.hpp"
#include "merge/export/json_text.hpp"
#include "merge/export/kineto_json.hpp"
#include "merge/export/sink_registry.hpp"
#include "merge/files/exclusive_file.hpp"

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

fs::path directory_of(const std::string& index) {
  const fs::path path(index);
  return (path.has_parent_path() ? path.parent_path() : fs::path(".")) / path.stem();
}

class KinetoSink final : public Sink {
 public:
  Parallel parallel() const noexcept override { return Parallel::kTogether; }
  bool archive() const noexcept override { return true; }

  // The directory is replaced: only one holding nothing but such files is.
  std::string target_problem(const std::string& path) const override {
    const fs::path directory = directory_of(path);
    std::error_code code;
    if (!fs::exists(directory, code)) return {};
    if (!fs::is_directory(directory, code))
      return fmt::format("cannot write {}: its files go in {}, and a file has that name", path,
                         directory.string());
    for (const fs::directory_entry& entry : fs::directory_iterator(directory, code)) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_regular_file(code) || !name.starts_with("rank") || !name.ends_with(".json"))
        return fmt::format(
            "cannot write {}: it would replace the directory {}, which holds other files than "
            "per-rank traces ({}); choose another name",
            path, directory.string(), name);
    }
    return {};
  }

  std::uint64_t write(const SinkJob& job) override {
    const fs::path directory = directory_of(job.path);
    const std::uint64_t origin = job_origin_ns(job);
    std::error_code code;
    fs::create_directories(directory, code);
    if (code)
      throw std::runtime_error(
          fmt::format("cannot create {}: {}", directory.string(), code.message()));
    const auto world_size = static_cast<std::int32_t>(job.ranks->size());
    const std::uint64_t events =
        export_kineto_json(job.block(), world_size, origin, directory.string(), job.progress);
    // The index names the directory as it will be once in place (the output's stem).
    if (job.first_part()) write_index(job, fs::path(job.output_name).stem().string(), world_size);
    return events;
  }

 private:
  // NAME.hta: what the directory holds, for people and scripts.
  static void write_index(const SinkJob& job, const std::string& directory, std::int32_t size) {
    std::string files;
    for (const AlignedRank* rank : *job.ranks)
      files += fmt::format(R"({}{{"rank": {}, "file": "{}/{}"}})", files.empty() ? "" : ",\n  ",
                           rank->rank(), json_escaped(directory), kineto_rank_file(rank->rank()));
    std::FILE* index = open_for_writing(job.path);  // the staged name, never through a link
    if (index == nullptr) throw std::runtime_error(fmt::format("cannot write {}", job.path));
    fmt::print(index,
               "{{\n\"format\": \"per-rank Kineto trace JSON (rocprof-merge)\",\n"
               "\"job_id\": \"{}\",\n\"world_size\": {},\n\"traces\": [\n  {}\n]\n}}\n",
               json_escaped(*job.job_id), size, files);
    if (std::fclose(index) != 0)
      throw std::runtime_error(fmt::format("writing {} failed", job.path));
  }
};

}  // namespace

std::unique_ptr<Sink> make_kineto_sink() { return std::make_unique<KinetoSink>(); }

}  // namespace rocprof::merge
