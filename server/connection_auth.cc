// Authentication of a Connection: pg_hba-style rule, then the method's message exchange.
#include "server/auth/scram.h"
#include "server/connection.h"
#include "server/protocol/backend.h"

namespace farmdb::server {

bool Connection::Authenticate(const std::string& user, const std::string& database) {
  const HbaRule* rule = MatchHba(*env_.config, peer_, user, database);
  std::string who = "host \"" + peer_text_ + "\", user \"" + user + "\", database \"" +
                    database + "\"";
  if (!rule) {
    SendFatal("28000", "no pg_hba.conf entry for " + who);
    return false;
  }
  auto it = env_.secrets->find(user);
  const RoleSecret* secret = it == env_.secrets->end() ? nullptr : &it->second;
  bool ok = false;
  switch (rule->method) {
    case AuthMethod::kTrust:
      return true;
    case AuthMethod::kReject:
      SendFatal("28000", "pg_hba.conf rejects connection for " + who);
      return false;
    case AuthMethod::kPassword:
      ok = AuthenticatePassword(user, secret);
      break;
    case AuthMethod::kMd5:
      // As PostgreSQL: an md5 rule runs SCRAM for a role that holds a SCRAM verifier.
      ok = secret && secret->scram ? AuthenticateScram(user, secret)
                                   : AuthenticateMd5(user, secret);
      break;
    case AuthMethod::kScramSha256:
      ok = AuthenticateScram(user, secret);
      break;
  }
  if (ok) {
    env_.log->debug("conn={} event=authenticated user={} method={}", id_, user,
                    AuthMethodName(rule->method));
  }
  return ok;
}

// Reads one 'p' message; on failure the connection has been answered (or is gone).
std::optional<std::string> Connection::ReadAuthPayload() {
  Flush();
  auto message = ReadMessage(Phase::kAuthenticating);
  if (!message) {
    // A client that hangs up here is usually asking its user for the password (psql does).
    EndWith(message.error());
    return std::nullopt;
  }
  return std::move(std::get<PasswordMessage>(*message).payload);
}

bool Connection::AuthFailed(const std::string& user) {
  env_.log->info("conn={} event=auth_failed user={}", id_, user);
  SendFatal("28P01", "password authentication failed for user \"" + user + "\"");
  return false;
}

bool Connection::AuthenticatePassword(const std::string& user, const RoleSecret* secret) {
  PutAuthentication(out_, AuthCode::kCleartextPassword);
  auto payload = ReadAuthPayload();
  if (!payload) return false;
  auto password = DecodePassword(*payload);
  if (!password) {
    SendFatal(password.error().sqlstate, password.error().message);
    return false;
  }
  if (!secret || password->empty() || !CheckPlaintext(*secret, user, *password)) {
    return AuthFailed(user);
  }
  return true;
}

bool Connection::AuthenticateMd5(const std::string& user, const RoleSecret* secret) {
  std::string salt = RandomBytes(4);
  PutAuthentication(out_, AuthCode::kMd5Password, salt);
  auto payload = ReadAuthPayload();
  if (!payload) return false;
  auto response = DecodePassword(*payload);
  if (!response) {
    SendFatal(response.error().sqlstate, response.error().message);
    return false;
  }
  if (!secret || !secret->md5 || !SecretEquals(*response, Md5Response(*secret->md5, salt))) {
    return AuthFailed(user);
  }
  return true;
}

bool Connection::AuthenticateScram(const std::string& user, const RoleSecret* secret) {
  // A role without a SCRAM verifier gets a mock exchange that fails only at the proof.
  bool mock = !secret || !secret->scram;
  ScramExchange exchange(mock ? MakeScramVerifier("", RandomBytes(kScramSaltLength))
                              : *secret->scram,
                         ScramExchange::RandomNonce(), mock);
  std::string mechanisms("SCRAM-SHA-256\0\0", 15);
  PutAuthentication(out_, AuthCode::kSasl, mechanisms);
  auto payload = ReadAuthPayload();
  if (!payload) return false;
  auto initial = DecodeSaslInitialResponse(*payload);
  if (!initial) {
    SendFatal(initial.error().sqlstate, initial.error().message);
    return false;
  }
  if (initial->mechanism != "SCRAM-SHA-256") {
    SendFatal("08P01", "client selected an invalid SASL authentication mechanism");
    return false;
  }
  auto malformed = [&](const ScramFailure& failure) {
    SendFatal("08P01", "malformed SCRAM message");
    env_.log->info("conn={} event=scram_malformed detail=\"{}\"", id_, failure.detail);
    return false;
  };
  auto server_first = exchange.ClientFirst(initial->data.value_or(""));
  if (!server_first) return malformed(server_first.error());
  PutAuthentication(out_, AuthCode::kSaslContinue, *server_first);
  payload = ReadAuthPayload();
  if (!payload) return false;
  auto server_final = exchange.ClientFinal(*payload);
  if (!server_final) {
    if (server_final.error().kind == ScramFailure::Kind::kWrongProof) return AuthFailed(user);
    return malformed(server_final.error());
  }
  PutAuthentication(out_, AuthCode::kSaslFinal, *server_final);
  return true;
}

}  // namespace farmdb::server
