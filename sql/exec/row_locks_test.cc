// SELECT ... FOR UPDATE / FOR SHARE through Session on a two-machine Node (bind_locking.cc,
// lock_rows_cursor.cc): the plan's LockRows node where PostgreSQL puts it, which rows are
// locked (those returned, of the tables each clause reaches), the optimistic outcome of two
// transactions locking one row (first committer wins, at every isolation), FOR SHARE's
// validation under REPEATABLE READ, system views, and READ ONLY's 25006.
#include <fmt/format.h>

#include "sql/node_session_fixture.h"

namespace farmdb::sql {
namespace {

class RowLocksTest : public NodeSessionTest {
 protected:
  void SetUp() override {
    Start(2);
    a_ = NewSession();
    b_ = NewSession();  // on the other machine
    ASSERT_EQ(Run(*a_, "CREATE TABLE t (k int PRIMARY KEY, v int)").message, "");
    ASSERT_EQ(Run(*a_, "CREATE TABLE u (k int PRIMARY KEY, w int)").message, "");
    ASSERT_EQ(Run(*a_, "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)").message, "");
    ASSERT_EQ(Run(*a_, "INSERT INTO u VALUES (1, 100), (2, 200)").message, "");
  }
  void Ok(Session& s, std::string_view sql) { ASSERT_EQ(Run(s, sql).message, "") << sql; }
  std::vector<std::string> Explain(std::string_view sql) {
    EXPECT_EQ(Run(*a_, fmt::format("EXPLAIN {}", sql)).message, "") << sql;
    std::vector<std::string> lines;
    for (auto& row : sink_.rows) lines.push_back(row[0]);
    return lines;
  }
  // Session a locks with `lock` in a block at `level` and writes u(1); session b then runs
  // `other` (autocommit); the outcome of a's COMMIT (the SQLSTATE, "" if it committed).
  std::string LockThenCommit(std::string_view level, std::string_view lock, std::string_view other) {
    EXPECT_EQ(Run(*a_, fmt::format("BEGIN ISOLATION LEVEL {}", level)).message, "");
    EXPECT_EQ(Run(*a_, lock).message, "") << lock;
    EXPECT_EQ(Run(*a_, "UPDATE u SET w = w + 1 WHERE k = 1").message, "");
    EXPECT_EQ(Run(*b_, other).message, "") << other;
    return Run(*a_, "COMMIT").sqlstate;
  }

  std::unique_ptr<Session> a_, b_;
};

TEST_F(RowLocksTest, ExplainShowsLockRowsBelowLimitAboveSort) {
  // PostgreSQL 15's shapes (COSTS OFF, without the conditions farmdb does not print yet).
  EXPECT_EQ(Explain("SELECT * FROM t WHERE k = 1 FOR UPDATE"),
            (std::vector<std::string>{"LockRows", "  ->  Index Scan using t_pkey on t"}));
  EXPECT_EQ(Explain("SELECT * FROM t ORDER BY v LIMIT 2 FOR UPDATE"),
            (std::vector<std::string>{"Limit", "  ->  LockRows", "        ->  Sort", "              ->  Seq Scan on t"}));
  EXPECT_EQ(Explain("SELECT * FROM t FOR SHARE"), (std::vector<std::string>{"LockRows", "  ->  Seq Scan on t"}));
  EXPECT_EQ(Explain("SELECT * FROM (SELECT * FROM t) s FOR KEY SHARE"),
            (std::vector<std::string>{"LockRows", "  ->  Seq Scan on t"}));
  // Nothing to lock: no node.
  EXPECT_EQ(Explain("SELECT * FROM (VALUES (1)) v(a) FOR UPDATE"), (std::vector<std::string>{"Values Scan"}));
}

TEST_F(RowLocksTest, TheLockedRowsComeOutUnchanged) {
  Ok(*a_, "SELECT * FROM t ORDER BY k LIMIT 2 FOR UPDATE");
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"1", "10"}, {"2", "20"}}));
  EXPECT_EQ(sink_.columns.size(), 2u) << "the Addr columns stay hidden";
  Ok(*a_, "SELECT t.v, u.w FROM t JOIN u USING (k) ORDER BY k FOR UPDATE OF u FOR SHARE OF t");
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"10", "100"}, {"20", "200"}}));
  Ok(*a_, "SELECT * FROM t WHERE k = 3");
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"3", "30"}}));
}

TEST_F(RowLocksTest, AConcurrentUpdateOfALockedRowFailsTheLockerAtEveryLevel) {
  // PostgreSQL would make b wait for a; farmdb lets b commit first, so a fails (40001).
  for (std::string_view level : {"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"}) {
    for (std::string_view lock : {"FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE"}) {
      EXPECT_EQ(LockThenCommit(level, fmt::format("SELECT * FROM t WHERE k = 1 {}", lock), "UPDATE t SET v = v + 1 WHERE k = 1"),
                "40001")
          << level << " " << lock;
    }
  }
}

TEST_F(RowLocksTest, OnlyTheRowsReturnedOfTheTablesNamedAreLocked) {
  const char* level = "REPEATABLE READ";
  EXPECT_EQ(LockThenCommit(level, "SELECT * FROM t WHERE k = 1 FOR UPDATE", "UPDATE t SET v = v + 1 WHERE k = 2"), "");
  EXPECT_EQ(LockThenCommit(level, "SELECT * FROM t ORDER BY k LIMIT 1 FOR UPDATE", "UPDATE t SET v = v + 1 WHERE k = 2"), "");
  EXPECT_EQ(LockThenCommit(level, "SELECT * FROM t JOIN u USING (k) WHERE k = 2 FOR UPDATE OF u",
                           "UPDATE t SET v = v + 1 WHERE k = 2"),
            "");
  EXPECT_EQ(LockThenCommit(level, "SELECT * FROM t JOIN u USING (k) WHERE k = 2 FOR UPDATE OF u",
                           "UPDATE u SET w = w + 1 WHERE k = 2"),
            "40001");
  EXPECT_EQ(LockThenCommit(level, "SELECT * FROM t WHERE k = 1", "UPDATE t SET v = v + 1 WHERE k = 1"), "")
      << "without a lock snapshot isolation lets both commit";
}

TEST_F(RowLocksTest, TwoLockersOfOneRowCannotBothCommit) {
  // Neither changes the row; still the second to commit fails, at every level (FOR UPDATE
  // excludes FOR UPDATE), while two FOR SHARE holders both commit.
  for (std::string_view level : {"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"}) {
    for (auto [lock, second] : {std::pair{"FOR UPDATE", "40001"}, std::pair{"FOR SHARE", ""}}) {
      for (Session* s : {a_.get(), b_.get()}) {
        Ok(*s, fmt::format("BEGIN ISOLATION LEVEL {}", level));
        Ok(*s, fmt::format("SELECT * FROM t WHERE k = 1 {}", lock));
      }
      Ok(*a_, "UPDATE u SET w = w + 1 WHERE k = 1");
      Ok(*b_, "UPDATE u SET w = w + 1 WHERE k = 2");
      EXPECT_EQ(Run(*a_, "COMMIT").sqlstate, "") << level << " " << lock;
      EXPECT_EQ(Run(*b_, "COMMIT").sqlstate, second) << level << " " << lock;
    }
  }
}

TEST_F(RowLocksTest, ASystemViewIsLockedAgainstDdl) {
  EXPECT_EQ(LockThenCommit("REPEATABLE READ", "SELECT relname FROM pg_class WHERE relname = 't' FOR SHARE",
                           "CREATE TABLE x1 (a int)"),
            "40001");
  EXPECT_EQ(LockThenCommit("REPEATABLE READ", "SELECT relname FROM pg_class WHERE relname = 't' FOR UPDATE",
                           "UPDATE t SET v = v + 1 WHERE k = 1"),
            "")
      << "catalog rows change only with DDL";
  EXPECT_EQ(LockThenCommit("REPEATABLE READ", "SELECT relname FROM pg_class WHERE relname = 't'", "CREATE TABLE x2 (a int)"),
            "");
}

TEST_F(RowLocksTest, ReadOnlyTransactionsRefuseRowLocksOfRelations) {
  Ok(*a_, "BEGIN READ ONLY");
  Error e = Run(*a_, "SELECT * FROM t WHERE false FOR NO KEY UPDATE");
  EXPECT_EQ(e.sqlstate, "25006");
  EXPECT_EQ(e.message, "cannot execute SELECT FOR NO KEY UPDATE in a read-only transaction");
  Ok(*a_, "ROLLBACK");
  for (auto [sql, command] : {std::pair{"SELECT * FROM t JOIN u USING (k) FOR SHARE OF t FOR UPDATE OF u", "SELECT FOR SHARE"},
                              std::pair{"SELECT * FROM t FOR SHARE OF t FOR UPDATE OF t", "SELECT FOR UPDATE"},
                              std::pair{"SELECT * FROM t WHERE k IN (SELECT k FROM u FOR KEY SHARE)", "SELECT FOR KEY SHARE"},
                              std::pair{"COPY (SELECT * FROM t FOR UPDATE) TO STDOUT", "SELECT FOR UPDATE"}}) {
    Ok(*a_, "BEGIN READ ONLY");
    e = Run(*a_, sql);
    EXPECT_EQ(e.message, fmt::format("cannot execute {} in a read-only transaction", command)) << sql;
    Ok(*a_, "ROLLBACK");
  }
  Ok(*a_, "BEGIN READ ONLY");
  Ok(*a_, "SELECT * FROM (VALUES (1)) v(a) FOR UPDATE");  // no relation locked
  Ok(*a_, "WITH c AS (SELECT * FROM t) SELECT * FROM c FOR UPDATE");
  Ok(*a_, "COMMIT");
}

}  // namespace
}  // namespace farmdb::sql
