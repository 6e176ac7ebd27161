// The server side of one SCRAM-SHA-256 exchange (RFC 5802 §5, RFC 7677), as PostgreSQL runs it
// inside SASL authentication messages: no channel binding (SCRAM-SHA-256-PLUS is not offered),
// the user name in client-first is ignored (the startup packet's user counts), no extensions.
//
// Sequence: ClientFirst(client-first-message) -> server-first-message;
//           ClientFinal(client-final-message) -> server-final-message ("v=...").
// A mock exchange (unknown role, no SCRAM secret) runs the same steps and always fails at the
// proof, so a client cannot tell which roles exist (PostgreSQL's scram_mock_salt idea).
//
// Thread-safety: one exchange belongs to one connection thread.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "server/auth/secrets.h"

namespace farmdb::server {

struct ScramFailure {
  enum class Kind { kMalformed, kWrongProof };
  Kind kind;
  std::string detail;
};

class ScramExchange {
 public:
  // `server_nonce` is printable (no ','); tests pass RFC 7677's, the server a random one.
  ScramExchange(ScramVerifier verifier, std::string server_nonce, bool mock);

  std::expected<std::string, ScramFailure> ClientFirst(std::string_view message);
  std::expected<std::string, ScramFailure> ClientFinal(std::string_view message);

  static std::string RandomNonce();

 private:
  ScramVerifier verifier_;
  std::string server_nonce_;
  bool mock_;
  std::string gs2_header_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;  // client nonce + server nonce
};

}  // namespace farmdb::server
