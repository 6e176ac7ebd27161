// Password secrets and the cryptography behind password, md5 and SCRAM-SHA-256 authentication.
//
// Roles are configured with a plaintext password; at load the server derives what PostgreSQL
// would store for the role under password_encryption: an md5 hash ("md5" + md5(password + user))
// or a SCRAM-SHA-256 verifier (RFC 5802 §3, RFC 7677) with a random 16-byte salt and 4096
// iterations. The plaintext is not kept (as in pg_authid), so the method a rule names and the
// secret a role holds must fit together just as in PostgreSQL: md5 rules use SCRAM when the role
// holds a SCRAM verifier, and a SCRAM rule fails for an md5-only role.
//
// The password is used as bytes: SASLprep (RFC 4013) normalisation of non-ASCII passwords is not
// done, which matches PostgreSQL for ASCII passwords and for ones SASLprep leaves unchanged.
//
// Thread-safety: all functions are reentrant; RandomBytes uses OpenSSL's thread-safe DRBG.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "server/config.h"

namespace farmdb::server {

inline constexpr int kScramIterations = 4096;
inline constexpr size_t kScramSaltLength = 16;

using Sha256Digest = std::array<uint8_t, 32>;

struct ScramVerifier {
  std::string salt;  // raw bytes
  int iterations = kScramIterations;
  Sha256Digest stored_key{};
  Sha256Digest server_key{};
};

// What a role holds, as pg_authid.rolpassword would.
struct RoleSecret {
  std::optional<std::string> md5;  // "md5" + 32 hex digits
  std::optional<ScramVerifier> scram;
};

std::string RandomBytes(size_t n);
Sha256Digest HmacSha256(const Sha256Digest& key, std::string_view data);
Sha256Digest Sha256(std::string_view data);
inline std::string_view AsBytes(const Sha256Digest& d) {
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}
std::string Base64Encode(std::string_view bytes);
std::expected<std::string, std::string> Base64Decode(std::string_view text);

ScramVerifier MakeScramVerifier(std::string_view password, std::string salt,
                                int iterations = kScramIterations);
// "md5" + hex(md5(password + user)), PostgreSQL's stored md5 form.
std::string Md5PasswordHash(std::string_view user, std::string_view password);
// The client's answer to an md5 challenge: "md5" + hex(md5(hex part of the hash + salt)).
std::string Md5Response(std::string_view md5_hash, std::string_view salt);
// Every configured role's secret, derived as password_encryption says (roles without a
// password get an empty RoleSecret: password methods then always fail for them).
std::unordered_map<std::string, RoleSecret> DeriveRoleSecrets(const Config& config);
// Whether a cleartext password (method `password`) matches what the role holds.
bool CheckPlaintext(const RoleSecret& secret, std::string_view user, std::string_view password);
// Constant-time comparison, for anything secret.
bool SecretEquals(std::string_view a, std::string_view b);

}  // namespace farmdb::server
