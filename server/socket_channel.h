// A Channel over a connected TCP socket, with buffered reads and a stop descriptor.
//
// Reads wait on the socket and on `stop_fd` (readable once the server stops), so a connection
// blocked on its client notices shutdown. Writes wait only on the socket, giving up if the
// client reads nothing for a while after shutdown began.
//
// Closing: the destructor half-closes the socket and discards what the client still sends for
// a short while before closing it. Closing with unread input would make the kernel send a reset,
// and a client still writing (say, a message over max_message_size) would then lose the FATAL
// that explains why.
//
// Thread-safety: used by its connection's thread only. Owns and closes the socket.
#pragma once

#include <memory>
#include <string>

#include "server/connection.h"

namespace farmdb::server {

class SocketChannel : public Channel {
 public:
  SocketChannel(int fd, int stop_fd);
  ~SocketChannel() override;
  SocketChannel(const SocketChannel&) = delete;
  SocketChannel& operator=(const SocketChannel&) = delete;

  ReadStatus ReadExact(char* out, size_t n) override;
  bool WriteAll(std::string_view bytes) override;
  std::string_view Buffered() const override { return {buffer_.get() + offset_, filled_ - offset_}; }

 private:
  bool Stopping() const;

  int fd_;
  int stop_fd_;
  // Receive buffer, allocated once: bytes [offset_, filled_) are received but not yet consumed.
  // (Resizing a std::string per recv zero-filled 64 KiB each time: half of a SELECT 1's cost.)
  std::unique_ptr<char[]> buffer_;
  size_t offset_ = 0;
  size_t filled_ = 0;
};

}  // namespace farmdb::server
