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
  TcpEndpoint endpoint;
  std::string host;
  std::string_view port;
  if (uri.starts_with("tcp4://")) {
    uri.remove_prefix(7);
    const std::size_t colon = uri.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    endpoint.family = AF_INET;
    host = std::string(uri.substr(0, colon));
    port = uri.substr(colon + 1);
  } else if (uri.starts_with("tcp6://[")) {
    uri.remove_prefix(8);
    const std::size_t bracket = uri.find("]:");
    if (bracket == std::string_view::npos) return std::nullopt;
    endpoint.family = AF_INET6;
    host = std::string(uri.substr(0, bracket));
    port = uri.substr(bracket + 2);
  } else {
    return std::nullopt;
  }
  const std::optional<std::uint16_t> number = port_number(port);
  if (!number || ::inet_pton(endpoint.family, host.c_str(), endpoint.address.data()) != 1)
    return std::nullopt;
  endpoint.port = *number;
  return endpoint;
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
