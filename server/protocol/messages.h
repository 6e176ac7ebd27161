// Frontend (client -> server) messages of PostgreSQL protocol v3, as plain values.
//
// Decoded by codec.h from bytes and re-encodable into the same bytes (the fuzz target checks the
// round trip). Strings never contain NUL: the wire format terminates them with one. Bind,
// Describe, Execute and Close, sent for every extended-protocol statement, hold views into the
// decoded body, so they are valid only while it is: a connection is done with each before it
// reads the next message into the same buffer (an Execute uses its portal name before a COPY
// FROM STDIN it starts reads on). The others own their bytes: a simple Query's text is still in
// use while its COPY FROM STDIN reads on. Format codes
// and counts are kept as sent, so a semantically bad value (format code 7) is the connection's
// to report as a non-fatal error, as PostgreSQL does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace farmdb::server {

// Startup-phase packets: length-prefixed, no type byte; the first int32 is the protocol version
// or one of the special request codes.
inline constexpr uint32_t kSslRequestCode = 80877103;     // 1234.5679
inline constexpr uint32_t kGssEncRequestCode = 80877104;  // 1234.5680
inline constexpr uint32_t kCancelRequestCode = 80877102;  // 1234.5678

struct StartupMessage {
  uint16_t major = 3;
  uint16_t minor = 0;
  std::vector<std::pair<std::string, std::string>> parameters;  // in the order sent
};
struct SslRequest {};
struct GssEncRequest {};
struct CancelRequest {
  int32_t pid = 0;
  int32_t secret = 0;
};
using StartupPacket = std::variant<StartupMessage, SslRequest, GssEncRequest, CancelRequest>;

// Typed messages (one type byte, int32 length including itself, body).
struct Query {  // 'Q'
  std::string text;
};
struct Parse {  // 'P'
  std::string name;
  std::string query;
  std::vector<uint32_t> param_types;
};
struct Bind {  // 'B'
  std::string_view portal;
  std::string_view statement;
  std::vector<int16_t> param_formats;
  std::vector<std::optional<std::string_view>> values;  // nullopt: SQL NULL (length -1)
  std::vector<int16_t> result_formats;
};
struct Describe {  // 'D'
  char kind = 'S';  // 'S' statement or 'P' portal
  std::string_view name;
};
struct Execute {  // 'E'
  std::string_view portal;
  int32_t max_rows = 0;  // <= 0: no limit
};
struct Close {  // 'C'
  char kind = 'S';
  std::string_view name;
};
struct Sync {};       // 'S'
struct Flush {};      // 'H'
struct Terminate {};  // 'X'
struct CopyData {     // 'd'
  std::string data;
};
struct CopyDone {};  // 'c'
struct CopyFail {    // 'f'
  std::string message;
};
// 'p': password, SASLInitialResponse or SASLResponse; which one depends on the authentication
// exchange in progress, so the body stays raw here (see DecodePassword and friends).
struct PasswordMessage {
  std::string payload;
};
// 'F': the fastpath function call; farmdb does not support it, the body is kept raw.
struct FunctionCall {
  std::string body;
};

using FrontendMessage = std::variant<Query, Parse, Bind, Describe, Execute, Close, Sync, Flush,
                                     Terminate, CopyData, CopyDone, CopyFail, PasswordMessage,
                                     FunctionCall>;

// The 'p' payloads of SASL authentication (RFC 5802 messages ride inside).
struct SaslInitialResponse {
  std::string mechanism;
  std::optional<std::string> data;  // nullopt: length -1, no initial response
};

// A violation of the wire protocol; the connection answers FATAL and closes.
struct ProtocolError {
  std::string sqlstate = "08P01";
  std::string message;
};

}  // namespace farmdb::server
