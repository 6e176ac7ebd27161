// In-process tests of the server over real sockets: the startup phase, bad input of every kind
// (each connection gets FATAL and a close while a healthy connection keeps working), cancel,
// COPY, and shutdown. Authentication runs through libpq, a real client.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "server/protocol/codec.h"
#include "server/testing/pg_client.h"
#include "server/testing/test_server.h"

namespace farmdb::server::testing {
namespace {

std::string Raw(char type, std::string_view body, std::optional<int32_t> length = std::nullopt) {
  std::string out(1, type);
  PutInt32(out, length.value_or(static_cast<int32_t>(body.size() + 4)));
  out.append(body);
  return out;
}

std::string StartupBytes(uint16_t major, uint16_t minor,
                         std::vector<std::pair<std::string, std::string>> params) {
  std::string out;
  EncodeStartupPacket(StartupMessage{major, minor, std::move(params)}, out);
  return out;
}

// Reads to the end and returns the fields of the FATAL that must be the last message.
std::map<char, std::string> ExpectFatalAndClose(PgClient& client) {
  std::optional<BackendMessage> last;
  while (auto m = client.Read()) last = m;
  EXPECT_TRUE(last.has_value()) << "connection closed without an error";
  if (!last) return {};
  EXPECT_EQ(last->type, 'E');
  auto fields = ParseFields(last->body);
  EXPECT_EQ(fields['S'], "FATAL");
  EXPECT_EQ(fields['V'], "FATAL");
  EXPECT_TRUE(client.Closed());
  return fields;
}

void ExpectSelectOne(PgClient& client) {
  client.Send(Query{"SELECT 1"});
  std::vector<BackendMessage> seen;
  ASSERT_TRUE(client.ReadUntil('Z', &seen));
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].type, 'T');
  EXPECT_EQ(seen[1].type, 'D');
  EXPECT_EQ(seen[2].type, 'C');
  EXPECT_EQ(seen[2].body, std::string("SELECT 1\0", 9));
  EXPECT_EQ(seen[3].body, "I");
}

TEST(ServerTest, StartupSequence) {
  TestServer ts;
  PgClient client(ts.port());
  client.SendStartup(StartupMessage{3, 0, {{"user", "postgres"}, {"application_name", "t1"},
                                           {"options", "-c search_path=x --work-mem=4MB -cDateStyle=ISO"}}});
  std::vector<BackendMessage> seen;
  ASSERT_TRUE(client.ReadUntil('Z', &seen));
  ASSERT_GE(seen.size(), 4u);
  EXPECT_EQ(seen[0].type, 'R');
  EXPECT_EQ(GetInt32(seen[0].body, 0), 0);
  EXPECT_EQ(seen[1].type, 'S');
  EXPECT_EQ(seen[1].body, std::string("server_version\0" "15.0\0", 20));
  auto key = seen[seen.size() - 2];
  EXPECT_EQ(key.type, 'K');
  EXPECT_EQ(key.body.size(), 8u);
  EXPECT_EQ(seen.back().body, "I");
  auto options = ts.engine().LastOptions();
  EXPECT_EQ(options.user, "postgres");
  EXPECT_EQ(options.database, "postgres");  // defaults to the user
  EXPECT_TRUE(options.is_superuser);
  std::vector<std::pair<std::string, std::string>> expected = {
      {"application_name", "t1"}, {"search_path", "x"}, {"work_mem", "4MB"}, {"DateStyle", "ISO"}};
  EXPECT_EQ(options.startup_settings, expected);
  ExpectSelectOne(client);
  client.Send(Terminate{});
  EXPECT_TRUE(client.Closed());
}

TEST(ServerTest, SslAndGssRequestsAreDeclined) {
  TestServer ts;
  PgClient client(ts.port());
  client.SendStartup(SslRequest{});
  EXPECT_EQ(client.ReadByte(), 'N');
  client.SendStartup(GssEncRequest{});
  EXPECT_EQ(client.ReadByte(), 'N');
  ASSERT_TRUE(client.Login("postgres", "app"));
  ExpectSelectOne(client);

  PgClient twice(ts.port());
  twice.SendStartup(SslRequest{});
  EXPECT_EQ(twice.ReadByte(), 'N');
  twice.SendStartup(SslRequest{});
  auto fields = ExpectFatalAndClose(twice);
  EXPECT_EQ(fields['C'], "0A000");
  EXPECT_EQ(fields['M'], "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.0");
}

TEST(ServerTest, NewerMinorVersionGetsNegotiateProtocolVersion) {
  TestServer ts;
  PgClient client(ts.port());
  client.SendRaw(StartupBytes(3, 5, {{"user", "postgres"}, {"_pq_.compression", "on"}}));
  auto first = client.Read();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->type, 'v');
  EXPECT_EQ(first->body, std::string("\0\3\0\0\0\0\0\1_pq_.compression\0", 25));
  ASSERT_TRUE(client.ReadUntil('Z'));
  ExpectSelectOne(client);
}

// Every bad input gets FATAL with its SQLSTATE and a close; a healthy session is unaffected.
TEST(ServerTest, BadInputClosesOnlyThatConnection) {
  TestServer ts;
  PgClient healthy(ts.port());
  ASSERT_TRUE(healthy.Login("postgres", "postgres"));
  struct Case {
    const char* name;
    bool login_first;
    std::string bytes;
    const char* sqlstate;
    const char* message;
    bool half_close = false;
  };
  std::string long_query = Raw('Q', std::string(70000, 'x') + std::string(1, '\0'));
  std::vector<Case> cases = {
      {"protocol 2.0", false, StartupBytes(2, 0, {{"user", "postgres"}}), "0A000",
       "unsupported frontend protocol 2.0: server supports 3.0 to 3.0"},
      {"protocol 4.0", false, StartupBytes(4, 0, {{"user", "postgres"}}), "0A000",
       "unsupported frontend protocol 4.0: server supports 3.0 to 3.0"},
      {"message before startup", false, Raw('Q', std::string("SELECT 1\0", 9)), "08P01",
       "invalid length of startup packet"},
      {"startup length too small", false, std::string("\0\0\0\3", 4), "08P01",
       "invalid length of startup packet"},
      {"startup length too large", false, std::string("\0\0\x4e\x21\0\3\0\0", 8), "08P01",
       "invalid length of startup packet"},
      {"startup without terminator", false, std::string("\0\0\0\x0d\0\3\0\0user\0", 13), "08P01",
       "invalid startup packet layout: expected terminator as last byte"},
      {"no user", false, StartupBytes(3, 0, {{"database", "x"}}), "28000",
       "no PostgreSQL user name specified in startup packet"},
      {"replication", false, StartupBytes(3, 0, {{"user", "postgres"}, {"replication", "true"}}),
       "0A000", "replication connections are not supported"},
      {"garbage type", true, Raw('Z', ""), "08P01", "invalid frontend message type 90"},
      {"NUL type", true, std::string("\0\0\0\0\4", 5), "08P01", "invalid frontend message type 0"},
      {"password after login", true, Raw('p', std::string("pw\0", 3)), "08P01",
       "invalid frontend message type 112"},
      {"oversized query (header only)", true, Raw('Q', "", 1 << 30), "08P01",
       "invalid message length"},
      {"oversized query (with body)", true, long_query, "08P01", "invalid message length"},
      {"oversized sync", true, Raw('S', "", 20000), "08P01", "invalid message length"},
      {"negative length", true, Raw('Q', "", -5), "08P01", "invalid message length"},
      {"length below 4", true, Raw('S', "", 2), "08P01", "invalid message length"},
      {"malformed bind", true, Raw('B', std::string("p\0s\0\0\0\0\1\0\0\0\5ab", 14)), "08P01",
       "insufficient data left in message"},
      {"query without NUL", true, Raw('Q', "SELECT 1"), "08P01", "invalid string in message"},
      {"truncated message", true, Raw('Q', "SELECT", 100), "08P01",
       "unexpected EOF within message", true},
      {"bad describe", true, Raw('D', std::string("X\0", 2)), "08P01",
       "invalid DESCRIBE message subtype 88"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    PgClient client(ts.port());
    ASSERT_TRUE(client.connected());
    if (c.login_first) {
      ASSERT_TRUE(client.Login("postgres", "postgres"));
    }
    client.SendRaw(c.bytes);
    if (c.half_close) client.ShutdownWrite();
    auto fields = ExpectFatalAndClose(client);
    EXPECT_EQ(fields['C'], c.sqlstate);
    EXPECT_EQ(fields['M'], c.message);
    ExpectSelectOne(healthy);
  }
}

TEST(ServerTest, MessageOtherThanPasswordDuringAuthentication) {
  TestServer ts;
  PgClient client(ts.port());
  client.SendStartup(StartupMessage{3, 0, {{"user", "alice"}}});
  auto request = client.Read();
  ASSERT_TRUE(request);
  EXPECT_EQ(request->type, 'R');
  EXPECT_EQ(GetInt32(request->body, 0), 3);  // cleartext password
  client.Send(Bind{"", "", {}, {}, {}});
  auto fields = ExpectFatalAndClose(client);
  EXPECT_EQ(fields['C'], "08P01");
  EXPECT_EQ(fields['M'], "expected password response, got message type 66");
}

TEST(ServerTest, AccessRulesAndUnknownNames) {
  TestServer ts;
  struct Case {
    const char* user;
    const char* database;
    const char* sqlstate;
    const char* message;
  };
  for (Case c : {Case{"blocked", "app", "28000",
                      "pg_hba.conf rejects connection for host \"127.0.0.1\", user \"blocked\", "
                      "database \"app\""},
                 Case{"postgres", "nosuchdb", "3D000", "database \"nosuchdb\" does not exist"}}) {
    PgClient client(ts.port());
    client.SendStartup(StartupMessage{3, 0, {{"user", c.user}, {"database", c.database}}});
    auto fields = ExpectFatalAndClose(client);
    EXPECT_EQ(fields['C'], c.sqlstate);
    EXPECT_EQ(fields['M'], c.message);
  }
  TestServer narrow("role postgres superuser\nhost all postgres 127.0.0.1/32 trust\n");
  PgClient client(narrow.port());
  client.SendStartup(StartupMessage{3, 0, {{"user", "bob"}}});
  auto fields = ExpectFatalAndClose(client);
  EXPECT_EQ(fields['C'], "28000");
  EXPECT_EQ(fields['M'],
            "no pg_hba.conf entry for host \"127.0.0.1\", user \"bob\", database \"bob\"");
}

std::string Conninfo(int port, const std::string& user, const std::string& password,
                     const std::string& extra = "") {
  return "host=127.0.0.1 port=" + std::to_string(port) + " user=" + user +
         " dbname=app sslmode=disable gssencmode=disable password=" + password + " " + extra;
}

// Connects with libpq; returns "" on success, else PQerrorMessage.
std::string LibpqLogin(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string error = PQstatus(conn) == CONNECTION_OK ? "" : PQerrorMessage(conn);
  if (error.empty()) {
    PGresult* r = PQexec(conn, "SELECT 1");
    if (PQresultStatus(r) != PGRES_TUPLES_OK || std::string(PQgetvalue(r, 0, 0)) != "1") {
      error = "SELECT 1 failed";
    }
    PQclear(r);
  }
  PQfinish(conn);
  return error;
}

// The first authentication request the server sends to `user`.
int32_t AuthRequestCode(int port, const std::string& user) {
  PgClient client(port);
  client.SendStartup(StartupMessage{3, 0, {{"user", user}, {"database", "app"}}});
  auto request = client.Read();
  if (!request || request->type != 'R') return -1;
  return GetInt32(request->body, 0);
}

TEST(ServerTest, PasswordMethodsWithLibpq) {
  TestServer ts;  // password_encryption = scram-sha-256: md5 rules run SCRAM
  int port = ts.port();
  EXPECT_EQ(AuthRequestCode(port, "alice"), 3);     // cleartext password
  EXPECT_EQ(AuthRequestCode(port, "scram"), 10);    // SASL
  EXPECT_EQ(AuthRequestCode(port, "md5user"), 10);  // md5 rule, SCRAM-stored role
  EXPECT_EQ(AuthRequestCode(port, "postgres"), 0);  // trust
  EXPECT_EQ(LibpqLogin(Conninfo(port, "alice", "alicepw")), "");
  EXPECT_EQ(LibpqLogin(Conninfo(port, "scram", "scrampw")), "");
  EXPECT_EQ(LibpqLogin(Conninfo(port, "md5user", "md5pw")), "");
  for (auto [user, password] : {std::pair{"alice", "wrong"}, std::pair{"scram", "wrong"},
                                std::pair{"md5user", "wrong"}, std::pair{"ghost", "x"},
                                std::pair{"nopass", "x"}}) {
    std::string error = LibpqLogin(Conninfo(port, user, password));
    if (std::string(user) == "nopass") {
      EXPECT_EQ(error, "") << "trust rule: no password asked";
      continue;
    }
    EXPECT_NE(error.find("password authentication failed for user \"" + std::string(user) + "\""),
              std::string::npos)
        << user << ": " << error;
  }
  TestServer md5(std::string(kTestConfig) + "password_encryption = md5\n");
  EXPECT_EQ(AuthRequestCode(md5.port(), "md5user"), 5);
  EXPECT_EQ(LibpqLogin(Conninfo(md5.port(), "md5user", "md5pw")), "");
  EXPECT_NE(LibpqLogin(Conninfo(md5.port(), "md5user", "bad")).find("password authentication failed"),
            std::string::npos);
  // A scram-sha-256 rule cannot use an md5-stored secret.
  EXPECT_NE(LibpqLogin(Conninfo(md5.port(), "scram", "scrampw")).find("password authentication failed"),
            std::string::npos);
}

TEST(ServerTest, CancelStopsARunningStatement) {
  TestServer ts;
  PgClient victim(ts.port());
  victim.SendStartup(StartupMessage{3, 0, {{"user", "postgres"}}});
  std::vector<BackendMessage> seen;
  ASSERT_TRUE(victim.ReadUntil('Z', &seen));
  auto key = seen[seen.size() - 2];
  ASSERT_EQ(key.type, 'K');
  int32_t pid = GetInt32(key.body, 0);
  int32_t secret = GetInt32(key.body, 4);
  victim.Send(Query{"SLEEP"});
  while (ts.engine().sleeping.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  PgClient canceller(ts.port());
  canceller.SendStartup(CancelRequest{pid, secret});
  EXPECT_TRUE(canceller.Closed());  // no reply, just a close
  auto error = victim.Read();
  ASSERT_TRUE(error);
  ASSERT_EQ(error->type, 'E');
  auto fields = ParseFields(error->body);
  EXPECT_EQ(fields['C'], "57014");
  EXPECT_EQ(fields['S'], "ERROR");
  auto ready = victim.Read();
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->type, 'Z');
  ExpectSelectOne(victim);
}

TEST(CancelRegistryTest, OnlyTheRightSecretCancelsARunningStatement) {
  CancelRegistry registry;
  CancelTarget target;
  target.secret = 42;
  registry.Register(7, &target);
  EXPECT_FALSE(registry.Cancel(7, 42));  // idle: nothing to cancel
  EXPECT_FALSE(target.flag.IsRequested());
  {
    RunningScope running(target);
    EXPECT_FALSE(registry.Cancel(7, 41));
    EXPECT_FALSE(registry.Cancel(8, 42));
    EXPECT_FALSE(target.flag.IsRequested());
    EXPECT_TRUE(registry.Cancel(7, 42));
    EXPECT_TRUE(target.flag.IsRequested());
  }
  registry.Unregister(7);
  EXPECT_FALSE(registry.Cancel(7, 42));
}

TEST(ServerTest, CopyIn) {
  TestServer ts;
  PgClient client(ts.port());
  ASSERT_TRUE(client.Login("postgres", "postgres"));
  client.Send(Query{"COPY IN"});
  auto response = client.Read();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->type, 'G');
  EXPECT_EQ(response->body, std::string("\0\0\1\0\0", 5));
  client.Send(CopyData{"1\tone\n"});
  client.Send(server::Flush{});  // ignored during COPY, as PostgreSQL does
  client.Send(Sync{});
  client.Send(CopyData{"2\ttwo\n"});
  client.Send(CopyDone{});
  std::vector<BackendMessage> seen;
  ASSERT_TRUE(client.ReadUntil('Z', &seen));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].body, std::string("COPY 12\0", 8));
  EXPECT_EQ(ts.engine().Copied(), "1\tone\n2\ttwo\n");

  client.Send(Query{"COPY IN"});
  ASSERT_TRUE(client.ReadUntil('G'));
  client.Send(CopyData{"3\n"});
  client.Send(CopyFail{"client gave up"});
  seen.clear();
  ASSERT_TRUE(client.ReadUntil('Z', &seen));
  ASSERT_EQ(seen[0].type, 'E');
  auto fields = ParseFields(seen[0].body);
  EXPECT_EQ(fields['C'], "57014");
  EXPECT_EQ(fields['M'], "COPY from stdin failed: client gave up");

  client.Send(Query{"COPY IN"});
  ASSERT_TRUE(client.ReadUntil('G'));
  client.Send(Query{"SELECT 1"});
  seen.clear();
  ASSERT_TRUE(client.ReadUntil('Z', &seen));
  fields = ParseFields(seen[0].body);
  EXPECT_EQ(fields['C'], "08P01");
  EXPECT_EQ(fields['M'], "unexpected message type 0x51 during COPY from stdin");
  // Late copy messages after a failed COPY are ignored.
  client.Send(CopyData{"late"});
  client.Send(CopyDone{});
  ExpectSelectOne(client);
}

TEST(ServerTest, CopyInFramingErrorIsFatal) {
  TestServer ts;
  PgClient client(ts.port());
  ASSERT_TRUE(client.Login("postgres", "postgres"));
  client.Send(Query{"COPY IN"});
  ASSERT_TRUE(client.ReadUntil('G'));
  client.SendRaw(Raw('d', "", 1 << 30));
  auto fields = ExpectFatalAndClose(client);
  EXPECT_EQ(fields['C'], "08P01");
  EXPECT_EQ(fields['M'], "invalid message length");
}

TEST(ServerTest, CopyOutNoticeAndErrors) {
  TestServer ts;
  PgClient client(ts.port());
  ASSERT_TRUE(client.Login("postgres", "postgres"));
  client.Send(Query{"COPY OUT; NOTICE; BEGIN; BOGUS; SELECT 1"});
  std::vector<BackendMessage> seen;
  ASSERT_TRUE(client.ReadUntil('Z', &seen));
  std::string types;
  for (const auto& m : seen) types.push_back(m.type);
  EXPECT_EQ(types, "HddcCNCCEZ");
  EXPECT_EQ(seen[1].body, "a\n");
  auto notice = ParseFields(seen[5].body);
  EXPECT_EQ(notice['S'], "NOTICE");
  EXPECT_EQ(notice['M'], "hello");
  auto error = ParseFields(seen[8].body);
  EXPECT_EQ(error['C'], "42601");
  EXPECT_EQ(error['P'], "1");
  EXPECT_EQ(error['H'], "fake engine");
  EXPECT_EQ(seen[9].body, "E");  // failed transaction block
  client.Send(Query{""});
  seen.clear();
  ASSERT_TRUE(client.ReadUntil('Z', &seen));
  EXPECT_EQ(seen[0].type, 'I');
  EXPECT_EQ(seen.back().body, "E");
  client.Send(Query{"ROLLBACK; FATAL"});
  auto fields = ExpectFatalAndClose(client);
  EXPECT_EQ(fields['C'], "57P01");
}

TEST(ServerTest, StopEndsSessionsWithAdminShutdown) {
  TestServer ts;
  PgClient idle(ts.port());
  ASSERT_TRUE(idle.Login("postgres", "postgres"));
  PgClient busy(ts.port());
  ASSERT_TRUE(busy.Login("postgres", "postgres"));
  busy.Send(Query{"SLEEP"});
  while (ts.engine().sleeping.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ts.server().Stop();
  auto fields = ExpectFatalAndClose(idle);
  EXPECT_EQ(fields['C'], "57P01");
  EXPECT_EQ(fields['M'], "terminating connection due to administrator command");
  // The busy session's statement was cancelled; then it too was told to go.
  std::optional<BackendMessage> last;
  bool saw_cancel = false;
  while (auto m = busy.Read()) {
    if (m->type == 'E' && ParseFields(m->body)['C'] == "57014") saw_cancel = true;
    last = m;
  }
  EXPECT_TRUE(saw_cancel);
  ASSERT_TRUE(last);
  EXPECT_EQ(ParseFields(last->body)['C'], "57P01");
  PgClient late(ts.port());
  EXPECT_FALSE(late.connected());
}

}  // namespace
}  // namespace farmdb::server::testing
