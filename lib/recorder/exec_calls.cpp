// The exec family, interposed: exec replaces the program without running atexit handlers, so
// the recorder closes its file first (recorder.hpp, prepare_exec) and tells the next image,
// through its environment, how to record. Every variant goes to the C library's execve,
// execvpe or fexecve with that environment; a failed exec returns as it would have.
// In a vforked child (another pid) nothing is done: only the exec itself may run there.
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <string>
#include <vector>

#include "lib/recorder/libc_symbol.hpp"
#include "lib/recorder/recorder.hpp"

namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);

constexpr std::string_view kVariable = "ROCPROF_MPI_RECORDER_PID=";

// `environment` with the recorder's entry replaced by `entry` (kept alive in `storage`).
std::vector<char*> with_entry(char* const* environment, std::string& entry) {
  std::vector<char*> result;
  for (char* const* item = environment; item != nullptr && *item != nullptr; ++item)
    if (std::strncmp(*item, kVariable.data(), kVariable.size()) != 0) result.push_back(*item);
  result.push_back(entry.data());
  result.push_back(nullptr);
  return result;
}

// Calls `run(environment)` with the recorder's entry for the next image when recording here,
// else with `environment` unchanged.
template <typename Run>
int exec_with(char* const* environment, Run&& run) {
  std::string entry = rocprof::recorder::prepare_exec();
  if (entry.empty()) return run(environment);
  try {
    std::vector<char*> changed = with_entry(environment, entry);
    return run(changed.data());
  } catch (...) {
    return run(environment);
  }
}

int real_execve(const char* path, char* const argv[], char* const envp[]) {
  static const auto function = reinterpret_cast<ExecveFn>(rocprof::recorder::libc_symbol("execve"));
  if (function == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return function(path, argv, envp);
}

int real_execvpe(const char* file, char* const argv[], char* const envp[]) {
  static const auto function =
      reinterpret_cast<ExecveFn>(rocprof::recorder::libc_symbol("execvpe"));
  if (function == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return function(file, argv, envp);
}

// The arguments of execl, execlp and execle, up to the terminating null pointer.
std::vector<char*> arguments_of(const char* first, va_list& rest) {
  std::vector<char*> argv{const_cast<char*>(first)};
  while (char* next = va_arg(rest, char*)) argv.push_back(next);
  argv.push_back(nullptr);
  return argv;
}

}  // namespace

// NOLINTBEGIN(readability-inconsistent-declaration-parameter-name,cppcoreguidelines-pro-type-vararg)
extern "C" __attribute__((visibility("default"))) int execve(const char* path, char* const argv[],
                                                             char* const envp[]) noexcept {
  return exec_with(envp, [&](char* const* env) { return real_execve(path, argv, env); });
}

extern "C" __attribute__((visibility("default"))) int execv(const char* path,
                                                            char* const argv[]) noexcept {
  return exec_with(environ, [&](char* const* env) { return real_execve(path, argv, env); });
}

extern "C" __attribute__((visibility("default"))) int execvpe(const char* file, char* const argv[],
                                                              char* const envp[]) noexcept {
  return exec_with(envp, [&](char* const* env) { return real_execvpe(file, argv, env); });
}

extern "C" __attribute__((visibility("default"))) int execvp(const char* file,
                                                             char* const argv[]) noexcept {
  return exec_with(environ, [&](char* const* env) { return real_execvpe(file, argv, env); });
}

extern "C" __attribute__((visibility("default"))) int fexecve(int fd, char* const argv[],
                                                              char* const envp[]) noexcept {
  static const auto function =
      reinterpret_cast<FexecveFn>(rocprof::recorder::libc_symbol("fexecve"));
  return exec_with(envp, [&](char* const* env) {
    if (function == nullptr) {
      errno = ENOSYS;
      return -1;
    }
    return function(fd, argv, env);
  });
}

extern "C" __attribute__((visibility("default"))) int execl(const char* path, const char* arg,
                                                            ...) noexcept {
  va_list rest;
  va_start(rest, arg);
  std::vector<char*> argv = arguments_of(arg, rest);
  va_end(rest);
  return execv(path, argv.data());
}

extern "C" __attribute__((visibility("default"))) int execlp(const char* file, const char* arg,
                                                             ...) noexcept {
  va_list rest;
  va_start(rest, arg);
  std::vector<char*> argv = arguments_of(arg, rest);
  va_end(rest);
  return execvp(file, argv.data());
}

extern "C" __attribute__((visibility("default"))) int execle(const char* path, const char* arg,
                                                             ...) noexcept {
  va_list rest;
  va_start(rest, arg);
  std::vector<char*> argv = arguments_of(arg, rest);
  char* const* envp = va_arg(rest, char* const*);
  va_end(rest);
  return execve(path, argv.data(), envp);
}
// NOLINTEND(readability-inconsistent-declaration-parameter-name,cppcoreguidelines-pro-type-vararg)
