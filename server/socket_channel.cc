#include "server/socket_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "cluster/fibers.h"

namespace farmdb::server {
namespace {

constexpr size_t kReadBuffer = 64 << 10;
constexpr int kStopWriteGraceMs = 1000;
constexpr int kLingerMs = 500;
constexpr size_t kLingerBytes = 64 << 20;

}  // namespace

void OpenSockets::Add(int fd) {
  std::lock_guard lock(mu_);
  fds_.insert(fd);
  if (stopping_) ::shutdown(fd, SHUT_RD);
}

void OpenSockets::Remove(int fd) {
  std::lock_guard lock(mu_);
  fds_.erase(fd);
}

void OpenSockets::Stop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  for (int fd : fds_) ::shutdown(fd, SHUT_RD);
}

bool OpenSockets::Stopping() const {
  std::lock_guard lock(mu_);
  return stopping_;
}

SocketChannel::SocketChannel(int fd, OpenSockets& sockets) : fd_(fd), sockets_(sockets) {
  sockets_.Add(fd_);
}

SocketChannel::~SocketChannel() {
  sockets_.Remove(fd_);
  ::shutdown(fd_, SHUT_WR);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kLingerMs);
  size_t drained = 0;
  char sink[16 << 10];
  while (drained < kLingerBytes) {
    ssize_t got = ::recv(fd_, sink, sizeof sink, MSG_DONTWAIT);
    if (got > 0) {
      drained += static_cast<size_t>(got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) break;  // EOF: the client has closed too
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !cluster::FiberPool::WaitFd(fd_, POLLIN, left)) break;
  }
  cluster::FiberPool::Forget(fd_);
  ::close(fd_);
}

ReadStatus SocketChannel::ReadExact(char* out, size_t n) {
  while (n > 0) {
    if (offset_ < filled_) {
      size_t take = std::min(n, filled_ - offset_);
      std::memcpy(out, buffer_.get() + offset_, take);
      offset_ += take;
      out += take;
      n -= take;
      continue;
    }
    if (!buffer_) buffer_ = std::make_unique_for_overwrite<char[]>(kReadBuffer);
    offset_ = 0;
    filled_ = 0;
    // On a fiber the worker runs other sessions while this one's client is quiet; on a thread
    // recv alone blocks, one system call per round trip.
    const bool fiber = cluster::FiberPool::OnFiber();
    ssize_t got = ::recv(fd_, buffer_.get(), kReadBuffer, fiber ? MSG_DONTWAIT : 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && fiber && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      cluster::FiberPool::WaitFd(fd_, POLLIN, std::chrono::milliseconds(-1));
      continue;
    }
    // A stop shuts the read side, which ends a blocked recv as if the client had closed.
    if (got <= 0) return sockets_.Stopping() ? ReadStatus::kStopping : ReadStatus::kClosed;
    filled_ = static_cast<size_t>(got);
  }
  return ReadStatus::kOk;
}

bool SocketChannel::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t sent = cluster::FiberPool::Send(fd_, bytes);
    if (sent > 0) {
      bytes.remove_prefix(static_cast<size_t>(sent));
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      bool ready = cluster::FiberPool::WaitFd(fd_, POLLOUT, std::chrono::milliseconds(kStopWriteGraceMs));
      if (!ready && sockets_.Stopping()) return false;  // the client stopped reading; do not hang
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace farmdb::server
