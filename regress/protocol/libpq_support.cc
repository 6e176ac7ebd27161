// libpq_support: see libpq_support.h.

#include "regress/protocol/libpq_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace farmdb::regress {

bool Checker::Check(bool ok, const std::string& what) {
  ++checks_;
  if (!ok) {
    ++failures_;
    test_failed_ = true;
    std::printf("    FAIL: %s\n", what.c_str());
  }
  return ok;
}

Checker& Checks() {
  static Checker checker;  // one test program, one run: the count main() reports
  return checker;
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) {
    std::fprintf(stderr, "libpq_test: environment variable %s is not set (run via harness.py)\n",
                 name);
    std::exit(2);
  }
  return value;
}

std::string Quote(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

Conn Connect(const std::string& user, const std::string& password, const std::string& dbname) {
  std::string conninfo = "host=" + Env("E2E_HOST") + " port=" + Env("E2E_PORT") +
                         " dbname=" + Quote(dbname) + " user=" + Quote(user) +
                         " connect_timeout=20 application_name=libpq_test";
  if (!password.empty()) conninfo += " password=" + Quote(password);
  return Conn(PQconnectdb(conninfo.c_str()));
}

Conn ConnectOk(const std::string& user, const std::string& password) {
  Conn conn = Connect(user, password);
  Check(PQstatus(conn.get()) == CONNECTION_OK,
        "connect as " + user + ": " + PQerrorMessage(conn.get()));
  return conn;
}

std::string Field(const PGresult* res, int field) {
  const char* value = PQresultErrorField(res, field);
  return value == nullptr ? "(null)" : value;
}

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

namespace {

std::string BigEndian(uint64_t value, int bytes) {
  std::string out(bytes, '\0');
  for (int i = bytes - 1; i >= 0; --i, value >>= 8) out[i] = static_cast<char>(value & 0xff);
  return out;
}
}  // namespace

std::string Be16(int64_t v) { return BigEndian(static_cast<uint64_t>(v), 2); }
std::string Be32(int64_t v) { return BigEndian(static_cast<uint64_t>(v), 4); }
std::string Be64(int64_t v) { return BigEndian(static_cast<uint64_t>(v), 8); }

std::string Numeric(int16_t weight, uint16_t sign, int16_t dscale, std::vector<int16_t> digits) {
  std::string out = Be16(static_cast<int16_t>(digits.size())) + Be16(weight) + Be16(sign) +
                    Be16(dscale);
  for (int16_t d : digits) out += Be16(d);
  return out;
}

bool WaitReadable(int fd, int timeout_ms) {
  pollfd pfd{fd, POLLIN, 0};
  return poll(&pfd, 1, timeout_ms) > 0;
}

std::string RawStartupSqlstate(const std::string& user, const std::string& database,
                               const std::string& password) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(std::stoi(Env("E2E_PORT"))));
  inet_pton(AF_INET, Env("E2E_HOST").c_str(), &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return "(connect failed)";
  }
  auto send_all = [&](const std::string& bytes) {
    return send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  };
  auto read_exact = [&](size_t n, std::string& out) {
    out.resize(n);
    for (size_t got = 0; got < n;) {
      if (!WaitReadable(fd, 20000)) return false;
      ssize_t r = recv(fd, out.data() + got, n - got, 0);
      if (r <= 0) return false;
      got += static_cast<size_t>(r);
    }
    return true;
  };
  std::string body = Be32(196608) + "user" + '\0' + user + '\0' + "database" + '\0' + database +
                     '\0' + '\0';
  std::string result = "(no response)";
  if (send_all(Be32(static_cast<int64_t>(body.size()) + 4) + body)) {
    std::string header, payload;
    while (read_exact(5, header)) {
      uint32_t len = (static_cast<uint8_t>(header[1]) << 24) | (static_cast<uint8_t>(header[2]) << 16) |
                     (static_cast<uint8_t>(header[3]) << 8) | static_cast<uint8_t>(header[4]);
      if (len < 4 || len > 1 << 20 || !read_exact(len - 4, payload)) break;
      if (header[0] == 'E') {
        result = "(ErrorResponse without SQLSTATE)";
        for (size_t i = 0; i < payload.size() && payload[i] != '\0';) {
          size_t end = payload.find('\0', i + 1);
          if (end == std::string::npos) break;
          if (payload[i] == 'C') result = payload.substr(i + 1, end - i - 1);
          i = end + 1;
        }
        break;
      }
      if (header[0] == 'Z') {  // ReadyForQuery: the session is up
        result = "ok";
        break;
      }
      // After AuthenticationOk come ParameterStatus, BackendKeyData (and notices); PostgreSQL
      // checks the database only then, so an error may still follow.
      if (header[0] == 'S' || header[0] == 'K' || header[0] == 'N') continue;
      if (header[0] != 'R' || payload.size() < 4) {
        result = std::string("(unexpected message ") + header[0] + ")";
        break;
      }
      int code = payload[3];
      if (code == 0) continue;
      if (code != 3) {
        result = "(authentication request " + std::to_string(code) + ", want cleartext 3)";
        break;
      }
      std::string pw = password + '\0';
      if (!send_all("p" + Be32(static_cast<int64_t>(pw.size()) + 4) + pw)) break;
    }
  }
  close(fd);
  return result;
}

}  // namespace farmdb::regress
