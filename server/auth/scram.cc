#include "server/auth/scram.h"

namespace farmdb::server {
namespace {

std::unexpected<ScramFailure> Malformed(std::string detail) {
  return std::unexpected(ScramFailure{ScramFailure::Kind::kMalformed, std::move(detail)});
}

// Splits "a=1,b=2" at the next ',' and checks the attribute letter.
std::expected<std::string_view, ScramFailure> Attribute(std::string_view& rest, char name) {
  if (rest.size() < 2 || rest[0] != name || rest[1] != '=') {
    return Malformed(std::string("expected attribute \"") + name + "\"");
  }
  size_t comma = rest.find(',');
  std::string_view value = rest.substr(2, comma == std::string_view::npos ? rest.npos : comma - 2);
  rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  return value;
}

bool IsPrintable(std::string_view s) {
  for (char c : s) {
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  }
  return !s.empty();
}

}  // namespace

ScramExchange::ScramExchange(ScramVerifier verifier, std::string server_nonce, bool mock)
    : verifier_(std::move(verifier)), server_nonce_(std::move(server_nonce)), mock_(mock) {}

std::string ScramExchange::RandomNonce() { return Base64Encode(RandomBytes(18)); }

std::expected<std::string, ScramFailure> ScramExchange::ClientFirst(std::string_view message) {
  // gs2-header: ("n" | "y" | "p=" cb-name) "," [authzid] ","
  if (message.empty()) return Malformed("empty client-first-message");
  if (message[0] == 'p') {
    return Malformed("client requires channel binding, which the server did not offer");
  }
  if ((message[0] != 'n' && message[0] != 'y') || message.size() < 3 || message[1] != ',') {
    return Malformed("unexpected channel-binding flag");
  }
  if (message[2] != ',') return Malformed("client uses authorization identity, not supported");
  gs2_header_ = std::string(message.substr(0, 3));
  std::string_view bare = message.substr(3);
  client_first_bare_ = std::string(bare);
  if (!bare.empty() && bare[0] == 'm') return Malformed("unsupported SCRAM extension");
  auto user = Attribute(bare, 'n');  // ignored: the startup packet names the user
  if (!user) return std::unexpected(user.error());
  auto client_nonce = Attribute(bare, 'r');
  if (!client_nonce) return std::unexpected(client_nonce.error());
  if (!IsPrintable(*client_nonce)) return Malformed("invalid client nonce");
  nonce_ = std::string(*client_nonce) + server_nonce_;
  server_first_ = "r=" + nonce_ + ",s=" + Base64Encode(verifier_.salt) +
                  ",i=" + std::to_string(verifier_.iterations);
  return server_first_;
}

std::expected<std::string, ScramFailure> ScramExchange::ClientFinal(std::string_view message) {
  if (server_first_.empty()) return Malformed("client-final-message before client-first");
  std::string_view rest = message;
  auto binding = Attribute(rest, 'c');
  if (!binding) return std::unexpected(binding.error());
  if (*binding != Base64Encode(gs2_header_)) {
    return Malformed("SCRAM channel binding check failed");
  }
  auto nonce = Attribute(rest, 'r');
  if (!nonce) return std::unexpected(nonce.error());
  if (*nonce != nonce_) return Malformed("SCRAM nonce mismatch");
  // Extensions before the proof are allowed by RFC 5802; skip them.
  while (!rest.empty() && !rest.starts_with("p=")) {
    size_t comma = rest.find(',');
    if (comma == std::string_view::npos) return Malformed("missing proof");
    rest.remove_prefix(comma + 1);
  }
  std::string_view without_proof = message.substr(0, message.size() - rest.size());
  if (!without_proof.empty() && without_proof.back() == ',') without_proof.remove_suffix(1);
  auto proof_text = Attribute(rest, 'p');
  if (!proof_text) return std::unexpected(proof_text.error());
  if (!rest.empty()) return Malformed("garbage at end of client-final-message");
  auto proof = Base64Decode(*proof_text);
  if (!proof || proof->size() != verifier_.stored_key.size()) {
    return Malformed("malformed SCRAM proof");
  }
  std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  // ClientKey = proof XOR HMAC(StoredKey, AuthMessage); valid iff H(ClientKey) == StoredKey.
  Sha256Digest signature = HmacSha256(verifier_.stored_key, auth_message);
  Sha256Digest client_key{};
  for (size_t i = 0; i < client_key.size(); ++i) {
    client_key[i] = static_cast<uint8_t>(static_cast<uint8_t>((*proof)[i]) ^ signature[i]);
  }
  Sha256Digest computed = Sha256(AsBytes(client_key));
  if (mock_ || !SecretEquals(AsBytes(computed), AsBytes(verifier_.stored_key))) {
    return std::unexpected(ScramFailure{ScramFailure::Kind::kWrongProof, "wrong proof"});
  }
  Sha256Digest server_signature = HmacSha256(verifier_.server_key, auth_message);
  return "v=" + Base64Encode(AsBytes(server_signature));
}

}  // namespace farmdb::server
