#include "server/socket_channel.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

namespace farmdb::server {
namespace {

// A TCP connection over loopback, accepted non-blocking as the server accepts: fds[0] is the
// server's end (the channel closes it), fds[1] the client's.
struct SocketPair {
  SocketPair() {
    int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof address;
    EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), len), 0);
    EXPECT_EQ(::listen(listener, 1), 0);
    EXPECT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &len), 0);
    fds[1] = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_EQ(::connect(fds[1], reinterpret_cast<sockaddr*>(&address), len), 0);
    fds[0] = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    EXPECT_GE(fds[0], 0);
    ::close(listener);
  }
  ~SocketPair() { ::close(fds[1]); }
  int fds[2] = {-1, -1};
};

TEST(SocketChannelTest, ReadsWhatTheClientSendsAcrossRecvs) {
  OpenSockets sockets;
  SocketPair pair;
  SocketChannel channel(pair.fds[0], sockets);
  auto reader = std::async(std::launch::async, [&] {
    char got[6] = {};
    ReadStatus status = channel.ReadExact(got, sizeof got);
    return std::pair{status, std::string(got, sizeof got)};
  });
  ASSERT_EQ(::write(pair.fds[1], "abc", 3), 3);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the reader blocks in between
  ASSERT_EQ(::write(pair.fds[1], "def", 3), 3);
  auto [status, got] = reader.get();
  EXPECT_EQ(status, ReadStatus::kOk);
  EXPECT_EQ(got, "abcdef");
  ::shutdown(pair.fds[1], SHUT_WR);  // so the channel's closing drain ends at once
}

TEST(SocketChannelTest, StopEndsARecvBlockedOnAnIdleClient) {
  OpenSockets sockets;
  SocketPair pair;
  SocketChannel channel(pair.fds[0], sockets);
  auto reader = std::async(std::launch::async, [&] {
    char byte;
    return channel.ReadExact(&byte, 1);
  });
  EXPECT_EQ(reader.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  sockets.Stop();
  const bool ended = reader.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  if (!ended) ::shutdown(pair.fds[1], SHUT_WR);  // end the read, so that the test ends
  EXPECT_TRUE(ended);
  EXPECT_EQ(reader.get(), ReadStatus::kStopping);
}

TEST(SocketChannelTest, AChannelOpenedAfterStopReadsStopping) {
  OpenSockets sockets;
  sockets.Stop();
  SocketPair pair;
  SocketChannel channel(pair.fds[0], sockets);
  char byte;
  EXPECT_EQ(channel.ReadExact(&byte, 1), ReadStatus::kStopping);
}

TEST(SocketChannelTest, AClientThatClosesIsClosedNotStopping) {
  OpenSockets sockets;
  SocketPair pair;
  SocketChannel channel(pair.fds[0], sockets);
  ::shutdown(pair.fds[1], SHUT_WR);
  char byte;
  EXPECT_EQ(channel.ReadExact(&byte, 1), ReadStatus::kClosed);
}

}  // namespace
}  // namespace farmdb::server
