#include "server/unix_socket.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace farmdb::server {
namespace {

std::string WithErrno(const std::string& what) { return what + ": " + std::strerror(errno); }

// Whether the lock file at `path` belongs to a live process other than this one. An empty or
// unreadable pid counts as live: its owner may be writing it this instant.
bool HeldByAnother(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno != ENOENT;
  char text[32] = {};
  ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  long pid = n > 0 ? std::strtol(text, nullptr, 10) : 0;
  if (pid <= 0) return true;
  if (pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// Creates the lock file `path` holding this process's pid, replacing one whose owner died.
std::expected<void, std::string> Lock(const std::string& path) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      std::string pid = std::to_string(::getpid()) + "\n";
      bool written = ::write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size());
      std::string error = written ? "" : WithErrno("could not write lock file \"" + path + "\"");
      ::close(fd);
      if (written) return {};
      ::unlink(path.c_str());
      return std::unexpected(error);
    }
    if (errno != EEXIST) return std::unexpected(WithErrno("could not create lock file \"" + path + "\""));
    if (HeldByAnother(path)) {
      return std::unexpected("lock file \"" + path + "\" already exists: another server uses this socket");
    }
    ::unlink(path.c_str());
  }
  return std::unexpected("could not create lock file \"" + path + "\": it keeps reappearing");
}

}  // namespace

std::expected<UnixSocket, std::string> UnixSocket::Listen(const std::string& dir, int port) {
  std::string path = dir + "/.s.PGSQL." + std::to_string(port);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    return std::unexpected("Unix-domain socket path \"" + path + "\" is too long (maximum " +
                           std::to_string(sizeof addr.sun_path - 1) + " bytes)");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const std::string lock = path + ".lock";
  if (auto locked = Lock(lock); !locked) return std::unexpected(locked.error());
  // Holding the lock, a socket file here is a dead server's leftover.
  ::unlink(path.c_str());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::chmod(path.c_str(), 0777) != 0 || ::listen(fd, 128) != 0) {
    std::string error = WithErrno("could not listen on \"" + path + "\"");
    if (fd >= 0) ::close(fd);
    ::unlink(path.c_str());
    ::unlink(lock.c_str());
    return std::unexpected(error);
  }
  return UnixSocket(fd, std::move(path));
}

UnixSocket::UnixSocket(UnixSocket&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

UnixSocket::~UnixSocket() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(path_.c_str());
  ::unlink((path_ + ".lock").c_str());
}

}  // namespace farmdb::server
