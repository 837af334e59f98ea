// The merge process's connection to its process manager (PMIx: mpirun's daemon, or Slurm's step
// daemon), sped up where it is a TCP socket.
//
// Open MPI 4.1 with PMIx 4 talks to mpirun's PMIx server over TCP on the loopback, and the
// client leaves Nagle's algorithm on. MPI_Finalize sends it several short messages without
// waiting for a reply in between: the second waits until the first is acknowledged, and the
// server delays that acknowledgement (Linux's delayed ACK). Every merge process lost most of
// its MPI_Finalize so, a visible share of a parallel merge of many small ranks. With
// TCP_NODELAY on the client's socket the wait is gone. Nothing else changes: the same messages
// are sent, only without waiting.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rocprof::merge {

// Where a PMIx server listens over TCP.
struct TcpEndpoint {
  int family = 0;                          // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> address{};  // network byte order; IPv4 in the first 4 bytes
  std::uint16_t port = 0;                  // host byte order
  bool operator==(const TcpEndpoint&) const = default;
};

// The TCP endpoint of a PMIx server URI ("NSPACE.RANK;tcp4://127.0.0.1:53211", or
// "...;tcp6://[::1]:53211"); nullopt for any other transport (a Unix socket) or a URI that does
// not parse.
std::optional<TcpEndpoint> pmix_server_endpoint(std::string_view uri);

// The endpoint this process's PMIx server gives in the environment (PMIX_SERVER_URI41 and its
// older names, as the launcher set them); nullopt when there is none, or it is not TCP.
std::optional<TcpEndpoint> pmix_server_endpoint_from_environment();

// Turns Nagle's algorithm off (TCP_NODELAY) on every TCP socket of this process connected to
// `server`; returns how many it changed. Other sockets are left alone.
std::size_t send_without_delay_to(const TcpEndpoint& server);

// The two above together, after MPI has started (its connection exists from then on); 0 where
// the process manager is not reached over TCP.
std::size_t send_without_delay_to_process_manager();

}  // namespace rocprof::merge
