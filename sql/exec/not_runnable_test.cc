// NotRunnable refuses, before binding, the constructs that parse but cannot run yet.
#include "sql/exec/not_runnable.h"

#include <gtest/gtest.h>

#include "sql/test_sink.h"

namespace farmdb::sql {
namespace {

std::optional<Error> Check(std::string_view sql) {
  auto parsed = Parse(sql);
  EXPECT_TRUE(parsed.has_value()) << sql;
  EXPECT_EQ(parsed->size(), 1u) << sql;
  return NotRunnable(parsed->front());
}

TEST(NotRunnableTest, RefusesWhatCannotRunYet) {
  const ErrorCase cases[] = {
      {"SELECT * FROM t FOR UPDATE SKIP LOCKED", "0A000", "SKIP LOCKED is not supported", 0},
      {"SELECT * FROM t WHERE a IN (SELECT a FROM u FOR SHARE OF u SKIP LOCKED)", "0A000", "SKIP LOCKED is not supported", 0},
      {"EXPLAIN ANALYZE SELECT 1", "0A000", "EXPLAIN ANALYZE is not supported yet", 0},
      {"EXPLAIN SELECT * FROM t FOR KEY SHARE SKIP LOCKED", "0A000", "SKIP LOCKED is not supported", 0},
      {"SAVEPOINT a", "0A000", "SAVEPOINT is not supported yet", 0},
      {"RELEASE a", "0A000", "RELEASE SAVEPOINT is not supported yet", 0},
      {"ROLLBACK TO a", "0A000", "ROLLBACK TO SAVEPOINT is not supported yet", 0},
      {"SELECT a FROM x FULL JOIN y ON true", "0A000", "FULL JOIN is not supported yet", 0},
  };
  for (const ErrorCase& c : cases) {
    auto e = Check(c.sql);
    ASSERT_TRUE(e.has_value()) << c.sql;
    EXPECT_EQ(e->sqlstate, c.sqlstate) << c.sql;
    EXPECT_EQ(e->message, c.message) << c.sql;
    EXPECT_EQ(e->position, c.position) << c.sql;
  }
}

TEST(NotRunnableTest, RunnableStatementsPass) {
  // Names are resolved by the binder, so missing relations and columns are not refused here.
  for (const char* sql : {"SELECT 1 WHERE true", "SET search_path = x", "SHOW ALL", "BEGIN", "COMMIT",
                          "COPY t FROM STDIN", "COPY (SELECT 1) TO STDOUT", "SELECT * FROM t", "SELECT DISTINCT a FROM t",
                          "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 1 ORDER BY 2 LIMIT 3",
                          "SELECT * FROM (SELECT 1) s JOIN t ON true", "VALUES (1)", "WITH w AS (SELECT 1) SELECT * FROM w",
                          "SELECT 1 UNION SELECT 2", "SELECT (SELECT 2), EXISTS (SELECT 1)", "SELECT 'x'::nosuchtype FROM t",
                          "INSERT INTO t VALUES (1, DEFAULT) RETURNING *", "UPDATE t SET a = 1 WHERE b = 2",
                          "DELETE FROM t", "EXPLAIN SELECT * FROM t", "SELECT 1 IN (1)", "SELECT 'a' LIKE 'b'",
                          "SELECT 1 WHERE 2 BETWEEN 1 AND 3", "DELETE FROM t WHERE a IN (1, 2)", "CREATE INDEX ON t (a)",
                          "DROP INDEX i", "CREATE SEQUENCE s", "DROP SEQUENCE s", "ALTER TABLE t ADD COLUMN b int", "TRUNCATE t",
                          "SELECT * FROM t FOR UPDATE", "SELECT * FROM t FOR NO KEY UPDATE OF t NOWAIT",
                          "SELECT * FROM t, u FOR SHARE OF t FOR KEY SHARE OF u", "EXPLAIN SELECT 1 FOR UPDATE"}) {
    EXPECT_FALSE(Check(sql).has_value()) << sql;
  }
}

}  // namespace
}  // namespace farmdb::sql
