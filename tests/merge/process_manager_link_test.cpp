// The process manager's TCP link: which URIs name a TCP server, and that only the sockets
// connected to that server get TCP_NODELAY (real sockets on the loopback).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "merge/parallel/process_manager_link.hpp"

namespace rocprof::merge {
namespace {

// A listening TCP socket on the loopback, with a client connected to it.
class LoopbackLink {
 public:
  explicit LoopbackLink(int family) : family_(family) {
    listener_ = ::socket(family, SOCK_STREAM, 0);
    client_ = ::socket(family, SOCK_STREAM, 0);
    sockaddr_storage address{};
    socklen_t size = 0;
    if (family == AF_INET) {
      auto* ipv4 = reinterpret_cast<sockaddr_in*>(&address);
      ipv4->sin_family = AF_INET;
      ipv4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      size = sizeof(sockaddr_in);
    } else {
      auto* ipv6 = reinterpret_cast<sockaddr_in6*>(&address);
      ipv6->sin6_family = AF_INET6;
      ipv6->sin6_addr = in6addr_loopback;
      size = sizeof(sockaddr_in6);
    }
    auto* raw = reinterpret_cast<sockaddr*>(&address);
    usable_ = listener_ >= 0 && client_ >= 0 && ::bind(listener_, raw, size) == 0 &&
              ::listen(listener_, 1) == 0 && ::getsockname(listener_, raw, &size) == 0 &&
              ::connect(client_, raw, size) == 0;
    if (usable_) {
      port_ = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&address)->sin_port
                                      : reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
      accepted_ = ::accept(listener_, nullptr, nullptr);
    }
  }
  ~LoopbackLink() {
    for (const int fd : {client_, accepted_, listener_})
      if (fd >= 0) ::close(fd);
  }
  LoopbackLink(const LoopbackLink&) = delete;
  LoopbackLink& operator=(const LoopbackLink&) = delete;

  bool usable() const { return usable_; }
  int client() const { return client_; }
  int accepted() const { return accepted_; }
  std::string uri() const {
    return family_ == AF_INET ? "prterun.vm.1234.0;tcp4://127.0.0.1:" + std::to_string(port_)
                              : "prterun.vm.1234.0;tcp6://[::1]:" + std::to_string(port_);
  }

 private:
  int family_;
  int listener_ = -1;
  int client_ = -1;
  int accepted_ = -1;
  std::uint16_t port_ = 0;
  bool usable_ = false;
};

int no_delay(int fd) {
  int value = -1;
  socklen_t size = sizeof value;
  return ::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, &size) == 0 ? value : -1;
}

TEST(ProcessManagerLink, ReadsTcpServerUris) {
  const auto ipv4 = pmix_server_endpoint("1234.0;tcp4://127.0.0.1:53211");
  ASSERT_TRUE(ipv4.has_value());
  EXPECT_EQ(ipv4->family, AF_INET);
  EXPECT_EQ(ipv4->port, 53211);
  EXPECT_EQ(ipv4->address[0], 127);
  EXPECT_EQ(ipv4->address[3], 1);
  const auto ipv6 = pmix_server_endpoint("1234.0;tcp6://[::1]:4000");
  ASSERT_TRUE(ipv6.has_value());
  EXPECT_EQ(ipv6->family, AF_INET6);
  EXPECT_EQ(ipv6->port, 4000);
  EXPECT_EQ(ipv6->address[15], 1);
  // Without the server's name in front.
  EXPECT_TRUE(pmix_server_endpoint("tcp4://10.1.2.3:80").has_value());
}

TEST(ProcessManagerLink, OtherTransportsAndDamagedUrisNameNoTcpServer) {
  for (const char* uri :
       {"1234.0;usock:///tmp/pmix-server", "", "1234.0", "1234.0;tcp4://127.0.0.1",
        "1234.0;tcp4://127.0.0.1:", "1234.0;tcp4://127.0.0.1:0", "1234.0;tcp4://127.0.0.1:70000",
        "1234.0;tcp4://127.0.0.1:80x", "1234.0;tcp4://localhost:80", "1234.0;tcp6://::1:80",
        "1234.0;tcp6://[::1]"})
    EXPECT_FALSE(pmix_server_endpoint(uri).has_value()) << uri;
}

TEST(ProcessManagerLink, OnlyTheSocketsToTheServerSendWithoutDelay) {
  for (const int family : {AF_INET, AF_INET6}) {
    LoopbackLink server(family);
    LoopbackLink other(family);
    if (!server.usable() || !other.usable()) {
      EXPECT_NE(family, AF_INET) << "no IPv4 loopback";
      continue;  // no IPv6 loopback in this namespace
    }
    ASSERT_EQ(no_delay(server.client()), 0);
    const auto endpoint = pmix_server_endpoint(server.uri());
    ASSERT_TRUE(endpoint.has_value()) << server.uri();
    // The client's socket is connected to the server's port; the server's own accepted
    // socket is connected to the client's (another) port, and the other link elsewhere.
    EXPECT_EQ(send_without_delay_to(*endpoint), 1U);
    EXPECT_EQ(no_delay(server.client()), 1);
    EXPECT_EQ(no_delay(server.accepted()), 0);
    EXPECT_EQ(no_delay(other.client()), 0);
    EXPECT_EQ(no_delay(other.accepted()), 0);
  }
}

// The environment is changed on the test's one thread.
// NOLINTBEGIN(concurrency-mt-unsafe)
TEST(ProcessManagerLink, TheLaunchersVariableNamesTheServer) {
  LoopbackLink server(AF_INET);
  ASSERT_TRUE(server.usable());
  for (const char* name : {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
                           "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"})
    ::unsetenv(name);
  EXPECT_EQ(send_without_delay_to_process_manager(), 0U);  // not launched by a PMIx server
  ::setenv("PMIX_SERVER_URI2", server.uri().c_str(), 1);
  EXPECT_EQ(send_without_delay_to_process_manager(), 1U);
  EXPECT_EQ(no_delay(server.client()), 1);
  // A Unix socket named first (the newest variable) is the server: nothing over TCP changes.
  LoopbackLink later(AF_INET);
  ASSERT_TRUE(later.usable());
  ::setenv("PMIX_SERVER_URI41", "1234.0;usock:///tmp/pmix", 1);
  ::setenv("PMIX_SERVER_URI2", later.uri().c_str(), 1);
  EXPECT_EQ(send_without_delay_to_process_manager(), 0U);
  EXPECT_EQ(no_delay(later.client()), 0);
  ::unsetenv("PMIX_SERVER_URI41");
  ::unsetenv("PMIX_SERVER_URI2");
}
// NOLINTEND(concurrency-mt-unsafe)

}  // namespace
}  // namespace rocprof::merge
