// The extended query protocol: statements and portals by name, row limits, errors skipping to
// Sync, portal lifetime, and output buffering (one write per pipelined batch).
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <spdlog/sinks/null_sink.h>

#include "server/connection.h"
#include "server/protocol/codec.h"
#include "server/testing/pg_client.h"
#include "server/testing/test_server.h"

namespace farmdb::server::testing {
namespace {

// Sends a batch in one write and returns the type letters of the replies up to ReadyForQuery.
std::string Batch(PgClient& client, const std::vector<FrontendMessage>& messages,
                  std::vector<BackendMessage>* seen = nullptr) {
  std::string bytes;
  for (const auto& m : messages) EncodeMessage(m, bytes);
  client.SendRaw(bytes);
  std::vector<BackendMessage> local;
  auto& out = seen ? *seen : local;
  out.clear();
  if (!client.ReadUntil('Z', &out)) return "<closed>";
  std::string types;
  for (const auto& m : out) types.push_back(m.type);
  return types;
}

std::string Code(const BackendMessage& m) { return ParseFields(m.body)['C']; }
std::string Message(const BackendMessage& m) { return ParseFields(m.body)['M']; }

class ExtendedTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(client_.Login("postgres", "postgres")); }
  TestServer server_;
  PgClient client_{server_.port()};
};

TEST_F(ExtendedTest, ParseBindDescribeExecuteSync) {
  std::vector<BackendMessage> seen;
  EXPECT_EQ(Batch(client_,
                  {Parse{"s1", "SELECT $1", {}}, Describe{'S', "s1"},
                   Bind{"", "s1", {}, {std::string_view("hi")}, {}}, Describe{'P', ""},
                   Execute{"", 0}, Sync{}},
                  &seen),
            "1tT2TDCZ");
  EXPECT_EQ(seen[1].body, std::string("\0\1\0\0\0\x19", 6));  // one text parameter
  EXPECT_EQ(seen[5].body, std::string("\0\1\0\0\0\2hi", 8));
  EXPECT_EQ(seen[6].body, std::string("SELECT 1\0", 9));
  // A statement with no result columns describes as NoData; an empty one executes as 'I'.
  EXPECT_EQ(Batch(client_, {Parse{"", "BEGIN", {}}, Describe{'S', ""}, Bind{}, Describe{'P', ""},
                            Execute{"", 0}, Parse{"", "", {}}, Bind{}, Execute{"", 0}, Sync{}}),
            "1tn2nC12IZ");
  EXPECT_EQ(Batch(client_, {Query{"COMMIT"}}), "CZ");
}

TEST_F(ExtendedTest, RowLimitSuspendsThePortal) {
  std::vector<BackendMessage> seen;
  EXPECT_EQ(Batch(client_,
                  {Parse{"", "ROWS 5", {}}, Bind{"p", "", {}, {}, {}}, Execute{"p", 2},
                   Execute{"p", 2}, Execute{"p", 2}, Sync{}},
                  &seen),
            "12DDsDDsDCZ");
  EXPECT_EQ(seen[8].body, std::string("\0\1\0\0\0\0015", 7));
  // Portals end with their transaction: after Sync outside a block "p" is gone.
  EXPECT_EQ(Batch(client_, {Execute{"p", 0}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(Code(seen[0]), "34000");
  EXPECT_EQ(Message(seen[0]), "portal \"p\" does not exist");
}

TEST_F(ExtendedTest, PortalsSurviveSyncInsideATransactionBlock) {
  EXPECT_EQ(Batch(client_, {Query{"BEGIN"}}), "CZ");
  std::vector<BackendMessage> seen;
  EXPECT_EQ(Batch(client_, {Parse{"", "ROWS 3", {}}, Bind{"p", "", {}, {}, {}}, Execute{"p", 1}, Sync{}},
                  &seen),
            "12DsZ");
  EXPECT_EQ(seen.back().body, "T");
  EXPECT_EQ(Batch(client_, {Execute{"p", 0}, Sync{}}), "DDCZ");
  EXPECT_EQ(Batch(client_, {Query{"COMMIT"}}), "CZ");
  EXPECT_EQ(Batch(client_, {Execute{"p", 0}, Sync{}}), "EZ");
}

TEST_F(ExtendedTest, NamedStatementRules) {
  std::vector<BackendMessage> seen;
  // Unnamed statements are replaced silently; a named one cannot be redefined.
  EXPECT_EQ(Batch(client_, {Parse{"", "SELECT 1", {}}, Parse{"", "ROWS 2", {}}, Parse{"s", "SELECT 1", {}},
                            Sync{}}),
            "111Z");
  EXPECT_EQ(Batch(client_, {Parse{"s", "ROWS 2", {}}, Bind{"", "s", {}, {}, {}}, Execute{"", 0}, Sync{}},
                  &seen),
            "EZ");  // everything after the error is skipped until Sync
  EXPECT_EQ(Code(seen[0]), "42P05");
  EXPECT_EQ(Message(seen[0]), "prepared statement \"s\" already exists");
  EXPECT_EQ(ParseFields(seen[0].body)['S'], "ERROR");
  EXPECT_EQ(Batch(client_, {Bind{"", "s", {}, {}, {}}, Execute{"", 0}, Sync{}}), "2DCZ");
  // Close, including of names that do not exist.
  EXPECT_EQ(Batch(client_, {Close{'S', "s"}, Close{'S', "nope"}, Close{'P', "nope"}, Sync{}}), "333Z");
  EXPECT_EQ(Batch(client_, {Describe{'S', "s"}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(Code(seen[0]), "26000");
  EXPECT_EQ(Message(seen[0]), "prepared statement \"s\" does not exist");
  EXPECT_EQ(Batch(client_, {Bind{"", "gone", {}, {}, {}}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(Code(seen[0]), "26000");
  EXPECT_EQ(Batch(client_, {Describe{'P', "x"}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(Code(seen[0]), "34000");
  // Named portals must be unique while they live.
  EXPECT_EQ(Batch(client_, {Query{"BEGIN"}}), "CZ");
  EXPECT_EQ(Batch(client_, {Parse{"", "SELECT 1", {}}, Bind{"p", "", {}, {}, {}}, Bind{"p", "", {}, {}, {}},
                            Sync{}},
                  &seen),
            "12EZ");
  EXPECT_EQ(Code(seen[2]), "42P03");
  EXPECT_EQ(seen.back().body, "E") << "an error fails the block (PostgreSQL 15 too)";
}

TEST_F(ExtendedTest, BindChecks) {
  std::vector<BackendMessage> seen;
  EXPECT_EQ(Batch(client_, {Parse{"e", "SELECT $1", {}}, Bind{"", "e", {}, {}, {}}, Sync{}}, &seen), "1EZ");
  EXPECT_EQ(Code(seen[1]), "08P01");
  EXPECT_EQ(Message(seen[1]), "bind message supplies 0 parameters, but prepared statement \"e\" requires 1");
  EXPECT_EQ(Batch(client_, {Bind{"", "e", {7}, {std::string_view("x")}, {}}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(Code(seen[0]), "22023");
  EXPECT_EQ(Message(seen[0]), "unsupported format code: 7");
  EXPECT_EQ(Batch(client_, {Bind{"", "e", {}, {std::string_view("x")}, {0, 0}}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(Message(seen[0]), "bind message has 2 result formats but query has 1 columns");
  // NULL parameter and binary result format.
  EXPECT_EQ(Batch(client_, {Bind{"", "e", {}, {std::nullopt}, {1}}, Describe{'P', ""}, Execute{"", 0}, Sync{}},
                  &seen),
            "2TDCZ");
  EXPECT_EQ(seen[1].body.back(), '\1');  // format code of the column: binary
  EXPECT_EQ(seen[2].body, std::string("\0\1\xff\xff\xff\xff", 6));
  // A parse error; the session keeps working afterwards.
  EXPECT_EQ(Batch(client_, {Parse{"", "ERROR", {}}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(Code(seen[0]), "42601");
  EXPECT_EQ(Batch(client_, {Query{"SELECT 1"}}), "TDCZ");
}

// A Bind's values are views into the connection's body buffer: the session copies them at Bind,
// so the Execute after it (read into the same buffer) and a Bind large enough for the buffer to
// be given back after it (over 64 KiB) still see the values sent.
TEST(ExtendedBodyBufferTest, BoundValuesSurviveTheMessagesAfterTheBind) {
  std::string config = kTestConfig;
  config.replace(config.find("max_message_size = 65536"), 24, "max_message_size = 1MB");
  TestServer server(config);
  PgClient client(server.port());
  ASSERT_TRUE(client.Login("postgres", "postgres"));
  const std::string big(200 << 10, 'v');
  std::vector<BackendMessage> seen;
  EXPECT_EQ(Batch(client,
                  {Parse{"s", "SELECT $1", {}}, Bind{"big", "s", {}, {std::string_view(big)}, {}},
                   Bind{"small", "s", {}, {std::string_view("tiny")}, {}}, Execute{"big", 0},
                   Execute{"small", 0}, Sync{}},
                  &seen),
            "122DCDCZ");
  ASSERT_EQ(seen.size(), 8u);
  std::string big_row("\0\1", 2);
  PutInt32(big_row, static_cast<int32_t>(big.size()));
  big_row += big;
  EXPECT_TRUE(seen[3].body == big_row) << "the large value came back changed";
  EXPECT_EQ(seen[5].body, std::string("\0\1\0\0\0\4tiny", 10));
}

TEST_F(ExtendedTest, ACommitFailingAtSyncIsReportedBeforeReadyForQuery) {
  // The Executes up to Sync are one transaction, committed at Sync (postgres.c
  // finish_xact_command); its failure follows their results.
  std::vector<BackendMessage> seen;
  EXPECT_EQ(Batch(client_,
                  {Parse{"", "FAIL AT SYNC", {}}, Bind{}, Execute{"", 0}, Parse{"", "SELECT 1", {}}, Bind{},
                   Execute{"", 0}, Sync{}},
                  &seen),
            "12C12DCNEZ");
  EXPECT_EQ(Code(seen[8]), "40001");
  EXPECT_EQ(seen.back().body, "I");
  EXPECT_EQ(Batch(client_, {Query{"SELECT 1"}}), "TDCZ");
}

TEST_F(ExtendedTest, AnErrorOfTheServersOwnFailsTheTransaction) {
  // postgres.c aborts the transaction at any error: the Executes before it roll back, a block
  // fails (checked on PostgreSQL 15), so the session hears of the server's own errors too.
  std::vector<BackendMessage> seen;
  EXPECT_EQ(Batch(client_, {Parse{"", "SELECT 1", {}}, Bind{}, Execute{"", 0}, Execute{"nope", 0}, Sync{}}, &seen),
            "12DCEZ");
  EXPECT_EQ(Code(seen[4]), "34000");
  auto events = server_.engine().Events();
  EXPECT_EQ(std::vector<std::string>(events.end() - 3, events.end()),
            (std::vector<std::string>{"SELECT 1", "MessageFailed", "Sync"}));
  EXPECT_EQ(Batch(client_, {Query{"BEGIN"}}), "CZ");
  EXPECT_EQ(Batch(client_, {Describe{'S', "nope"}, Sync{}}, &seen), "EZ");
  EXPECT_EQ(seen.back().body, "E");
  EXPECT_EQ(Batch(client_, {Query{"ROLLBACK"}}), "CZ");
}

TEST_F(ExtendedTest, FlushSendsWithoutSync) {
  std::string bytes;
  EncodeMessage(Parse{"", "SELECT 1", {}}, bytes);
  EncodeMessage(server::Flush{}, bytes);
  client_.SendRaw(bytes);
  auto reply = client_.Read();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->type, '1');
  EXPECT_EQ(Batch(client_, {Sync{}}), "Z");
}

TEST_F(ExtendedTest, MessagesSkippedUntilSyncAreNotDecoded) {
  // postgres.c reads a skipped message whole but never looks inside it, so after an error a Bind
  // too short to decode is dropped with the rest instead of ending the connection.
  auto malformed_bind = [](std::string& out) {
    out += 'B';
    PutInt32(out, 4 + 3);
    out.append("p\0s", 3);  // the statement name has no terminator
  };
  std::string bytes;
  EncodeMessage(Bind{"", "gone", {}, {}, {}}, bytes);
  malformed_bind(bytes);
  EncodeMessage(Sync{}, bytes);
  client_.SendRaw(bytes);
  std::vector<BackendMessage> seen;
  ASSERT_TRUE(client_.ReadUntil('Z', &seen));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(Code(seen[0]), "26000");
  EXPECT_EQ(Batch(client_, {Query{"SELECT 1"}}), "TDCZ");
  // Not skipped, the same Bind is a protocol violation.
  bytes.clear();
  malformed_bind(bytes);
  client_.SendRaw(bytes);
  auto fatal = client_.Read();
  ASSERT_TRUE(fatal);
  EXPECT_EQ(fatal->type, 'E');
  EXPECT_EQ(Code(*fatal), "08P01");
  EXPECT_EQ(Message(*fatal), "invalid string in message");
}

TEST(ExtendedLibpqTest, PreparedStatementsAndPipelineMode) {
  TestServer server;
  std::string conninfo = "host=127.0.0.1 port=" + std::to_string(server.port()) +
                         " user=postgres dbname=postgres sslmode=disable gssencmode=disable";
  PGconn* conn = PQconnectdb(conninfo.c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
  const char* values[] = {"hello"};
  PGresult* r = PQexecParams(conn, "SELECT $1", 1, nullptr, values, nullptr, nullptr, 0);
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  EXPECT_STREQ(PQgetvalue(r, 0, 0), "hello");
  PQclear(r);
  ASSERT_EQ(PQenterPipelineMode(conn), 1);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(PQsendQueryParams(conn, "SELECT $1", 1, nullptr, values, nullptr, nullptr, 0), 1);
  }
  ASSERT_EQ(PQpipelineSync(conn), 1);
  int tuples = 0;
  int syncs = 0;
  while (syncs == 0) {
    r = PQgetResult(conn);
    if (!r) continue;  // end of one query's results
    if (PQresultStatus(r) == PGRES_TUPLES_OK) ++tuples;
    if (PQresultStatus(r) == PGRES_PIPELINE_SYNC) ++syncs;
    ASSERT_NE(PQresultStatus(r), PGRES_FATAL_ERROR) << PQresultErrorMessage(r);
    PQclear(r);
  }
  EXPECT_EQ(tuples, 3);
  PQfinish(conn);
}

// A Channel in memory: all input up front, counting writes.
class MemoryChannel : public Channel {
 public:
  explicit MemoryChannel(std::string input) : input_(std::move(input)) {}
  ReadStatus ReadExact(char* out, size_t n) override {
    if (input_.size() - offset_ < n) return ReadStatus::kClosed;
    std::memcpy(out, input_.data() + offset_, n);
    offset_ += n;
    return ReadStatus::kOk;
  }
  bool WriteAll(std::string_view bytes) override {
    writes.emplace_back(bytes);
    return true;
  }
  std::string_view Buffered() const override { return std::string_view(input_).substr(offset_); }
  std::vector<std::string> writes;

 private:
  std::string input_;
  size_t offset_ = 0;
};

// Runs a Connection over `messages` (after a trust startup), all received at once; the writes.
std::vector<std::string> RunConnection(FakeEngine& engine, const std::vector<FrontendMessage>& messages) {
  Config config = DefaultConfig();
  auto secrets = DeriveRoleSecrets(config);
  CancelRegistry registry;
  spdlog::logger log("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  std::string input;
  EncodeStartupPacket(StartupMessage{3, 0, {{"user", "postgres"}}}, input);
  for (const auto& m : messages) EncodeMessage(m, input);
  MemoryChannel channel(input);
  {
    Connection connection({&config, &secrets, &engine, &registry, &log}, channel, 1,
                          *IpAddress::Parse("127.0.0.1"), "127.0.0.1");
    connection.Run();
  }
  return channel.writes;
}

TEST(ConnectionTest, PipelinedBatchIsOneWrite) {
  FakeEngine engine;
  std::vector<FrontendMessage> batch;
  for (int i = 0; i < 10; ++i) {
    batch.push_back(Parse{"", "SELECT 1", {}});
    batch.push_back(Bind{});
    batch.push_back(Execute{"", 0});
  }
  batch.push_back(Sync{});
  auto writes = RunConnection(engine, batch);
  // One write for the startup replies, one for the whole batch.
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[1].size(), 10 * (5 + 5 + 12 + 14) + 6u);
}

TEST(ConnectionTest, AnExecuteKnowsWhetherItsSyncIsAlreadyHere) {
  // Session::Execute's sync_follows: only an Execute whose next message, already received, is
  // Sync (the statement may then be its transaction's whole).
  FakeEngine engine;
  RunConnection(engine, {Parse{"", "SELECT 1", {}}, Bind{}, Execute{"", 0}, Sync{},
                         Bind{}, Execute{"", 0}, Bind{}, Execute{"", 0}, Sync{},
                         Bind{}, Execute{"", 0}, server::Flush{}, Sync{}});
  EXPECT_EQ(engine.Events(), (std::vector<std::string>{"SELECT 1 (sync follows)", "Sync", "SELECT 1",
                                                       "SELECT 1 (sync follows)", "Sync", "SELECT 1", "Sync"}));
}

}  // namespace
}  // namespace farmdb::server::testing
