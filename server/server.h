// The protocol server: listening sockets, the accept loop, the connections' fibers, and the
// state every connection shares (config, role secrets, cancel registry, engine).
//
// Threads: one accept thread, and the workers of a cluster::FiberPool (one per core unless
// farmdb.connection_workers says otherwise), which run every connection as a fiber.
//
// Lifecycle: Start binds every listen address and a Unix-domain socket in each configured
// directory (one that cannot be made is logged and skipped), and starts accepting; Stop (idempotent, also run
// by the destructor) stops accepting, wakes every connection (each sends FATAL 57P01 and
// closes), cancels running statements, and waits for every connection to end.
//
// Thread-safety: Start/Stop/~Server from the owning thread; Port and ListenAddress are
// immutable after Start.
#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cluster/fibers.h"
#include "server/auth/secrets.h"
#include "server/cancel_registry.h"
#include "server/config.h"
#include "server/socket_channel.h"
#include "server/unix_socket.h"
#include "sql/session.h"

namespace farmdb::server {

class Server {
 public:
  // `engine` and `log` must outlive the server.
  static std::expected<std::unique_ptr<Server>, std::string> Start(Config config,
                                                                   sql::Engine& engine,
                                                                   spdlog::logger& log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void Stop();
  // The port and "address:port" of the first listener (the ready line's).
  int Port() const { return port_; }
  const std::string& ListenAddress() const { return listen_address_; }

 private:
  Server(Config config, sql::Engine& engine, spdlog::logger& log);
  std::expected<void, std::string> Listen();
  void AcceptLoop();
  void Accept(int listener);

  const Config config_;
  const std::unordered_map<std::string, RoleSecret> secrets_;
  sql::Engine& engine_;
  spdlog::logger& log_;
  CancelRegistry registry_;

  std::vector<int> listeners_;  // TCP
  std::vector<UnixSocket> unix_sockets_;
  int stop_pipe_[2] = {-1, -1};  // readable once Stop begins; the accept loop watches it
  OpenSockets open_sockets_;
  int port_ = 0;
  std::string listen_address_;
  int32_t next_id_ = 1;  // accept thread only
  std::optional<cluster::FiberPool> connections_;
  std::thread accept_thread_;
  bool stopped_ = false;
};

}  // namespace farmdb::server
