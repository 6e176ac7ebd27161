// libpq_support: helpers for libpq_test (regress/protocol): the check counter, connections
// from the harness's E2E_* environment, and PostgreSQL's binary encodings written by hand
// (pq_sendint*, numeric_send) so expected values never come from the server under test.
//
// Not thread-safe: the check counter belongs to the main thread.

#ifndef FARMDB_REGRESS_PROTOCOL_LIBPQ_SUPPORT_H_
#define FARMDB_REGRESS_PROTOCOL_LIBPQ_SUPPORT_H_

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace farmdb::regress {

constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kText = 25,
              kFloat4 = 700, kFloat8 = 701, kVarchar = 1043, kDate = 1082, kTimestamp = 1114,
              kNumeric = 1700;

// Counts checks and failures over the whole run; a failed check prints what it compared.
class Checker {
 public:
  bool Check(bool ok, const std::string& what);
  void StartTest() { test_failed_ = false; }
  bool test_failed() const { return test_failed_; }
  int checks() const { return checks_; }
  int failures() const { return failures_; }

 private:
  int checks_ = 0;
  int failures_ = 0;
  bool test_failed_ = false;
};

// The run's checker (owned by main(); set once before any test runs).
Checker& Checks();
inline bool Check(bool ok, const std::string& what) { return Checks().Check(ok, what); }

// An environment variable set by harness.py; exits 2 with a message when it is missing.
std::string Env(const char* name);

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct ResultCloser {
  void operator()(PGresult* res) const { PQclear(res); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;
using Result = std::unique_ptr<PGresult, ResultCloser>;

// A conninfo-quoted value ('...' with ' and \ escaped).
std::string Quote(std::string_view value);
// Connects to the harness's target; check PQstatus. An empty password sends none.
Conn Connect(const std::string& user, const std::string& password,
             const std::string& dbname = "postgres");
// Connect, counting a failed connection as a failed check.
Conn ConnectOk(const std::string& user, const std::string& password);
// PQresultErrorField, "(null)" when absent.
std::string Field(const PGresult* res, int field);
std::string Hex(std::string_view bytes);

// Big-endian integers as PostgreSQL's pq_sendint16/32/64 write them.
std::string Be16(int64_t v);
std::string Be32(int64_t v);
std::string Be64(int64_t v);
// numeric_send: ndigits, weight, sign, dscale, then base-10000 digits.
std::string Numeric(int16_t weight, uint16_t sign, int16_t dscale, std::vector<int16_t> digits);

bool WaitReadable(int fd, int timeout_ms);

// libpq keeps no SQLSTATE for a failed connection attempt, so this speaks the startup protocol
// on a raw socket: StartupMessage, a cleartext PasswordMessage if asked for one, and returns
// the SQLSTATE of the ErrorResponse, "ok" on ReadyForQuery, or a description of what went wrong.
std::string RawStartupSqlstate(const std::string& user, const std::string& database,
                               const std::string& password);

}  // namespace farmdb::regress

#endif  // FARMDB_REGRESS_PROTOCOL_LIBPQ_SUPPORT_H_
