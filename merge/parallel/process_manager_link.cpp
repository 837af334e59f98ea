#include "merge/parallel/process_manager_link.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

namespace rocprof::merge {
namespace {

// The variables a PMIx server sets for its clients, newest first (each names the same server).
constexpr const char* kServerUriVariables[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4",
                                               "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
                                               "PMIX_SERVER_URI2"};

std::optional<std::uint16_t> port_number(std::string_view text) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535)
    return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

// The socket's peer as an endpoint; nullopt for anything but a connected TCP socket.
std::optional<TcpEndpoint> peer_of(int fd) {
  int type = 0;
  socklen_t type_size = sizeof type;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_size) != 0 || type != SOCK_STREAM)
    return std::nullopt;
  sockaddr_storage peer{};
  socklen_t size = sizeof peer;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) return std::nullopt;
  TcpEndpoint endpoint;
  endpoint.family = peer.ss_family;
  if (peer.ss_family == AF_INET) {
    sockaddr_in ipv4{};
    std::memcpy(&ipv4, &peer, sizeof ipv4);
    std::memcpy(endpoint.address.data(), &ipv4.sin_addr, sizeof ipv4.sin_addr);
    endpoint.port = ntohs(ipv4.sin_port);
  } else if (peer.ss_family == AF_INET6) {
    sockaddr_in6 ipv6{};
    std::memcpy(&ipv6, &peer, sizeof ipv6);
    std::memcpy(endpoint.address.data(), &ipv6.sin6_addr, sizeof ipv6.sin6_addr);
    endpoint.port = ntohs(ipv6.sin6_port);
  } else {
    return std::nullopt;  // a Unix socket
  }
  return endpoint;
}

}  // namespace

std::optional<TcpEndpoint> pmix_server_endpoint(std::string_view uri) {
  // The rendezvous address follows the server's own name.
  if (const std::size_t semicolon = uri.find(';'); semicolon != std::string_view::npos)
    uri.remove_prefix(semicolon + 1);
  // "tcp4://ADDRESS:PORT" and "tcp6://[ADDRESS]:PORT".
  struct Form {
    std::string_view prefix;
    std::string_view before_port;
    int family;
  };
  for (const Form form : {Form{"tcp4://", ":", AF_INET}, Form{"tcp6://[", "]:", AF_INET6}}) {
    if (!uri.starts_with(form.prefix)) continue;
    const std::string_view rest = uri.substr(form.prefix.size());
    const std::size_t split = rest.rfind(form.before_port);
    if (split == std::string_view::npos) return std::nullopt;
    TcpEndpoint endpoint;
    endpoint.family = form.family;
    const std::string host(rest.substr(0, split));
    const std::optional<std::uint16_t> port =
        port_number(rest.substr(split + form.before_port.size()));
    if (!port || ::inet_pton(form.family, host.c_str(), endpoint.address.data()) != 1)
      return std::nullopt;
    endpoint.port = *port;
    return endpoint;
  }
  return std::nullopt;
}

std::optional<TcpEndpoint> pmix_server_endpoint_from_environment() {
  for (const char* name : kServerUriVariables)
    // NOLINTNEXTLINE(concurrency-mt-unsafe): read only; the launcher set it, nothing here does
    if (const char* uri = std::getenv(name)) return pmix_server_endpoint(uri);
  return std::nullopt;
}

std::size_t send_without_delay_to(const TcpEndpoint& server) {
  std::size_t changed = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    int fd = -1;
    const std::string name = entry.path().filename().string();
    if (std::from_chars(name.data(), name.data() + name.size(), fd).ec != std::errc()) continue;
    if (peer_of(fd) != server) continue;
    const int on = 1;
    if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0) ++changed;
  }
  return changed;
}

std::size_t send_without_delay_to_process_manager() {
  const std::optional<TcpEndpoint> server = pmix_server_endpoint_from_environment();
  return server ? send_without_delay_to(*server) : 0;
}

}  // namespace rocprof::merge
