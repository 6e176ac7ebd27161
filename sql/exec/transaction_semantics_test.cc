// Transaction semantics through Session on a Node (DESIGN.md §2; TransactionBlock's header):
// a multi-statement message is one implicit transaction, BEGIN/COMMIT inside a message follow
// PostgreSQL 15 (checked against it), only a statement that is its whole transaction is retried,
// READ COMMITTED takes a fresh snapshot per statement, READ ONLY refuses writes. Tables stand in
// for data: CREATE/DROP TABLE read and write the catalog through the session's Txn.
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "sql/exec/transaction_block.h"
#include "sql/node_session_fixture.h"

namespace farmdb::sql {
namespace {

class TransactionSemanticsTest : public NodeSessionTest {};

TEST_F(TransactionSemanticsTest, AnErrorLaterInTheMessageUndoesEarlierStatements) {
  Start(1);
  auto s = NewSession();
  Error e = Run(*s, "CREATE TABLE t (a int); SELECT 1/0");
  EXPECT_EQ(e.sqlstate, "22012");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"CREATE TABLE"});  // sent, then undone
  EXPECT_EQ(s->Status(), TxnStatus::kIdle);
  EXPECT_FALSE(HasTable("t"));
  // Without the error both statements commit together, and a later statement of the message
  // sees an earlier one's uncommitted DDL.
  ASSERT_EQ(Run(*s, "CREATE TABLE t (a int); CREATE TABLE u (a int); DROP TABLE t").message, "");
  EXPECT_FALSE(HasTable("t"));
  EXPECT_TRUE(HasTable("u"));
}

TEST_F(TransactionSemanticsTest, BeginInsideAMessageTakesInTheStatementsBeforeIt) {
  Start(1);
  auto s = NewSession();
  // PostgreSQL: "CREATE TABLE t; BEGIN; SELECT 1/0" then ROLLBACK leaves no t.
  EXPECT_EQ(Run(*s, "CREATE TABLE t (a int); BEGIN; SELECT 1/0").sqlstate, "22012");
  EXPECT_EQ(s->Status(), TxnStatus::kFailed);
  EXPECT_EQ(Run(*s, "SELECT 1").sqlstate, "25P02");
  ASSERT_EQ(Run(*s, "ROLLBACK").message, "");
  EXPECT_FALSE(HasTable("t"));

  ASSERT_EQ(Run(*s, "CREATE TABLE t (a int); BEGIN; CREATE TABLE u (a int)").message, "");
  EXPECT_EQ(s->Status(), TxnStatus::kInBlock);
  EXPECT_FALSE(HasTable("t")) << "the statement before BEGIN is part of the open block";
  ASSERT_EQ(Run(*s, "COMMIT").message, "");
  EXPECT_TRUE(HasTable("t"));
  EXPECT_TRUE(HasTable("u"));
}

TEST_F(TransactionSemanticsTest, CommitInsideAMessageCommitsWhatCameBefore) {
  Start(1);
  auto s = NewSession();
  // PostgreSQL: WARNING there is no transaction in progress; t stays; 1/0 fails on its own.
  EXPECT_EQ(Run(*s, "CREATE TABLE t (a int); COMMIT; SELECT 1/0").sqlstate, "22012");
  EXPECT_EQ(sink_.tags, (std::vector<std::string>{"CREATE TABLE", "COMMIT"}));
  ASSERT_EQ(sink_.notices.size(), 1u);
  EXPECT_EQ(sink_.notices[0].message, "there is no transaction in progress");
  EXPECT_TRUE(HasTable("t"));
  // ROLLBACK inside a message undoes what came before and the rest runs in a new one.
  ASSERT_EQ(Run(*s, "CREATE TABLE u (a int); ROLLBACK; CREATE TABLE v (a int)").message, "");
  EXPECT_EQ(sink_.tags, (std::vector<std::string>{"CREATE TABLE", "ROLLBACK", "CREATE TABLE"}));
  EXPECT_FALSE(HasTable("u"));
  EXPECT_TRUE(HasTable("v"));
}

TEST_F(TransactionSemanticsTest, SetLocalAndSetTransactionInAMessageAreInABlock) {
  Start(1);
  auto s = NewSession();
  // PostgreSQL warns only outside a transaction block; a multi-statement message is one.
  ASSERT_EQ(Run(*s, "SET LOCAL extra_float_digits = 0").message, "");
  EXPECT_EQ(sink_.notices.size(), 1u);
  ASSERT_EQ(Run(*s, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; SHOW transaction_isolation").message, "");
  EXPECT_TRUE(sink_.notices.empty());
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"repeatable read"}}));
  ASSERT_EQ(Run(*s, "SHOW transaction_isolation").message, "");
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"serializable"}}));
}

TEST_F(TransactionSemanticsTest, OnlyOneStatementTransactionsAreRetried) {
  // Two sessions on two machines run DDL at once; every DDL writes the catalog root, so their
  // transactions conflict. One-statement messages are retried by the server and never fail;
  // two-statement messages are one transaction committed after the first statement's result
  // went out, so they may fail with 40001, and then neither table exists.
  Start(2);
  auto a = NewSession();
  auto b = NewSession();
  constexpr int kRounds = 15;
  struct Outcome {
    std::vector<std::string> single_errors;
    std::vector<std::string> pair_errors;
    std::vector<int> failed_pairs;
  };
  auto work = [&](Session& s, char prefix, Outcome* out) {
    for (int i = 0; i < kRounds; ++i) {
      RecordingSink sink;
      auto r = s.SimpleQuery(fmt::format("CREATE TABLE {}s{} (a int)", prefix, i), sink);
      if (!r) out->single_errors.push_back(r.error().sqlstate + " " + r.error().message);
      r = s.SimpleQuery(fmt::format("CREATE TABLE {}p{} (a int); CREATE TABLE {}q{} (a int)", prefix, i, prefix, i), sink);
      if (!r) {
        out->pair_errors.push_back(r.error().sqlstate);
        out->failed_pairs.push_back(i);
      }
    }
  };
  Outcome oa, ob;
  std::thread ta([&] { work(*a, 'a', &oa); });
  std::thread tb([&] { work(*b, 'b', &ob); });
  ta.join();
  tb.join();
  EXPECT_EQ(oa.single_errors, std::vector<std::string>{});
  EXPECT_EQ(ob.single_errors, std::vector<std::string>{});
  for (const std::string& sqlstate : oa.pair_errors) EXPECT_EQ(sqlstate, "40001");
  for (const std::string& sqlstate : ob.pair_errors) EXPECT_EQ(sqlstate, "40001");
  auto snapshot = Snapshot(0);
  for (auto [prefix, outcome] : {std::pair{'a', &oa}, std::pair{'b', &ob}}) {
    for (int i = 0; i < kRounds; ++i) {
      bool failed = std::ranges::find(outcome->failed_pairs, i) != outcome->failed_pairs.end();
      bool p = snapshot->FindTable(storage::kPublicNamespace, fmt::format("{}p{}", prefix, i)) != nullptr;
      bool q = snapshot->FindTable(storage::kPublicNamespace, fmt::format("{}q{}", prefix, i)) != nullptr;
      EXPECT_EQ(p, !failed) << prefix << i;
      EXPECT_EQ(q, !failed) << prefix << i;
      EXPECT_NE(snapshot->FindTable(storage::kPublicNamespace, fmt::format("{}s{}", prefix, i)), nullptr);
    }
  }
}

// Runs `sql` on `other` when the first CommandComplete arrives, i.e. between the first and the
// second statement of a message.
class InterleavingSink : public RecordingSink {
 public:
  InterleavingSink(Session& other, std::string sql) : other_(other), sql_(std::move(sql)) {}
  void CommandComplete(std::string_view tag) override {
    RecordingSink::CommandComplete(tag);
    if (tags.size() != 1) return;
    RecordingSink sink;
    auto r = other_.SimpleQuery(sql_, sink);
    other_error = r ? "" : r.error().message;
  }
  std::string other_error = "not run";

 private:
  Session& other_;
  std::string sql_;
};

TEST_F(TransactionSemanticsTest, AMessagesCommitFailureReachesTheClientAfterItsResults) {
  // b commits DDL between a's two statements; both write the catalog root, so a's message
  // transaction fails at its commit, after the first statement's result went out: 40001, not
  // retried, and neither of a's tables exists.
  Start(2);
  auto a = NewSession();
  auto b = NewSession();
  InterleavingSink sink(*b, "CREATE TABLE y (a int)");
  auto r = a->SimpleQuery("CREATE TABLE p (a int); CREATE TABLE q (a int)", sink);
  EXPECT_EQ(sink.other_error, "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().sqlstate, "40001");
  EXPECT_EQ(sink.tags, (std::vector<std::string>{"CREATE TABLE", "CREATE TABLE"}));
  EXPECT_EQ(a->Status(), TxnStatus::kIdle);
  EXPECT_FALSE(HasTable("p"));
  EXPECT_FALSE(HasTable("q"));
  EXPECT_TRUE(HasTable("y"));
  // The same interleaving around one-statement messages conflicts with nothing: each commits
  // before its CommandComplete.
  InterleavingSink single(*b, "CREATE TABLE z (a int)");
  ASSERT_TRUE(a->SimpleQuery("CREATE TABLE p (a int)", single));
  EXPECT_EQ(single.other_error, "");
  EXPECT_TRUE(HasTable("p"));
  EXPECT_TRUE(HasTable("z"));
}

TEST_F(TransactionSemanticsTest, AStatementThatFailsAnalysisLeavesNoTransactionBehind) {
  // Name lookup reads the catalog in the session's Txn before the statement starts; when it
  // fails, that Txn must end with it, or the next statement would read at its old R.
  Start(2);
  auto a = NewSession();
  auto b = NewSession();
  EXPECT_EQ(Run(*a, "SELECT x FROM missing").sqlstate, "42P01");
  ASSERT_EQ(Run(*b, "CREATE TABLE t (x int)").message, "");
  ASSERT_EQ(Run(*b, "INSERT INTO t VALUES (1)").message, "");
  ASSERT_EQ(Run(*a, "SELECT x FROM t").message, "");
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"1"}}));
}

TEST_F(TransactionSemanticsTest, ReadCommittedSeesCommitsBetweenStatements) {
  Start(2);
  auto reader = NewSession();
  auto writer = NewSession();
  for (std::string_view level : {"READ COMMITTED", "REPEATABLE READ"}) {
    ASSERT_EQ(Run(*reader, fmt::format("BEGIN ISOLATION LEVEL {}; DROP TABLE IF EXISTS q", level)).message, "");
    ASSERT_EQ(sink_.notices.size(), 1u);
    EXPECT_EQ(sink_.notices[0].message, "table \"q\" does not exist, skipping");
    ASSERT_EQ(Run(*writer, "CREATE TABLE q (a int)").message, "");
    ASSERT_EQ(Run(*reader, "DROP TABLE IF EXISTS q").message, "");
    if (level == "READ COMMITTED") {
      // A fresh snapshot: q is there, and dropping it does not conflict with its creation.
      EXPECT_TRUE(sink_.notices.empty()) << level;
      ASSERT_EQ(Run(*reader, "COMMIT").message, "");
      EXPECT_FALSE(HasTable("q"));
    } else {
      // The snapshot of the first statement: q is still missing.
      ASSERT_EQ(sink_.notices.size(), 1u) << level;
      ASSERT_EQ(Run(*reader, "COMMIT").message, "");
      EXPECT_TRUE(HasTable("q"));
      ASSERT_EQ(Run(*writer, "DROP TABLE q").message, "");
    }
  }
}

TEST_F(TransactionSemanticsTest, ReadCommittedWriteBeforeAConcurrentCommitFails) {
  // First committer wins across statements: a's CREATE TABLE wrote the catalog before b's
  // commit, so a's COMMIT fails although its later statements ran on fresh snapshots. Only
  // UPDATEs are re-applied to the newest version (TransactionBlock's header), not DDL.
  Start(2);
  auto a = NewSession();
  auto b = NewSession();
  ASSERT_EQ(Run(*a, "BEGIN ISOLATION LEVEL READ COMMITTED; CREATE TABLE x (a int)").message, "");
  ASSERT_EQ(Run(*b, "CREATE TABLE y (a int)").message, "");
  ASSERT_EQ(Run(*a, "DROP TABLE IF EXISTS z").message, "");
  Error e = Run(*a, "COMMIT");
  EXPECT_EQ(e.sqlstate, "40001");
  EXPECT_EQ(a->Status(), TxnStatus::kIdle);
  EXPECT_FALSE(HasTable("x"));
  EXPECT_TRUE(HasTable("y"));
}

TEST_F(TransactionSemanticsTest, ReadCommittedReappliesConcurrentIncrementsAtCommit) {
  // Sessions on two machines run pgbench's TPC-B shape: a block that adds to two shared rows and
  // inserts a row of its own, one statement per message. At READ COMMITTED a commit re-applies
  // the increments others made stale (TransactionBlock's header), so blocks commit where first
  // committer wins would fail them; at REPEATABLE READ those fail with 40001. At both levels
  // every committed block, and only those, is counted in the shared rows.
  Start(2);
  auto setup = NewSession();
  ASSERT_EQ(Run(*setup, "CREATE TABLE c (k int PRIMARY KEY, n int); CREATE TABLE h (s int, i int)").message, "");
  constexpr int kSessions = 4, kBlocks = 40;
  auto stale_returns = [&] {
    uint64_t total = 0;
    for (int m = 0; m < 2; ++m) total += node_->NewWorker(m)->engine().counters().stale_write_returns.load();
    return total;
  };
  // One round at `level`: the blocks committed and failed.
  auto round = [&](std::string_view level) {
    EXPECT_EQ(Run(*setup, "DELETE FROM c; DELETE FROM h; INSERT INTO c VALUES (1, 0), (2, 0)").message, "");
    std::vector<std::unique_ptr<Session>> sessions;
    for (int i = 0; i < kSessions; ++i) sessions.push_back(NewSession());
    std::vector<int> committed(kSessions, 0);
    std::vector<std::vector<std::string>> errors(kSessions);
    std::vector<std::thread> threads;
    for (int i = 0; i < kSessions; ++i) {
      threads.emplace_back([&, i] {
        Session& s = *sessions[i];
        for (int b = 0; b < kBlocks; ++b) {
          RecordingSink sink;
          std::vector<std::string> block = {
              fmt::format("BEGIN ISOLATION LEVEL {}", level), "UPDATE c SET n = n + 1 WHERE k = 1",
              "UPDATE c SET n = n + 1 WHERE k = 2", fmt::format("INSERT INTO h VALUES ({}, {})", i, b), "COMMIT"};
          bool ok = true;
          for (const std::string& sql : block) {
            auto r = s.SimpleQuery(sql, sink);
            if (r) continue;
            errors[i].push_back(r.error().sqlstate);
            ok = false;
            if (sql != "COMMIT") (void)s.SimpleQuery("ROLLBACK", sink);
            break;
          }
          committed[i] += ok ? 1 : 0;
        }
      });
    }
    for (auto& t : threads) t.join();
    int total = 0, failed = 0;
    for (int i = 0; i < kSessions; ++i) {
      total += committed[i];
      failed += static_cast<int>(errors[i].size());
      for (const std::string& sqlstate : errors[i]) EXPECT_EQ(sqlstate, "40001");
    }
    EXPECT_EQ(Run(*setup, "SELECT n FROM c ORDER BY k").message, "");
    std::vector<std::vector<std::string>> want = {{std::to_string(total)}, {std::to_string(total)}};
    EXPECT_EQ(sink_.rows, want) << level << ": an increment was lost, or one of a failed block survived";
    EXPECT_EQ(Run(*setup, "SELECT count(*) FROM h").message, "");
    EXPECT_EQ(sink_.rows, std::vector<std::vector<std::string>>{{std::to_string(total)}}) << level;
    return std::pair{total, failed};
  };

  uint64_t before = stale_returns();
  round("REPEATABLE READ");
  EXPECT_EQ(stale_returns(), before) << "REPEATABLE READ must not re-apply";
  // Rounds until some commit re-applied: on a loaded machine the sessions may happen to run
  // one after another.
  for (int i = 0; i < 10 && stale_returns() == before; ++i) {
    auto [total, failed] = round("READ COMMITTED");
    // A block fails only when its commit runs out of tries (txn::Txn::kMaxCommitTries).
    EXPECT_LT(failed, total) << failed << " of " << kSessions * kBlocks << " blocks failed";
  }
  EXPECT_GT(stale_returns(), before) << "no commit re-applied anything: the sessions never conflicted";
}

TEST_F(TransactionSemanticsTest, ReadCommittedUpdateDoesNotFollowARowMovedToAnotherKey) {
  // b moves the row a's UPDATE is about to write to another key. The move rewrote the primary
  // key's leaf that a's lookup read, so a's COMMIT fails (first committer wins) instead of
  // re-applying the UPDATE to the row at k = 3. Were that read not validated, the re-application
  // would still test the whole WHERE, k = 1 included, on the newest version
  // (TableScanNode::index_condition).
  Start(1);
  auto a = NewSession();
  auto b = NewSession();
  ASSERT_EQ(Run(*a, "CREATE TABLE r (k int PRIMARY KEY, n int); INSERT INTO r VALUES (1, 0), (2, 0)").message, "");
  ASSERT_EQ(Run(*a, "BEGIN ISOLATION LEVEL READ COMMITTED; UPDATE r SET n = n + 1 WHERE k = 1").message, "");
  ASSERT_EQ(Run(*b, "UPDATE r SET k = 3 WHERE k = 1").message, "");
  EXPECT_EQ(Run(*a, "COMMIT").sqlstate, "40001");
  ASSERT_EQ(Run(*a, "SELECT k, n FROM r ORDER BY k").message, "");
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"2", "0"}, {"3", "0"}}));
}

TEST_F(TransactionSemanticsTest, ReadOnlyTransactionsRefuseDdlBeforeLookingUpNames) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "SET default_transaction_read_only = on").message, "");
  Error e = Run(*s, "CREATE TABLE t (a int)");
  EXPECT_EQ(e.sqlstate, "25006");
  EXPECT_EQ(e.message, "cannot execute CREATE TABLE in a read-only transaction");
  e = Run(*s, "DROP TABLE missing");
  EXPECT_EQ(e.sqlstate, "25006");
  EXPECT_EQ(e.message, "cannot execute DROP TABLE in a read-only transaction");
  ASSERT_EQ(Run(*s, "BEGIN READ WRITE; CREATE TABLE t (a int); COMMIT").message, "");
  EXPECT_TRUE(HasTable("t"));
}

TEST_F(TransactionSemanticsTest, ImportedSnapshotsReadAtTheExportersTimestamp) {
  Start(2);
  auto exporter = NewSession();
  auto writer = NewSession();
  auto importer = NewSession();
  ASSERT_EQ(Run(*exporter, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT pg_export_snapshot(), pg_export_snapshot()").message, "");
  ASSERT_EQ(sink_.rows.size(), 1u);
  std::string id = sink_.rows[0][0];
  EXPECT_EQ(id.size(), 25u) << id;
  EXPECT_EQ(id.find_first_not_of("0123456789ABCDEF-"), std::string::npos) << id;
  EXPECT_NE(sink_.rows[0][1], id) << "each export has its own identifier";
  ASSERT_EQ(Run(*writer, "CREATE TABLE late (a int)").message, "");

  // The import maps to a stale snapshot read at the exporter's R: the table committed since is
  // not there. Driven through a TransactionBlock to read the catalog in the importing Txn.
  {
    Settings settings = *Settings::Create(SessionOptions{});
    auto worker = node_->NewWorker(1);
    TransactionBlock block(settings, worker.get(), &node_->Snapshots());
    block.StartStatement();
    ASSERT_FALSE(block.Begin().has_value());
    ASSERT_TRUE(settings.Set("transaction_isolation", "repeatable read", true));
    ASSERT_TRUE(settings.Set("transaction_read_only", "on", true));
    ASSERT_TRUE(block.ImportSnapshot(id));
    auto t = block.Txn();
    ASSERT_TRUE(t);
    auto catalog = node_->Catalog(1).Snapshot(**t);
    ASSERT_TRUE(catalog);
    EXPECT_EQ((*catalog)->FindTable(storage::kPublicNamespace, "late"), nullptr);
    EXPECT_EQ(block.Rollback().tag, "ROLLBACK");
  }
  EXPECT_TRUE(HasTable("late"));

  // PostgreSQL's checks and errors (snapmgr.c ImportSnapshot), then farmdb's read-only limit.
  auto import = [&](std::string_view begin, const std::string& snapshot) {
    Error e = Run(*importer, fmt::format("{}; SET TRANSACTION SNAPSHOT '{}'", begin, snapshot));
    EXPECT_EQ(Run(*importer, "ROLLBACK").message, "");
    return e;
  };
  Error e = import("BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY", id);
  EXPECT_EQ(e.sqlstate, "0A000");
  EXPECT_EQ(e.message, "a snapshot-importing transaction must have isolation level SERIALIZABLE or REPEATABLE READ");
  e = import("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "abc");
  EXPECT_EQ(e.sqlstate, "22023");
  EXPECT_EQ(e.message, "invalid snapshot identifier: \"abc\"");
  e = import("BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY", id);
  EXPECT_EQ(e.message, "a serializable transaction cannot import a snapshot from a non-serializable transaction");
  e = import("BEGIN ISOLATION LEVEL REPEATABLE READ", id);
  EXPECT_EQ(e.sqlstate, "0A000");
  EXPECT_EQ(e.message, "cannot import a snapshot into a read-write transaction");
  ASSERT_EQ(Run(*importer, fmt::format("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '{}'", id)).message, "");
  e = Run(*importer, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
  EXPECT_EQ(e.message, "SET TRANSACTION ISOLATION LEVEL must be called before any query");
  ASSERT_EQ(Run(*importer, "ROLLBACK").message, "");

  // The identifier dies with the exporting transaction.
  ASSERT_EQ(Run(*exporter, "COMMIT").message, "");
  e = import("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", id);
  EXPECT_EQ(e.sqlstate, "22023");
  // A READ COMMITTED transaction's R moves at every statement: nothing to export.
  e = Run(*exporter, "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_export_snapshot()");
  EXPECT_EQ(e.sqlstate, "0A000");
  ASSERT_EQ(Run(*exporter, "ROLLBACK").message, "");
}

}  // namespace
}  // namespace farmdb::sql
