#include "merge/input/check_helpers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "lib/format/rank_file_reader.hpp"
#include "merge/exchange/bytes.hpp"
#include "merge/input/rank_digest.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace rocprof::merge {
namespace {

// Writes all of `bytes` to a socket (a helper's standard output is one too); false if the
// other side is gone. No SIGPIPE: a helper that ended costs only its files' findings.
bool send_all(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    bytes = bytes.subspan(static_cast<std::size_t>(sent));
  }
  return true;
}

RankSet::CheckedFile check_here(const std::string& path, bool every_chunk) {
  RankSet::CheckedFile file;
  try {
    file.reader = std::make_unique<format::RankFileReader>(path);
    if (every_chunk) file.reader->verify_every_chunk();
  } catch (const format::FormatError& error) {
    file.reader.reset();
    file.problem = error.what();
  } catch (const std::exception& error) {  // sizes a damaged file claims (std::bad_alloc)
    file.reader.reset();
    file.problem =
        format::FormatError(path, fmt::format("cannot be read ({})", error.what())).what();
  }
  return file;
}

// A finding on the wire: its place in the helper's list, then a digest with its layout (1)
// or a problem (0); each message led by its length. The layout locates every chunk, so that
// the merge process reads the file without HDF5.
std::vector<std::byte> finding(std::uint64_t position, const std::string& path, bool every_chunk) {
  RankSet::CheckedFile file = check_here(path, every_chunk);
  std::vector<std::byte> digest_bytes;
  if (file.reader) {
    try {
      ByteWriter digest;
      put_digest(digest, file.reader->digest(true));
      digest_bytes = digest.take();
    } catch (const std::exception& error) {
      file.problem = error.what();
      if (dynamic_cast<const format::FormatError*>(&error) == nullptr)
        file.problem = format::FormatError(path, error.what()).what();
      file.reader.reset();
    }
  }
  ByteWriter body;
  body.put(position);
  body.put<std::uint8_t>(file.reader ? 1 : 0);
  if (file.reader)
    body.put_bytes(digest_bytes);
  else
    body.put_string(file.problem);
  const std::vector<std::byte> payload = body.take();
  ByteWriter message;
  message.put_bytes(payload);
  return message.take();
}

// What a helper says first: a program that is not one (or of another version) is told apart
// before anything it sends is taken for a finding.
constexpr std::string_view kHello = "rocprof-merge check helper 1\n";

}  // namespace

int run_check_helper(bool every_chunk) {
  // Gone with the merge process that started it, whatever ends that.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::vector<std::byte> request;
  std::byte buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return 1;
    if (got == 0) break;
    request.insert(request.end(), buffer, buffer + got);
  }
  std::vector<std::string> paths;
  try {
    ByteReader in(request);
    const auto count = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < count; ++i) paths.push_back(in.get_string());
  } catch (const std::exception&) {
    return 1;
  }
  if (!send_all(STDOUT_FILENO, std::as_bytes(std::span(kHello.data(), kHello.size())))) return 1;
  for (std::uint64_t i = 0; i < paths.size(); ++i)
    if (!send_all(STDOUT_FILENO, finding(i, paths[i], every_chunk))) return 1;
  return 0;
}

CheckHelpers::CheckHelpers(const CheckHelperSetting& setting, const std::vector<std::string>& paths)
    : paths_(paths),
      executable_(setting.executable),
      file_timeout_(setting.file_timeout),
      every_chunk_(setting.every_chunk),
      found_(paths.size()) {
  // Every file goes to a helper when one can start: HDF5 may crash on a damaged file, and only
  // a helper may crash. One helper at least, another for each kFilesPerHelper files.
  const std::size_t most = std::max<std::size_t>(setting.count, 1);
  const std::size_t count =
      executable_.empty() || paths_.empty()
          ? 0
          : std::min(most, (paths_.size() + kFilesPerHelper - 1) / kFilesPerHelper);
  helpers_.resize(count);
  helper_done_.assign(count, true);
  for (std::size_t i = 0; i < paths_.size(); ++i)
    if (const std::size_t h = helper_of(i); h < helpers_.size()) helpers_[h].files.push_back(i);
  for (std::size_t h = 0; h < helpers_.size(); ++h)
    if (spawn(helpers_[h], 0)) {
      helper_done_[h] = false;
      ++started_;
    }
  // The lists once every helper is starting: a long list waits for its helper to read it,
  // and the others need not wait for that.
  for (Helper& helper : helpers_)
    if (helper.pid >= 0) send_list(helper);
  int wake[2] = {-1, -1};
  if (started_ > 0 && ::pipe2(wake, O_CLOEXEC) == 0) {
    wake_reader_ = wake[0];
    wake_ = wake[1];
    reader_ = std::thread([this] { receive(); });
  } else {
    for (std::size_t h = 0; h < helpers_.size(); ++h) helper_done_[h] = true;  // checked here
  }
}

bool CheckHelpers::spawn(Helper& helper, std::size_t first) const {
  helper.first = first;
  int ends[2] = {-1, -1};  // ours, the helper's (its standard input and output)
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO);
  std::string program = executable_;
  std::string argument = kCheckHelperArgument;
  std::string every_chunk = kEveryChunkArgument;
  char* argv[] = {program.data(), argument.data(), every_chunk_ ? every_chunk.data() : nullptr,
                  nullptr};
  pid_t pid = -1;
  const int failed = ::posix_spawn(&pid, executable_.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(ends[1]);
  if (failed != 0) {
    ::close(ends[0]);
    return false;
  }
  helper.pid = pid;
  helper.from = ends[0];
  return true;
}

void CheckHelpers::send_list(const Helper& helper) const {
  ByteWriter list;
  list.put<std::uint64_t>(helper.files.size() - helper.first);
  for (std::size_t n = helper.first; n < helper.files.size(); ++n)
    list.put_string(paths_[helper.files[n]]);
  const std::vector<std::byte> bytes = list.take();
  // A helper that cannot take its list ends; its files are then checked here.
  send_all(helper.from, bytes);
  ::shutdown(helper.from, SHUT_WR);
}

std::size_t CheckHelpers::running() const noexcept { return started_; }

std::size_t CheckHelpers::helper_of(std::size_t i) const {
  return helpers_.empty() ? 0 : i % helpers_.size();
}

namespace {

// What a helper that ended before its finding on `path` was sent died of: the file's problem.
std::string crash_problem(const std::string& path, int status, bool stopped,
                          std::chrono::milliseconds timeout) {
  if (stopped)
    return format::FormatError(path, fmt::format("damaged: HDF5 did not finish reading it in {} s "
                                                 "(its check helper process was stopped)",
                                                 timeout.count() / 1000.0))
        .what();
  const std::string how = WIFSIGNALED(status) ? fmt::format("signal {}, {}", WTERMSIG(status),
                                                            ::strsignal(WTERMSIG(status)))
                                              : fmt::format("exit status {}", WEXITSTATUS(status));
  return format::FormatError(
             path, fmt::format("damaged: HDF5 crashed reading it (its check helper process "
                               "ended with {})",
                               how))
      .what();
}

}  // namespace

void CheckHelpers::receive() {
  std::vector<std::vector<std::byte>> pending(helpers_.size());
  std::vector<bool> greeted(helpers_.size(), false);
  std::vector<bool> ended(helpers_.size(), false);      // its output ended, or made no sense
  std::vector<std::uint64_t> next(helpers_.size(), 0);  // the finding each helper sends next
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> deadline(helpers_.size(), Clock::now() + file_timeout_);
  std::vector<bool> stopped(helpers_.size(), false);  // killed at its deadline
  std::byte buffer[1 << 16];
  for (;;) {
    // Helpers past their deadline on a file are stopped; their output then ends (below).
    const Clock::time_point now = Clock::now();
    Clock::time_point soonest = Clock::time_point::max();
    for (std::size_t h = 0; h < helpers_.size(); ++h) {
      if (helpers_[h].from < 0 || ended[h] || stopped[h]) continue;
      if (deadline[h] <= now) {
        ::kill(helpers_[h].pid, SIGKILL);
        stopped[h] = true;
      } else {
        soonest = std::min(soonest, deadline[h]);
      }
    }
    const int wait_ms =
        soonest == Clock::time_point::max()
            ? -1
            : static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(soonest - now).count());
    std::vector<pollfd> watched;
    std::vector<std::size_t> whose;
    for (std::size_t h = 0; h < helpers_.size(); ++h)
      if (helpers_[h].from >= 0 && !ended[h]) {
        watched.push_back({helpers_[h].from, POLLIN, 0});
        whose.push_back(h);
      }
    if (watched.empty()) return;
    watched.push_back({wake_reader_, POLLIN, 0});
    if (::poll(watched.data(), watched.size(), wait_ms) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (watched.back().revents != 0) break;  // told to stop
    for (std::size_t w = 0; w + 1 < watched.size(); ++w) {
      if (watched[w].revents == 0) continue;
      const std::size_t h = whose[w];
      Helper& helper = helpers_[h];
      const ssize_t got = ::read(helper.from, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      bool over = got <= 0;
      bool believed = true;  // false: it said something no helper says
      if (!over) pending[h].insert(pending[h].end(), buffer, buffer + got);
      // Every whole message received so far, after the greeting.
      std::size_t used = 0;
      try {
        if (!greeted[h] && pending[h].size() >= kHello.size()) {
          if (std::memcmp(pending[h].data(), kHello.data(), kHello.size()) != 0)
            throw std::runtime_error("not a check helper");
          greeted[h] = true;
          used = kHello.size();
        }
        for (; greeted[h];) {
          const std::span<const std::byte> unread =
              std::span<const std::byte>{pending[h]}.subspan(used);
          ByteReader in(unread);
          if (pending[h].size() - used < sizeof(std::uint64_t)) break;
          const auto length = in.get<std::uint64_t>();
          if (pending[h].size() - used - sizeof(std::uint64_t) < length) break;
          ByteReader body(unread.subspan(sizeof(std::uint64_t), length));
          used += sizeof(std::uint64_t) + length;
          const auto position = body.get<std::uint64_t>() + helper.first;
          if (position != next[h] || position >= helper.files.size())
            throw std::runtime_error("a finding out of order");
          ++next[h];
          deadline[h] = Clock::now() + file_timeout_;
          RankSet::CheckedFile file;
          if (body.get<std::uint8_t>() != 0) {
            ByteReader digest(body.get_bytes());
            file.reader = std::make_unique<format::RankFileReader>(get_digest(digest));
          } else {
            file.problem = body.get_string();
          }
          const std::lock_guard lock(mutex_);
          found_[helper.files[position]] = std::move(file);
          arrived_.notify_all();
        }
      } catch (const std::exception&) {
        over = true;  // a damaged message: what it did not send is checked here
        believed = false;
      }
      pending[h].erase(pending[h].begin(), pending[h].begin() + static_cast<std::ptrdiff_t>(used));
      if (!over) continue;
      // A helper that greeted, then ended abnormally before its finding on a file, died
      // reading that file: the file is damaged, and a new helper takes the files after it.
      if (believed && greeted[h] && next[h] < helper.files.size()) {
        int status = 0;
        while (::waitpid(helper.pid, &status, 0) < 0 && errno == EINTR) {
        }
        ::close(helper.from);
        helper.pid = -1;
        helper.from = -1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          const std::size_t crashed = helper.files[next[h]++];
          {
            const std::lock_guard lock(mutex_);
            found_[crashed] = RankSet::CheckedFile{
                nullptr, crash_problem(paths_[crashed], status, stopped[h], file_timeout_)};
            arrived_.notify_all();
          }
          stopped[h] = false;
          deadline[h] = Clock::now() + file_timeout_;
          pending[h].clear();
          greeted[h] = false;
          if (next[h] == helper.files.size()) {
            ended[h] = true;
            continue;
          }
          if (spawn(helper, next[h])) {
            send_list(helper);
            continue;
          }
        }
      }
      ended[h] = true;
      const std::lock_guard lock(mutex_);
      helper_done_[h] = true;
      arrived_.notify_all();
    }
  }
  // Stopped: whatever was not received is checked here.
  const std::lock_guard lock(mutex_);
  for (std::size_t h = 0; h < helpers_.size(); ++h) helper_done_[h] = true;
  arrived_.notify_all();
}

RankSet::CheckedFile CheckHelpers::take(std::size_t i) {
  const std::size_t h = helper_of(i);
  if (h < helpers_.size()) {
    std::unique_lock lock(mutex_);
    arrived_.wait(lock, [&] { return found_[i].has_value() || helper_done_[h]; });
    if (found_[i]) {
      RankSet::CheckedFile file = std::move(*found_[i]);
      found_[i].reset();
      return file;
    }
  }
  return check_here(paths_[i], every_chunk_);
}

CheckHelpers::~CheckHelpers() {
  if (reader_.joinable()) {
    const char stop = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(wake_, &stop, 1);
    reader_.join();
  }
  for (Helper& helper : helpers_) {
    if (helper.pid < 0) continue;
    // Ended, or its work is no longer wanted (stopped early, or not a helper after all).
    ::kill(helper.pid, SIGKILL);
    ::close(helper.from);
    int status = 0;
    while (::waitpid(helper.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (wake_ >= 0) ::close(wake_);
  if (wake_reader_ >= 0) ::close(wake_reader_);
}

}  // namespace rocprof::merge
