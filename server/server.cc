#include "server/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "server/connection.h"
#include "server/socket_channel.h"

namespace farmdb::server {
namespace {

std::string AddressText(const sockaddr_storage& addr, int* port) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    if (port) *port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    if (port) *port = ntohs(in6->sin6_port);
  }
  return host;
}

}  // namespace

Server::Server(Config config, sql::Engine& engine, spdlog::logger& log)
    : config_(std::move(config)), secrets_(DeriveRoleSecrets(config_)), engine_(engine), log_(log) {}

std::expected<std::unique_ptr<Server>, std::string> Server::Start(Config config,
                                                                  sql::Engine& engine,
                                                                  spdlog::logger& log) {
  std::unique_ptr<Server> server(new Server(std::move(config), engine, log));
  if (::pipe2(server->stop_pipe_, O_CLOEXEC) != 0) {
    return std::unexpected(std::string("pipe: ") + std::strerror(errno));
  }
  if (auto status = server->Listen(); !status) return std::unexpected(status.error());
  const Config& c = server->config_;
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  server->connections_.emplace(c.connection_workers.value_or(c.machines == 1 && c.zookeeper.empty() ? cores : 0), c.pin_workers);
  server->accept_thread_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

std::expected<void, std::string> Server::Listen() {
  int port = config_.port;
  for (const std::string& address : config_.listen_addresses) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    std::string port_text = std::to_string(port);
    const char* host = address == "*" ? nullptr : address.c_str();
    if (int rc = ::getaddrinfo(host, port_text.c_str(), &hints, &found); rc != 0) {
      return std::unexpected("could not resolve \"" + address + "\": " + gai_strerror(rc));
    }
    for (addrinfo* ai = found; ai; ai = ai->ai_next) {
      int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (ai->ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
      if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
        std::string error = std::strerror(errno);
        ::close(fd);
        ::freeaddrinfo(found);
        return std::unexpected("could not listen on \"" + address + "\" port " + port_text +
                               ": " + error);
      }
      sockaddr_storage bound{};
      socklen_t len = sizeof bound;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
      int bound_port = 0;
      std::string text = AddressText(bound, &bound_port);
      if (listeners_.empty()) {
        // Port 0 picks a free port once; every other address reuses it.
        port = port_ = bound_port;
        port_text = std::to_string(port);
        listen_address_ = (bound.ss_family == AF_INET6 ? "[" + text + "]" : text) + ":" +
                          std::to_string(bound_port);
      }
      listeners_.push_back(fd);
      log_.info("event=listening address={} port={}", text, bound_port);
    }
    ::freeaddrinfo(found);
  }
  if (listeners_.empty()) return std::unexpected("no listen address could be used");
  for (const std::string& dir : config_.unix_socket_directories) {
    auto socket = UnixSocket::Listen(dir, port_);
    if (!socket) {
      log_.warn("event=unix_socket_skipped directory=\"{}\" error=\"{}\"", dir, socket.error());
      continue;
    }
    log_.info("event=listening socket={}", socket->path());
    unix_sockets_.push_back(std::move(*socket));
  }
  return {};
}

void Server::AcceptLoop() {
  std::vector<pollfd> fds;
  for (int fd : listeners_) fds.push_back({fd, POLLIN, 0});
  for (const UnixSocket& socket : unix_sockets_) fds.push_back({socket.fd(), POLLIN, 0});
  fds.push_back({stop_pipe_[0], POLLIN, 0});
  while (true) {
    int ready = ::poll(fds.data(), fds.size(), -1);
    if (ready < 0 && errno != EINTR) {
      log_.error("event=poll_failed error=\"{}\"", std::strerror(errno));
      return;
    }
    if (fds.back().revents & POLLIN) return;
    for (size_t i = 0; i + 1 < fds.size(); ++i) {
      if (fds[i].revents & POLLIN) Accept(fds[i].fd);
    }
  }
}

void Server::Accept(int listener) {
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  // Blocking, as SocketChannel wants it (off a fiber its reads wait in recv; on one they pass
  // MSG_DONTWAIT).
  int fd = ::accept4(listener, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
      log_.warn("event=accept_failed error=\"{}\"", std::strerror(errno));
    }
    return;
  }
  int32_t id = next_id_++;
  std::string peer_text = "[local]";
  std::optional<IpAddress> peer_ip;  // none for a Unix-domain socket
  if (peer.ss_family != AF_UNIX) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    peer_text = AddressText(peer, nullptr);
    peer_ip = IpAddress::Parse(peer_text).value_or(IpAddress{});
  }
  log_.info("conn={} event=accepted peer={}", id, peer_text);
  ConnectionEnv env{&config_, &secrets_, &engine_, &registry_, &log_};
  connections_->Spawn([this, env, fd, id, peer_ip, peer_text] {
    {
      SocketChannel channel(fd, open_sockets_);
      Connection connection(env, channel, id, peer_ip, peer_text);
      connection.Run();
    }
    log_.info("conn={} event=closed", id);
  });
}

void Server::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (stop_pipe_[1] >= 0) {
    char byte = 1;
    while (::write(stop_pipe_[1], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  for (int fd : listeners_) ::close(fd);
  listeners_.clear();
  unix_sockets_.clear();
  // Statements running now stop at their next safe point; idle connections' reads return.
  open_sockets_.Stop();
  registry_.CancelAll();
  connections_.reset();
  for (int& fd : stop_pipe_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  log_.info("event=stopped");
}

Server::~Server() { Stop(); }

}  // namespace farmdb::server
