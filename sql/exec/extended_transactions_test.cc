// The extended protocol's implicit transaction (TransactionBlock's header): the Executes up to a
// Sync are one transaction committed at Sync (PostgreSQL 15's postgres.c), except that an
// Execute which is its transaction's first statement with its Sync already received commits at
// its own end and stays retryable.
#include <fmt/format.h>

#include <thread>

#include "sql/node_session_fixture.h"

namespace farmdb::sql {
namespace {

class ExtendedTransactionsTest : public NodeSessionTest {
 protected:
  void SetUp() override {
    Start(2);
    a_ = NewSession();
    b_ = NewSession();  // on the other machine
    ASSERT_EQ(Run(*a_, "CREATE TABLE t (k int PRIMARY KEY, v int)").message, "");
    ASSERT_EQ(Run(*a_, "INSERT INTO t VALUES (1, 0)").message, "");
  }
  // Parse, Bind and Execute `sql` on `s` (the client's Sync comes separately).
  static std::expected<ExecuteResult, Error> Execute(Session& s, std::string_view sql, bool sync_follows,
                                                     RecordingSink& sink) {
    auto prepared = s.Prepare(sql, {});
    if (!prepared) return std::unexpected(prepared.error());
    auto portal = s.Bind(*prepared, {}, nullptr);
    if (!portal) return std::unexpected(portal.error());
    return s.Execute(**portal, 0, sync_follows, sink);
  }
  std::string Value(Session& s, std::string_view sql) {
    EXPECT_EQ(Run(s, sql).message, "") << sql;
    return sink_.rows.size() == 1 ? sink_.rows[0][0] : "<rows: " + std::to_string(sink_.rows.size()) + ">";
  }

  std::unique_ptr<Session> a_, b_;
  RecordingSink sink;
};

TEST_F(ExtendedTransactionsTest, TheExecutesUpToSyncCommitTogetherAtSync) {
  ASSERT_TRUE(Execute(*a_, "INSERT INTO t VALUES (2, 0)", false, sink));
  EXPECT_EQ(Value(*b_, "SELECT count(*) FROM t"), "1") << "not committed before Sync";
  // Followed by Sync, but not the transaction's first statement: still committed at Sync.
  ASSERT_TRUE(Execute(*a_, "INSERT INTO t VALUES (3, 0)", true, sink));
  EXPECT_EQ(Value(*b_, "SELECT count(*) FROM t"), "1");
  ASSERT_TRUE(a_->Sync(sink));
  EXPECT_EQ(Value(*b_, "SELECT count(*) FROM t"), "3");
  EXPECT_EQ(a_->Status(), TxnStatus::kIdle);
}

TEST_F(ExtendedTransactionsTest, AnErrorRollsBackTheExecutesBeforeIt) {
  ASSERT_TRUE(Execute(*a_, "INSERT INTO t VALUES (2, 0)", false, sink));
  auto duplicate = Execute(*a_, "INSERT INTO t VALUES (1, 0)", true, sink);
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().sqlstate, "23505");
  ASSERT_TRUE(a_->Sync(sink));
  EXPECT_EQ(Value(*b_, "SELECT count(*) FROM t"), "1");
  // An error the server raises itself (an unknown portal) too.
  ASSERT_TRUE(Execute(*a_, "INSERT INTO t VALUES (2, 0)", false, sink));
  a_->MessageFailed();
  ASSERT_TRUE(a_->Sync(sink));
  EXPECT_EQ(Value(*b_, "SELECT count(*) FROM t"), "1");
  // In a block the error fails the block, as any error does.
  ASSERT_TRUE(Execute(*a_, "BEGIN", true, sink));
  ASSERT_TRUE(a_->Sync(sink));
  a_->MessageFailed();
  EXPECT_EQ(a_->Status(), TxnStatus::kFailed);
  ASSERT_EQ(Run(*a_, "ROLLBACK").message, "");
}

TEST_F(ExtendedTransactionsTest, ACommitFailingAtSyncIs40001) {
  ASSERT_TRUE(Execute(*a_, "SET application_name = 'piped'", false, sink));
  ASSERT_TRUE(Execute(*a_, "UPDATE t SET v = v + 1 WHERE k = 1", false, sink));
  ASSERT_EQ(Run(*b_, "UPDATE t SET v = v + 10 WHERE k = 1").message, "");
  RecordingSink at_sync;
  auto synced = a_->Sync(at_sync);
  ASSERT_FALSE(synced);
  EXPECT_EQ(synced.error().sqlstate, "40001");
  EXPECT_EQ(a_->Status(), TxnStatus::kIdle);
  EXPECT_TRUE(at_sync.parameter_status.empty()) << "the SET was undone with its transaction";
  EXPECT_EQ(Value(*b_, "SELECT v FROM t"), "10");
  EXPECT_EQ(Value(*a_, "SHOW application_name"), "");
  // Committed, the SET is reported at Sync (as PostgreSQL does before ReadyForQuery).
  ASSERT_TRUE(Execute(*a_, "SET application_name = 'piped'", true, sink));
  EXPECT_TRUE(sink.parameter_status.empty());
  ASSERT_TRUE(a_->Sync(at_sync));
  EXPECT_EQ(at_sync.parameter_status, (std::vector<std::pair<std::string, std::string>>{{"application_name", "piped"}}));
}

TEST_F(ExtendedTransactionsTest, AnExecuteFollowedBySyncCommitsAtItsEnd) {
  ASSERT_TRUE(Execute(*a_, "UPDATE t SET v = 5 WHERE k = 1", true, sink));
  EXPECT_EQ(Value(*b_, "SELECT v FROM t"), "5") << "committed before Sync";
  ASSERT_TRUE(a_->Sync(sink));
}

TEST_F(ExtendedTransactionsTest, OnlyWholeTransactionsAreRetried) {
  // Two sessions on two machines increment one row. Executes with their Sync at hand are
  // retried by the server after a conflict and never fail; pipelines of two Executes commit at
  // Sync, after their first result went out, so they may fail with 40001 there (and then
  // increment nothing).
  constexpr int kRounds = 15;
  auto work = [&](Session& s, bool pipelined, std::vector<std::string>* errors, int* committed) {
    RecordingSink out;
    for (int i = 0; i < kRounds; ++i) {
      auto r = Execute(s, "UPDATE t SET v = v + 1 WHERE k = 1", !pipelined, out);
      if (r && pipelined) r = Execute(s, "SELECT 1", true, out);
      auto synced = s.Sync(out);
      if (!r) errors->push_back(r.error().sqlstate);
      else if (!synced) errors->push_back("at sync " + synced.error().sqlstate);
      else ++*committed;
    }
  };
  for (bool pipelined : {false, true}) {
    ASSERT_EQ(Run(*a_, "UPDATE t SET v = 0").message, "");
    std::vector<std::string> errors_a, errors_b;
    int committed_a = 0, committed_b = 0;
    std::thread ta([&] { work(*a_, pipelined, &errors_a, &committed_a); });
    std::thread tb([&] { work(*b_, pipelined, &errors_b, &committed_b); });
    ta.join();
    tb.join();
    for (const auto& errors : {errors_a, errors_b}) {
      if (!pipelined) {
        EXPECT_EQ(errors, std::vector<std::string>{});
      }
      for (const std::string& e : errors) EXPECT_EQ(e, "at sync 40001");
    }
    EXPECT_EQ(Value(*a_, "SELECT v FROM t"), std::to_string(committed_a + committed_b)) << pipelined;
  }
}

}  // namespace
}  // namespace farmdb::sql
