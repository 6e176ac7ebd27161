#include "server/testing/pg_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/protocol/codec.h"

namespace farmdb::server::testing {

PgClient::PgClient(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

PgClient::~PgClient() {
  if (fd_ >= 0) ::close(fd_);
}

void PgClient::SendRaw(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may have closed already; reads will tell
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void PgClient::ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

void PgClient::Send(const FrontendMessage& message) {
  std::string out;
  EncodeMessage(message, out);
  SendRaw(out);
}

void PgClient::SendStartup(const StartupPacket& packet) {
  std::string out;
  EncodeStartupPacket(packet, out);
  SendRaw(out);
}

bool PgClient::ReadExact(char* out, size_t n) {
  while (n > 0) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 10000) != 1) return false;
    ssize_t got = ::recv(fd_, out, n, 0);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

std::optional<BackendMessage> PgClient::Read() {
  char header[5];
  if (!ReadExact(header, 5)) return std::nullopt;
  int32_t len = GetInt32(std::string_view(header, 5), 1);
  if (len < 4) return std::nullopt;
  BackendMessage m{header[0], std::string(static_cast<size_t>(len - 4), '\0')};
  if (!ReadExact(m.body.data(), m.body.size())) return std::nullopt;
  return m;
}

std::optional<char> PgClient::ReadByte() {
  char c;
  if (!ReadExact(&c, 1)) return std::nullopt;
  return c;
}

std::optional<BackendMessage> PgClient::ReadUntil(char type, std::vector<BackendMessage>* seen) {
  while (auto m = Read()) {
    if (seen) seen->push_back(*m);
    if (m->type == type) return m;
  }
  return std::nullopt;
}

bool PgClient::Closed() {
  char c;
  return !ReadExact(&c, 1);
}

bool PgClient::Login(const std::string& user, const std::string& database,
                     std::vector<std::pair<std::string, std::string>> extra) {
  StartupMessage startup;
  startup.parameters = {{"user", user}, {"database", database}};
  for (auto& p : extra) startup.parameters.push_back(std::move(p));
  SendStartup(startup);
  return ReadUntil('Z').has_value();
}

std::map<char, std::string> ParseFields(const std::string& body) {
  std::map<char, std::string> fields;
  size_t i = 0;
  while (i < body.size() && body[i] != '\0') {
    char code = body[i++];
    size_t end = body.find('\0', i);
    if (end == std::string::npos) break;
    fields[code] = body.substr(i, end - i);
    i = end + 1;
  }
  return fields;
}

}  // namespace farmdb::server::testing
