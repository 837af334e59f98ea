// The rank files of one traced job, opened and checked together before any merging: each is a
// readable rank file of a supported version, no rank appears twice, all belong to one job,
// and every rank of the job is there (unless told to go on without some).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/format/rank_file_reader.hpp"

namespace rocprof::merge {

struct RankSetOptions {
  bool allow_missing = false;  // go on when ranks of the job have no file
  bool skip_bad = false;       // go on without files that cannot be read
};

// What stops a merge before it starts; what() says which file and why.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RankSet {
 public:
  struct Rank {
    std::int32_t rank = -1;
    std::string path;
    std::unique_ptr<format::RankFileReader> reader;
  };
  // Called for each file that passed its checks (its reader released), in file order, while
  // the next ones are checked: work on it may start early. The set as a whole may still be
  // refused afterwards.
  using Checked = std::function<void(const Rank&)>;

  // `inputs`: directories (their *.h5 files) and files. Throws InputError.
  static RankSet open(const std::vector<std::string>& inputs, const RankSetOptions& options,
                      const Checked& checked = {});
  // In rank order.
  const std::vector<Rank>& ranks() const noexcept { return ranks_; }
  const std::string& job_id() const noexcept { return job_id_; }
  std::int32_t job_size() const noexcept { return job_size_; }
  // One line each: what was left out and why (with --skip-bad / --allow-missing).
  const std::vector<std::string>& skipped() const noexcept { return skipped_; }

 private:
  std::vector<Rank> ranks_;
  std::string job_id_;
  std::int32_t job_size_ = -1;
  std::vector<std::string> skipped_;
};

}  // namespace rocprof::merge
