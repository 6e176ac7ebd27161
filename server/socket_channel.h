// A Channel over a connected stream socket (TCP or Unix-domain), with buffered reads,
// registered in the server's OpenSockets so that stopping the server wakes it.
//
// Waits go through cluster::FiberPool: on a fiber, a read that finds nothing parks the fiber
// until the socket changes, and its worker runs other sessions meanwhile; on a plain thread a
// read blocks in recv alone, one system call per round trip. Stopping shuts the read side of
// every open socket, so a waiting read returns and the connection sees kStopping. Writes do not
// block (MSG_DONTWAIT); they wait for the socket, giving up if the client reads nothing for a
// while after shutdown began.
//
// Closing: the destructor half-closes the socket and discards what the client still sends for
// a short while before closing it. Closing with unread input would make the kernel send a reset,
// and a client still writing (say, a message over max_message_size) would then lose the FATAL
// that explains why.
//
// Thread-safety: used by its connection's thread or fiber only. Owns and closes the socket.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "server/connection.h"

namespace farmdb::server {

// The sockets of live connections. Stop() shuts their read side and that of any added later.
// A socket is removed before it is closed, so a stop never shuts a descriptor number that was
// reused for something else.
//
// Thread-safety: all members may be called from any thread.
class OpenSockets {
 public:
  void Add(int fd);
  void Remove(int fd);
  void Stop();
  bool Stopping() const;

 private:
  mutable std::mutex mu_;
  std::unordered_set<int> fds_;
  bool stopping_ = false;
};

class SocketChannel : public Channel {
 public:
  // `fd` must be blocking (reads off a fiber wait in recv); it is in `sockets` until destruction.
  SocketChannel(int fd, OpenSockets& sockets);
  ~SocketChannel() override;
  SocketChannel(const SocketChannel&) = delete;
  SocketChannel& operator=(const SocketChannel&) = delete;

  ReadStatus ReadExact(char* out, size_t n) override;
  bool WriteAll(std::string_view bytes) override;
  std::string_view Buffered() const override { return {buffer_.get() + offset_, filled_ - offset_}; }

 private:
  int fd_;
  OpenSockets& sockets_;
  // Receive buffer, allocated once: bytes [offset_, filled_) are received but not yet consumed.
  // (Resizing a std::string per recv zero-filled 64 KiB each time: half of a SELECT 1's cost.)
  std::unique_ptr<char[]> buffer_;
  size_t offset_ = 0;
  size_t filled_ = 0;
};

}  // namespace farmdb::server
