// A listening Unix-domain socket DIR/.s.PGSQL.PORT, made as PostgreSQL makes one, so that libpq
// clients given `host=DIR` (or, for /var/run/postgresql, nothing at all) find it.
//
// Beside the socket lies a lock file DIR/.s.PGSQL.PORT.lock whose first line is the owner's
// pid. A server that finds the lock file takes over the name only when that pid is no longer
// alive: the socket is then a leftover of a server that died without removing it. PostgreSQL
// reads the same file the same way, so neither server takes a name the other holds.
//
// Thread-safety: a value owned by one thread. The destructor closes the socket and removes both
// files.
#pragma once

#include <expected>
#include <string>

namespace farmdb::server {

class UnixSocket {
 public:
  // Listens on DIR/.s.PGSQL.PORT (mode 0777: who may connect is the access rules' business).
  static std::expected<UnixSocket, std::string> Listen(const std::string& dir, int port);

  UnixSocket(UnixSocket&& other) noexcept;
  UnixSocket& operator=(UnixSocket&&) = delete;
  UnixSocket(const UnixSocket&) = delete;
  UnixSocket& operator=(const UnixSocket&) = delete;
  ~UnixSocket();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  UnixSocket(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  int fd_ = -1;
  std::string path_;  // the socket's; the lock file's is path_ + ".lock"
};

}  // namespace farmdb::server
