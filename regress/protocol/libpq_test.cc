// libpq_test: end-to-end checks of the PostgreSQL v3 protocol through libpq, run by
// regress/protocol/harness.py against farmdb or a scratch PostgreSQL 15 (the oracle).
//
// The server's address and roles come from the harness's E2E_* environment variables. Every
// check prints what it compared; the program exits 1 if any check failed. Only types and
// statements farmdb supports at the "protocol front end" stage are used: constant SELECTs,
// SET/SHOW, transaction blocks, pg_sleep. Expected binary encodings are written out by hand
// from PostgreSQL's send functions (int2send, numeric_send, date_send, ...), so a server that
// merely round-trips what it received cannot pass.
//
// Single-threaded: the cancel test sends PQcancel from the same thread while the query runs.

#include <libpq-fe.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "regress/protocol/libpq_pipeline.h"
#include "regress/protocol/libpq_support.h"

namespace farmdb::regress {
namespace {


struct TypedValue {
  const char* type_name;
  Oid oid;
  std::string text;    // the text form the server prints (and accepts)
  std::string binary;  // the binary form, byte-exact
};

std::vector<TypedValue> TypedValues() {
  constexpr uint16_t kPos = 0x0000, kNeg = 0x4000;
  return {
      {"bool", kBool, "t", std::string(1, '\1')},
      {"bool", kBool, "f", std::string(1, '\0')},
      {"int2", kInt2, "-12345", Be16(-12345)},
      {"int4", kInt4, "2147483647", Be32(2147483647)},
      {"int4", kInt4, "-1", Be32(-1)},
      {"int8", kInt8, "-9223372036854775808", Be64(INT64_MIN)},
      {"int8", kInt8, "1099511627776", Be64(int64_t{1} << 40)},
      {"float4", kFloat4, "1.5", Be32(0x3fc00000)},
      {"float8", kFloat8, "-2.25", Be64(static_cast<int64_t>(0xc002000000000000ULL))},
      {"float8", kFloat8, "Infinity", Be64(0x7ff0000000000000LL)},
      {"numeric", kNumeric, "-123.4500", Numeric(0, kNeg, 4, {123, 4500})},
      {"numeric", kNumeric, "12345678.9", Numeric(1, kPos, 1, {1234, 5678, 9000})},
      {"numeric", kNumeric, "0", Numeric(0, kPos, 0, {})},
      {"numeric", kNumeric, "0.0001", Numeric(-1, kPos, 4, {1})},
      {"text", kText, "h\xc3\xa9llo, 'world'", "h\xc3\xa9llo, 'world'"},
      {"text", kText, "", ""},
      {"varchar", kVarchar, "abc", "abc"},
      {"bytea", kBytea, "\\x00ff7f", std::string("\x00\xff\x7f", 3)},
      {"date", kDate, "2000-01-01", Be32(0)},
      {"date", kDate, "2024-02-29", Be32(8825)},
      {"date", kDate, "1999-12-31", Be32(-1)},
      {"timestamp", kTimestamp, "2000-01-01 00:00:01.5", Be64(1500000)},
      {"timestamp", kTimestamp, "1999-12-31 23:59:59", Be64(-1000000)},
      {"timestamp", kTimestamp, "2024-02-29 12:00:00", Be64(8825LL * 86400000000LL + 43200000000LL)},
  };
}

void TestAuth() {
  const std::string password_user = Env("E2E_PASSWORD_USER"), md5_user = Env("E2E_MD5_USER"),
                    scram_user = Env("E2E_SCRAM_USER");
  struct Case {
    std::string user, password;
  };
  for (const Case& c : {Case{Env("E2E_TRUST_USER"), ""},
                        Case{password_user, Env("E2E_PASSWORD_PASSWORD")},
                        Case{md5_user, Env("E2E_MD5_PASSWORD")},
                        Case{scram_user, Env("E2E_SCRAM_PASSWORD")}}) {
    Conn conn = ConnectOk(c.user, c.password);
    if (PQstatus(conn.get()) != CONNECTION_OK) continue;
    // The session's identity as the server reports it (ParameterStatus), then a query.
    const char* who = PQparameterStatus(conn.get(), "session_authorization");
    Check(who != nullptr && who == c.user, "session_authorization after authenticating as " +
                                               c.user + ": " + (who ? who : "(missing)"));
    Result res(PQexec(conn.get(), "SELECT 1"));
    Check(PQresultStatus(res.get()) == PGRES_TUPLES_OK, "query as " + c.user);
  }
  // Trust ignores whatever password the client holds.
  Conn trust = Connect(Env("E2E_TRUST_USER"), "not-the-password");
  Check(PQstatus(trust.get()) == CONNECTION_OK,
        std::string("trust user with a stray password: ") + PQerrorMessage(trust.get()));

  for (const std::string& user : {password_user, md5_user, scram_user}) {
    Conn wrong = Connect(user, "wrong-password");
    std::string error = PQerrorMessage(wrong.get());
    Check(PQstatus(wrong.get()) == CONNECTION_BAD &&
              error.find("password authentication failed for user \"" + user + "\"") !=
                  std::string::npos,
          "wrong password for " + user + " -> 28P01 message, got: " + error);
    // No password at all: the server must have asked for one (proves the method isn't trust).
    Conn none = Connect(user, "");
    error = PQerrorMessage(none.get());
    Check(PQstatus(none.get()) == CONNECTION_BAD &&
              error.find("no password supplied") != std::string::npos,
          "no password for " + user + " -> server requests one, got: " + error);
  }
  Conn rejected = Connect(Env("E2E_REJECT_USER"), Env("E2E_REJECT_PASSWORD"));
  std::string error = PQerrorMessage(rejected.get());
  Check(PQstatus(rejected.get()) == CONNECTION_BAD &&
            error.find("pg_hba.conf rejects connection for host \"127.0.0.1\", user \"" +
                       Env("E2E_REJECT_USER") + "\", database \"postgres\"") != std::string::npos,
        "reject rule -> 28000, got: " + error);
  Conn nodb = Connect(Env("E2E_TRUST_USER"), "", "no_such_db");
  error = PQerrorMessage(nodb.get());
  Check(PQstatus(nodb.get()) == CONNECTION_BAD &&
            error.find("database \"no_such_db\" does not exist") != std::string::npos,
        "unknown database -> 3D000, got: " + error);
  // The same failures' SQLSTATEs, read off the wire.
  const std::string trust_user = Env("E2E_TRUST_USER");
  struct RawCase {
    std::string user, database, password, want;
  };
  for (const RawCase& r : {RawCase{password_user, "postgres", Env("E2E_PASSWORD_PASSWORD"), "ok"},
                           RawCase{password_user, "postgres", "wrong-password", "28P01"},
                           RawCase{trust_user, "postgres", "", "ok"},
                           RawCase{trust_user, "no_such_db", "", "3D000"},
                           RawCase{Env("E2E_REJECT_USER"), "postgres", "", "28000"},
                           RawCase{"no_such_role", "postgres", "", "28000"}}) {
    std::string got = RawStartupSqlstate(r.user, r.database, r.password);
    Check(got == r.want, "raw startup as " + r.user + " to " + r.database + ": got " + got +
                             " want " + r.want);
  }
  Conn unknown_role = Connect("no_such_role", "");
  error = PQerrorMessage(unknown_role.get());
  Check(PQstatus(unknown_role.get()) == CONNECTION_BAD &&
            error.find("no pg_hba.conf entry for host \"127.0.0.1\", user \"no_such_role\"") !=
                std::string::npos,
        "role without a matching rule -> 28000, got: " + error);
}

// Prepares "SELECT $1::type" with the parameter type given, then executes it with every
// combination of text/binary parameter and text/binary result.
void TestTypedParameters() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  int n = 0;
  for (const TypedValue& v : TypedValues()) {
    const std::string name = "typed_" + std::to_string(n++);
    const std::string sql = std::string("SELECT $1::") + v.type_name;
    Result prep(PQprepare(conn.get(), name.c_str(), sql.c_str(), 1, &v.oid));
    if (!Check(PQresultStatus(prep.get()) == PGRES_COMMAND_OK,
               "prepare " + sql + ": " + PQresultErrorMessage(prep.get())))
      continue;
    for (int param_format : {0, 1}) {
      for (int result_format : {0, 1}) {
        const std::string& param = param_format ? v.binary : v.text;
        const char* values[] = {param.data()};
        int lengths[] = {static_cast<int>(param.size())};
        int formats[] = {param_format};
        Result res(PQexecPrepared(conn.get(), name.c_str(), 1, values, lengths, formats,
                                  result_format));
        std::string label = std::string(v.type_name) + " " + Quote(v.text) + " param " +
                            (param_format ? "binary" : "text") + " result " +
                            (result_format ? "binary" : "text");
        if (!Check(PQresultStatus(res.get()) == PGRES_TUPLES_OK && PQntuples(res.get()) == 1,
                   label + ": " + PQresultErrorMessage(res.get())))
          continue;
        Check(PQftype(res.get(), 0) == v.oid, label + ": result type oid " +
                                                  std::to_string(PQftype(res.get(), 0)));
        Check(PQfformat(res.get(), 0) == result_format, label + ": result format");
        std::string got(PQgetvalue(res.get(), 0, 0), PQgetlength(res.get(), 0, 0));
        const std::string& want = result_format ? v.binary : v.text;
        Check(got == want, label + ": got " + (result_format ? Hex(got) : Quote(got)) +
                               " want " + (result_format ? Hex(want) : Quote(want)));
      }
    }
  }
  // NULL in both formats, and two parameters of different types in one statement.
  const Oid types[] = {kInt4, kText};
  Result prep(PQprepare(conn.get(), "two", "SELECT $1::int4 + 1, $2::text || '!'", 2, types));
  Check(PQresultStatus(prep.get()) == PGRES_COMMAND_OK,
        std::string("prepare two: ") + PQresultErrorMessage(prep.get()));
  const std::string four = Be32(41);
  const char* values[] = {four.data(), nullptr};
  int lengths[] = {4, 0};
  int formats[] = {1, 0};
  Result res(PQexecPrepared(conn.get(), "two", 2, values, lengths, formats, 0));
  Check(PQresultStatus(res.get()) == PGRES_TUPLES_OK && PQntuples(res.get()) == 1 &&
            std::string(PQgetvalue(res.get(), 0, 0)) == "42" && PQgetisnull(res.get(), 0, 1),
        std::string("mixed binary int4 + NULL text: ") + PQresultErrorMessage(res.get()));
  // Unnamed statement through PQexecParams, types left for the server to infer.
  const char* text_values[] = {"7"};
  Result inferred(PQexecParams(conn.get(), "SELECT $1 + 1", 1, nullptr, text_values, nullptr,
                               nullptr, 1));
  Check(PQresultStatus(inferred.get()) == PGRES_TUPLES_OK && PQftype(inferred.get(), 0) == kInt4 &&
            std::string(PQgetvalue(inferred.get(), 0, 0), 4) == Be32(8),
        std::string("inferred int4 parameter: ") + PQresultErrorMessage(inferred.get()));
  // Bad binary values: too short runs out of message data (08P01, as int4recv reports it),
  // too long leaves bytes unread (22P03).
  struct Bad {
    std::string bytes;
    const char* sqlstate;
  };
  for (const Bad& b : {Bad{std::string("\x00\x00\x01", 3), "08P01"},
                       Bad{std::string("\x00\x00\x00\x01\x00", 5), "22P03"}}) {
    const char* bad_value[] = {b.bytes.data()};
    int bad_len[] = {static_cast<int>(b.bytes.size())};
    int binary[] = {1};
    Result bad(PQexecParams(conn.get(), "SELECT $1::int4", 1, &types[0], bad_value, bad_len,
                            binary, 0));
    Check(PQresultStatus(bad.get()) == PGRES_FATAL_ERROR &&
              Field(bad.get(), PG_DIAG_SQLSTATE) == b.sqlstate,
          std::to_string(b.bytes.size()) + "-byte binary int4 -> " + b.sqlstate + ", got " +
              Field(bad.get(), PG_DIAG_SQLSTATE));
    Result alive(PQexec(conn.get(), "SELECT 1"));
    Check(PQresultStatus(alive.get()) == PGRES_TUPLES_OK, "session usable after bad binary");
  }
}

void TestDescribe() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  Result prep(PQprepare(conn.get(), "described",
                        "SELECT $1::int8 + 1 AS a, $2::text AS b, $3 = 1.5 AS c", 0, nullptr));
  Check(PQresultStatus(prep.get()) == PGRES_COMMAND_OK,
        std::string("prepare described: ") + PQresultErrorMessage(prep.get()));
  Result desc(PQdescribePrepared(conn.get(), "described"));
  if (!Check(PQresultStatus(desc.get()) == PGRES_COMMAND_OK,
             std::string("describe: ") + PQresultErrorMessage(desc.get())))
    return;
  Check(PQnparams(desc.get()) == 3, "nparams " + std::to_string(PQnparams(desc.get())));
  if (PQnparams(desc.get()) == 3) {
    Check(PQparamtype(desc.get(), 0) == kInt8, "param 1 is int8");
    Check(PQparamtype(desc.get(), 1) == kText, "param 2 is text");
    Check(PQparamtype(desc.get(), 2) == kNumeric,
          "param 3 inferred numeric, got " + std::to_string(PQparamtype(desc.get(), 2)));
  }
  Check(PQnfields(desc.get()) == 3, "nfields " + std::to_string(PQnfields(desc.get())));
  if (PQnfields(desc.get()) == 3) {
    const Oid want[] = {kInt8, kText, kBool};
    const char* names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) {
      Check(PQftype(desc.get(), i) == want[i] && std::string(PQfname(desc.get(), i)) == names[i],
            std::string("column ") + names[i] + " described as " + PQfname(desc.get(), i) + " " +
                std::to_string(PQftype(desc.get(), i)));
    }
  }
  // A statement without a result: no fields.
  Result prep_set(PQprepare(conn.get(), "set_stmt", "SET application_name = 'x'", 0, nullptr));
  Result desc_set(PQdescribePrepared(conn.get(), "set_stmt"));
  Check(PQresultStatus(desc_set.get()) == PGRES_COMMAND_OK && PQnfields(desc_set.get()) == 0 &&
            PQnparams(desc_set.get()) == 0,
        std::string("describe SET: ") + PQresultErrorMessage(desc_set.get()));
  Result missing(PQdescribePrepared(conn.get(), "no_such_statement"));
  Check(Field(missing.get(), PG_DIAG_SQLSTATE) == "26000",
        "describe unknown statement -> 26000, got " + Field(missing.get(), PG_DIAG_SQLSTATE));
  Result dup(PQprepare(conn.get(), "described", "SELECT 1", 0, nullptr));
  Check(Field(dup.get(), PG_DIAG_SQLSTATE) == "42P05",
        "prepare duplicate name -> 42P05, got " + Field(dup.get(), PG_DIAG_SQLSTATE));
}

void TestSingleRowMode() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  PGconn* c = conn.get();
  Check(PQsendQuery(c, "SELECT 1 AS a; SELECT 'two' AS b") == 1, "send two statements");
  Check(PQsetSingleRowMode(c) == 1, "enter single-row mode");
  struct Want {
    ExecStatusType status;
    int rows;
    const char* value;
  };
  int i = 0;
  for (const Want& w : {Want{PGRES_SINGLE_TUPLE, 1, "1"}, Want{PGRES_TUPLES_OK, 0, nullptr},
                        Want{PGRES_SINGLE_TUPLE, 1, "two"}, Want{PGRES_TUPLES_OK, 0, nullptr}}) {
    Result res(PQgetResult(c));
    std::string label = "single-row result " + std::to_string(i++);
    if (!Check(res && PQresultStatus(res.get()) == w.status && PQntuples(res.get()) == w.rows,
               label + ": " + (res ? PQresStatus(PQresultStatus(res.get())) : "none")))
      continue;
    if (w.value) Check(std::string(PQgetvalue(res.get(), 0, 0)) == w.value, label + " value");
  }
  Check(PQgetResult(c) == nullptr, "single-row mode ends with null");

  // Extended protocol in single-row mode, a row then an error.
  Check(PQsendQueryParams(c, "SELECT 1/0", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1,
        "send erroring query");
  Check(PQsetSingleRowMode(c) == 1, "single-row mode for the erroring query");
  Result err(PQgetResult(c));
  Check(err && PQresultStatus(err.get()) == PGRES_FATAL_ERROR &&
            Field(err.get(), PG_DIAG_SQLSTATE) == "22012",
        "division by zero in single-row mode");
  while (PGresult* rest = PQgetResult(c)) PQclear(rest);
}

void TestErrorFields() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  struct Case {
    const char* sql;
    const char* sqlstate;
    const char* position;
    const char* message;
  };
  for (const Case& e : {
           Case{"SELEC 1", "42601", "1", "syntax error at or near \"SELEC\""},
           Case{"SELECT 1 +", "42601", "11", "syntax error at end of input"},
           Case{"SELECT no_such_column", "42703", "8", "column \"no_such_column\" does not exist"},
           Case{"SELECT 1 FROM no_such_table", "42P01", "15",
                "relation \"no_such_table\" does not exist"},
           Case{"SELECT 'abc'::int4", "22P02", "8", "invalid input syntax for type integer: \"abc\""},
           Case{"SELECT 1/0", "22012", nullptr, "division by zero"},
       }) {
    Result res(PQexec(conn.get(), e.sql));
    std::string label = std::string(e.sql) + ": ";
    Check(PQresultStatus(res.get()) == PGRES_FATAL_ERROR, label + "fails");
    Check(Field(res.get(), PG_DIAG_SQLSTATE) == e.sqlstate,
          label + "sqlstate " + Field(res.get(), PG_DIAG_SQLSTATE));
    Check(Field(res.get(), PG_DIAG_SEVERITY_NONLOCALIZED) == "ERROR", label + "severity");
    Check(Field(res.get(), PG_DIAG_MESSAGE_PRIMARY) == e.message,
          label + "message " + Field(res.get(), PG_DIAG_MESSAGE_PRIMARY));
    Check(Field(res.get(), PG_DIAG_STATEMENT_POSITION) == (e.position ? e.position : "(null)"),
          label + "position " + Field(res.get(), PG_DIAG_STATEMENT_POSITION));
  }
  Result ok(PQexec(conn.get(), "SELECT 'session survives errors'"));
  Check(PQresultStatus(ok.get()) == PGRES_TUPLES_OK, "query after errors");
  Result empty(PQexec(conn.get(), ""));
  Check(PQresultStatus(empty.get()) == PGRES_EMPTY_QUERY, "empty query -> EmptyQueryResponse");
}

// Runs a COPY ... TO STDOUT and returns its data, checking the CopyOutResponse shape; the
// final result (CommandComplete or an error) is returned in *final.
std::string CopyOut(PGconn* conn, const char* sql, int columns, Result* final) {
  Result start(PQexec(conn, sql));
  if (PQresultStatus(start.get()) != PGRES_COPY_OUT) {
    *final = std::move(start);
    return "";
  }
  Check(PQnfields(start.get()) == columns && PQbinaryTuples(start.get()) == 0,
        std::string(sql) + ": CopyOutResponse with " + std::to_string(columns) + " text columns");
  std::string data;
  char* buf = nullptr;
  int n;
  while ((n = PQgetCopyData(conn, &buf, 0)) > 0) {
    data.append(buf, n);
    PQfreemem(buf);
  }
  Check(n == -1, std::string(sql) + ": copy ends cleanly, got " + std::to_string(n));
  final->reset(PQgetResult(conn));
  while (PGresult* rest = PQgetResult(conn)) PQclear(rest);
  return data;
}

void TestCopyOut() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  PGconn* c = conn.get();
  struct Case {
    const char* sql;
    int columns;
    const char* data;
  };
  for (const Case& k : {
           Case{"COPY (SELECT 1 AS a, 'x\ty' AS b, NULL AS c) TO STDOUT", 3, "1\tx\\ty\t\\N\n"},
           Case{"COPY (SELECT 1 AS a, 'x,y' AS b) TO STDOUT WITH (FORMAT csv, HEADER)", 2,
                "a,b\n1,\"x,y\"\n"},
           Case{"COPY (SELECT '2024-02-29'::date, 1.50::numeric, '\\x01'::bytea) TO STDOUT", 3,
                "2024-02-29\t1.50\t\\\\x01\n"},
       }) {
    Result final;
    std::string data = CopyOut(c, k.sql, k.columns, &final);
    Check(data == k.data, std::string(k.sql) + ": data " + Quote(data) + " want " + Quote(k.data));
    Check(PQresultStatus(final.get()) == PGRES_COMMAND_OK &&
              std::string(PQcmdStatus(final.get())) == "COPY 1",
          std::string(k.sql) + ": CommandComplete COPY 1, got " +
              (final ? PQcmdStatus(final.get()) : "none") + " " +
              (final ? PQresultErrorMessage(final.get()) : ""));
  }
  Result failed;
  CopyOut(c, "COPY (SELECT 1/0) TO STDOUT", 1, &failed);
  Check(PQresultStatus(failed.get()) == PGRES_FATAL_ERROR &&
            Field(failed.get(), PG_DIAG_SQLSTATE) == "22012",
        "COPY of a failing query -> 22012, got " + Field(failed.get(), PG_DIAG_SQLSTATE));
  Result after(PQexec(c, "SELECT 1"));
  Check(PQresultStatus(after.get()) == PGRES_TUPLES_OK, "session usable after COPY");
}

void TestCancel() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  PGconn* c = conn.get();
  if (!Check(PQsendQuery(c, "SELECT pg_sleep(30)") == 1, "send pg_sleep(30)")) return;
  Check(PQtransactionStatus(c) == PQTRANS_ACTIVE, "transaction status ACTIVE while running");
  std::unique_ptr<PGcancel, decltype(&PQfreeCancel)> cancel(PQgetCancel(c), PQfreeCancel);
  // A cancel that lands before the backend starts executing is ignored, as in PostgreSQL, so
  // resend until the query ends (the test asserts the outcome, not how fast it came).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool busy = true;
  int sends = 0;
  while (busy && std::chrono::steady_clock::now() < deadline) {
    if (!WaitReadable(PQsocket(c), sends == 0 ? 200 : 2000)) {
      char errbuf[256];
      Check(PQcancel(cancel.get(), errbuf, sizeof errbuf) == 1,
            std::string("PQcancel: ") + errbuf);
      ++sends;
      continue;
    }
    if (!Check(PQconsumeInput(c) == 1, std::string("consume: ") + PQerrorMessage(c))) return;
    busy = PQisBusy(c);
  }
  // Information only, never asserted: how many cancel requests it took.
  std::printf("    cancel: %d request(s)\n", sends);
  if (!Check(!busy, "query ended after cancel")) return;
  Result res(PQgetResult(c));
  Check(PQresultStatus(res.get()) == PGRES_FATAL_ERROR &&
            Field(res.get(), PG_DIAG_SQLSTATE) == "57014" &&
            Field(res.get(), PG_DIAG_MESSAGE_PRIMARY) == "canceling statement due to user request",
        "canceled: sqlstate " + Field(res.get(), PG_DIAG_SQLSTATE) + " " +
            Field(res.get(), PG_DIAG_MESSAGE_PRIMARY));
  while (PGresult* rest = PQgetResult(c)) PQclear(rest);
  Result after(PQexec(c, "SELECT 1"));
  Check(PQresultStatus(after.get()) == PGRES_TUPLES_OK, "connection usable after cancel");
  // A cancel that arrives while the session is idle must not hurt the next query.
  char errbuf[256];
  Check(PQcancel(cancel.get(), errbuf, sizeof errbuf) == 1, "cancel while idle");
  Result idle(PQexec(c, "SELECT 2"));
  Check(PQresultStatus(idle.get()) == PGRES_TUPLES_OK, "idle cancel is harmless");
}

void TestTransactionStatus() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  PGconn* c = conn.get();
  auto exec_then = [&](const char* sql, PGTransactionStatusType want, const char* name) {
    Result res(PQexec(c, sql));
    Check(PQtransactionStatus(c) == want, std::string("after ") + sql + ": want " + name);
  };
  Check(PQtransactionStatus(c) == PQTRANS_IDLE, "idle after connect");
  exec_then("BEGIN", PQTRANS_INTRANS, "T");
  exec_then("SELECT 1", PQTRANS_INTRANS, "T");
  exec_then("SELECT 1/0", PQTRANS_INERROR, "E");
  Result ignored(PQexec(c, "SELECT 1"));
  Check(Field(ignored.get(), PG_DIAG_SQLSTATE) == "25P02",
        "statement in failed block -> 25P02, got " + Field(ignored.get(), PG_DIAG_SQLSTATE));
  Check(PQtransactionStatus(c) == PQTRANS_INERROR, "still E");
  Result commit(PQexec(c, "COMMIT"));
  Check(std::string(PQcmdStatus(commit.get())) == "ROLLBACK", "COMMIT of failed block says ROLLBACK");
  Check(PQtransactionStatus(c) == PQTRANS_IDLE, "idle after COMMIT of failed block");
  exec_then("BEGIN", PQTRANS_INTRANS, "T");
  exec_then("ROLLBACK", PQTRANS_IDLE, "I");
  exec_then("BEGIN; SELECT 1", PQTRANS_INTRANS, "T after multi-statement BEGIN");
  exec_then("COMMIT; SELECT 1", PQTRANS_IDLE, "I after multi-statement COMMIT");
  // A multi-statement simple query is one implicit transaction: an error aborts it all.
  exec_then("SELECT 1; SELECT 1/0; SELECT 3", PQTRANS_IDLE, "I after failed implicit block");
}

void TestParameterStatus() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  PGconn* c = conn.get();
  auto status = [&](const char* name) {
    const char* value = PQparameterStatus(c, name);
    return std::string(value ? value : "(missing)");
  };
  Check(status("server_version").rfind("15", 0) == 0, "server_version " + status("server_version"));
  Check(PQserverVersion(c) >= 150000 && PQserverVersion(c) < 160000,
        "PQserverVersion " + std::to_string(PQserverVersion(c)));
  Check(PQprotocolVersion(c) == 3, "protocol 3");
  Check(PQbackendPID(c) != 0, "BackendKeyData pid");
  const std::pair<const char*, const char*> fixed[] = {
      {"client_encoding", "UTF8"},          {"server_encoding", "UTF8"},
      {"DateStyle", "ISO, MDY"},            {"integer_datetimes", "on"},
      {"standard_conforming_strings", "on"}, {"IntervalStyle", "postgres"},
      {"is_superuser", "on"},               {"session_authorization", "postgres"},
      {"application_name", "libpq_test"},
  };
  for (const auto& [name, want] : fixed)
    Check(status(name) == want, std::string(name) + " = " + status(name) + " want " + want);
  Check(status("TimeZone") != "(missing)", "TimeZone reported");

  // Changing a reported setting sends a new ParameterStatus.
  Result set(PQexec(c, "SET DateStyle = 'German'"));
  Check(status("DateStyle") == "German, DMY", "DateStyle after SET: " + status("DateStyle"));
  Result app(PQexec(c, "SET application_name = 'renamed'"));
  Check(status("application_name") == "renamed", "application_name after SET");
  Result reset(PQexec(c, "RESET ALL"));
  Check(status("DateStyle") == "ISO, MDY", "DateStyle after RESET ALL: " + status("DateStyle"));
  Check(status("application_name") == "libpq_test",
        "application_name after RESET ALL: " + status("application_name"));

  // A non-superuser role sees is_superuser off.
  Conn scram = ConnectOk(Env("E2E_SCRAM_USER"), Env("E2E_SCRAM_PASSWORD"));
  const char* su = PQparameterStatus(scram.get(), "is_superuser");
  Check(su && std::string(su) == "off", "is_superuser off for the scram role");
}

}  // namespace
}  // namespace farmdb::regress

int main() {
  using namespace farmdb::regress;
  const std::pair<const char*, std::function<void()>> tests[] = {
      {"auth", TestAuth},
      {"typed_parameters", TestTypedParameters},
      {"describe", TestDescribe},
      {"pipeline", TestPipeline},
      {"pipeline_transactions", TestPipelineTransactions},
      {"single_row_mode", TestSingleRowMode},
      {"error_fields", TestErrorFields},
      {"copy_out", TestCopyOut},
      {"cancel", TestCancel},
      {"transaction_status", TestTransactionStatus},
      {"parameter_status", TestParameterStatus},
  };
  int failed_tests = 0;
  for (const auto& [name, fn] : tests) {
    std::printf("libpq %s\n", name);
    std::fflush(stdout);
    Checks().StartTest();
    fn();
    std::printf("libpq %s: %s\n", name, Checks().test_failed() ? "FAILED" : "ok");
    failed_tests += Checks().test_failed();
  }
  std::printf("libpq_test: %d checks, %d failed, %d of %zu tests failed\n", Checks().checks(),
              Checks().failures(), failed_tests, std::size(tests));
  return Checks().failures() == 0 ? 0 : 1;
}
