// A raw protocol v3 client for tests: sends arbitrary bytes, reads backend messages one by one
// with a timeout, and notices when the server closes the connection.
//
// Thread-safety: one PgClient per thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/protocol/messages.h"

namespace farmdb::server::testing {

struct BackendMessage {
  char type = 0;
  std::string body;
};

class PgClient {
 public:
  explicit PgClient(int port);
  ~PgClient();
  PgClient(const PgClient&) = delete;
  PgClient& operator=(const PgClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  void SendRaw(std::string_view bytes);
  void ShutdownWrite();  // half-close: the server sees EOF, replies still arrive
  void Send(const FrontendMessage& message);
  void SendStartup(const StartupPacket& packet);
  // The next message, or nullopt when the server closed the connection (or 10 s passed).
  std::optional<BackendMessage> Read();
  // Reads the single 'N'/'S' byte that answers SSLRequest / GSSENCRequest.
  std::optional<char> ReadByte();
  // Reads until a message of `type` (returned) or the end; `seen` gets everything read.
  std::optional<BackendMessage> ReadUntil(char type, std::vector<BackendMessage>* seen = nullptr);
  // True when the server closed the connection with nothing more to read.
  bool Closed();
  // Trust login: StartupMessage, then everything up to the first ReadyForQuery.
  bool Login(const std::string& user, const std::string& database,
             std::vector<std::pair<std::string, std::string>> extra = {});

 private:
  bool ReadExact(char* out, size_t n);
  int fd_ = -1;
};

// ErrorResponse / NoticeResponse fields by code ('S', 'C', 'M', ...).
std::map<char, std::string> ParseFields(const std::string& body);

}  // namespace farmdb::server::testing
