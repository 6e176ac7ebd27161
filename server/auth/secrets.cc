#include "server/auth/secrets.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>

namespace farmdb::server {
namespace {

std::string Md5Hex(std::string_view data) {
  unsigned char digest[16];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : digest) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  return hex;
}

}  // namespace

Sha256Digest HmacSha256(const Sha256Digest& key, std::string_view data) {
  Sha256Digest out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &len);
  return out;
}

Sha256Digest Sha256(std::string_view data) {
  Sha256Digest out{};
  EVP_Digest(data.data(), data.size(), out.data(), nullptr, EVP_sha256(), nullptr);
  return out;
}

std::string RandomBytes(size_t n) {
  std::string bytes(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(n)) != 1) {
    std::abort();  // no entropy: nothing secure can be done
  }
  return bytes;
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()),
                            static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(len));
  return out;
}

std::expected<std::string, std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::unexpected("invalid base64 length");
  for (char c : text) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '/' || c == '=';
    if (!ok) return std::unexpected("invalid base64 character");
  }
  std::string out(3 * text.size() / 4 + 1, '\0');
  int len = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(text.data()),
                            static_cast<int>(text.size()));
  if (len < 0) return std::unexpected("invalid base64");
  // EVP_DecodeBlock counts padding as zero bytes; drop them.
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(len) - padding);
  return out;
}

ScramVerifier MakeScramVerifier(std::string_view password, std::string salt, int iterations) {
  ScramVerifier v;
  Sha256Digest salted{};
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()),
                    static_cast<int>(salt.size()), iterations, EVP_sha256(),
                    static_cast<int>(salted.size()), salted.data());
  v.salt = std::move(salt);
  v.iterations = iterations;
  v.stored_key = Sha256(AsBytes(HmacSha256(salted, "Client Key")));
  v.server_key = HmacSha256(salted, "Server Key");
  return v;
}

std::string Md5PasswordHash(std::string_view user, std::string_view password) {
  std::string input(password);
  input.append(user);
  return "md5" + Md5Hex(input);
}

std::string Md5Response(std::string_view md5_hash, std::string_view salt) {
  std::string input(md5_hash.substr(3));
  input.append(salt);
  return "md5" + Md5Hex(input);
}

std::unordered_map<std::string, RoleSecret> DeriveRoleSecrets(const Config& config) {
  std::unordered_map<std::string, RoleSecret> secrets;
  for (const Role& role : config.roles) {
    RoleSecret& secret = secrets[role.name];
    if (!role.password) continue;
    if (config.password_encryption == PasswordEncryption::kMd5) {
      secret.md5 = Md5PasswordHash(role.name, *role.password);
    } else {
      secret.scram = MakeScramVerifier(*role.password, RandomBytes(kScramSaltLength));
    }
  }
  return secrets;
}

bool CheckPlaintext(const RoleSecret& secret, std::string_view user, std::string_view password) {
  if (secret.md5) return SecretEquals(*secret.md5, Md5PasswordHash(user, password));
  if (secret.scram) {
    ScramVerifier v = MakeScramVerifier(password, secret.scram->salt, secret.scram->iterations);
    return SecretEquals(AsBytes(v.stored_key), AsBytes(secret.scram->stored_key));
  }
  return false;
}

bool SecretEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace farmdb::server
