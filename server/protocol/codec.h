// The pure PostgreSQL v3 codec: frontend messages from bytes, backend messages into a buffer.
//
// No I/O and no state: every function maps bytes to a value or a ProtocolError, so the whole
// surface is fuzzable (server/fuzz/decoder_fuzz.cc). Framing follows postgres.c: the caller reads
// the 5-byte header, asks CheckMessageHeader whether the type is allowed in its phase and the
// length is within the per-type limit, and only then reads the body. Decoders consume the body
// exactly; trailing or missing bytes are errors ("invalid message format").
//
// Thread-safety: all functions are reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "server/protocol/expected.h"
#include "server/protocol/messages.h"

namespace farmdb::server {

// postgres.c's limits: startup packets (MAX_STARTUP_PACKET_LENGTH), messages that never carry
// user data (PQ_SMALL_MESSAGE_LIMIT) and authentication tokens (PG_MAX_AUTH_TOKEN_LENGTH).
inline constexpr uint32_t kMaxStartupPacket = 10000;
inline constexpr uint32_t kSmallMessageLimit = 10000;
inline constexpr uint32_t kMaxAuthMessage = 65535;

// Which typed messages a connection accepts: only 'p' while authenticating, everything else
// (but not 'p') once ready.
enum class Phase { kAuthenticating, kReady };

// Length word of a startup packet (includes itself) -> body length.
Expected<uint32_t, ProtocolError> CheckStartupLength(int32_t length);
// Type byte and length word of a typed message -> body length. `max_message_size` is the
// configured cap for messages that may carry user data.
Expected<uint32_t, ProtocolError> CheckMessageHeader(char type, int32_t length, Phase phase,
                                                     uint32_t max_message_size);

Expected<StartupPacket, ProtocolError> DecodeStartupPacket(std::string_view body);
Expected<FrontendMessage, ProtocolError> DecodeMessage(char type, std::string_view body);
// A Bind body into `bind`, as DecodeMessage would decode it, but reusing the capacity of its
// vectors: a connection decodes every statement's Bind into the same one. Returns the violation,
// if any (not an Expected<void>: the fuzz build's stand-in has none).
std::optional<ProtocolError> DecodeBind(std::string_view body, Bind& bind);

// Interpretations of a 'p' payload.
Expected<std::string, ProtocolError> DecodePassword(std::string_view payload);
Expected<SaslInitialResponse, ProtocolError> DecodeSaslInitialResponse(std::string_view payload);

// Frontend encoders (used by tests, the fuzz round trip and any future client). Append the
// complete message, length word included.
void EncodeStartupPacket(const StartupPacket& packet, std::string& out);
void EncodeMessage(const FrontendMessage& message, std::string& out);
char MessageType(const FrontendMessage& message);

// Big-endian integers, as on the wire. Inline, one append per integer: they run for every field
// of every row and row description sent. Store* write into bytes already sized and return the
// position after them.
inline char* StoreInt16(char* p, int16_t v) {
  auto u = static_cast<uint16_t>(v);
  p[0] = static_cast<char>(u >> 8), p[1] = static_cast<char>(u);
  return p + 2;
}
inline char* StoreInt32(char* p, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  p[0] = static_cast<char>(u >> 24), p[1] = static_cast<char>(u >> 16);
  p[2] = static_cast<char>(u >> 8), p[3] = static_cast<char>(u);
  return p + 4;
}
inline void PutInt16(std::string& out, int16_t v) {
  char bytes[2];
  StoreInt16(bytes, v);
  out.append(bytes, sizeof bytes);
}
// REQUIRES: at + 4 <= bytes.size().
inline int32_t GetInt32(std::string_view bytes, size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
                              (uint32_t{p[2]} << 8) | p[3]);
}
inline void PutInt32(std::string& out, int32_t v) {
  char bytes[4];
  StoreInt32(bytes, v);
  out.append(bytes, sizeof bytes);
}
inline void PutString(std::string& out, std::string_view s) {  // with its NUL terminator
  out.append(s);
  out.push_back('\0');
}
// A typed message: BeginMessage appends the type and a length placeholder and returns where the
// length goes; EndMessage fills it in once the body is appended.
size_t BeginMessage(std::string& out, char type);
void EndMessage(std::string& out, size_t length_at);

}  // namespace farmdb::server
