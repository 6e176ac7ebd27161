// NotRunnable keeps the errors farmdb gave before the parser modelled these statements.
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

TEST(NotRunnableTest, KeepsTodaysErrors) {
  const ErrorCase cases[] = {
      {"SELECT * FROM t", "42P01", "relation \"t\" does not exist", 15},
      {"SELECT x, 1/0 FROM s.t AS u WHERE y", "42P01", "relation \"t\" does not exist", 20},
      {"SELECT * FROM a JOIN b ON a.x = b.y", "42P01", "relation \"a\" does not exist", 15},
      {"SELECT * FROM (SELECT * FROM q) s", "42P01", "relation \"q\" does not exist", 30},
      {"SELECT * FROM (SELECT 1) s", "0A000", "this FROM item is not supported yet", 0},
      {"SELECT DISTINCT a FROM t", "0A000", "SELECT DISTINCT is not supported yet", 0},
      {"SELECT a FROM t ORDER BY a", "0A000", "ORDER BY is not supported yet", 0},
      {"SELECT a FROM t GROUP BY a", "0A000", "GROUP BY is not supported yet", 0},
      {"SELECT 1 LIMIT 1", "0A000", "LIMIT/OFFSET is not supported yet", 0},
      {"SELECT 1 FOR UPDATE", "0A000", "FOR UPDATE/SHARE is not supported yet", 0},
      {"SELECT 1 UNION SELECT 2", "0A000", "UNION/INTERSECT/EXCEPT is not supported yet", 0},
      {"VALUES (1)", "0A000", "VALUES is not supported yet", 0},
      {"WITH w AS (SELECT 1) SELECT 2", "0A000", "WITH is not supported yet", 0},
      {"SELECT *", "42601", "SELECT * with no tables specified is not valid", 8},
      {"SELECT x, 1 IN (1)", "0A000", "IN (...) is not supported yet", 13},
      {"SELECT 'a' LIKE 'b'", "0A000", "pattern matching is not supported yet", 12},
      {"SELECT 1 WHERE 2 BETWEEN 1 AND 3", "0A000", "this operator form is not supported yet", 18},
      {"SELECT count(*)", "0A000", "aggregate and window function syntax is not supported yet", 8},
      {"SELECT 1 + (SELECT 2)", "0A000", "subqueries is not supported yet", 12},
      {"SELECT EXISTS (SELECT 1)", "0A000", "subqueries is not supported yet", 8},
      {"COPY (SELECT * FROM t) TO STDOUT", "42P01", "relation \"t\" does not exist", 21},
      {"INSERT INTO t VALUES (1)", "0A000", "INSERT is not supported yet", 0},
      {"UPDATE t SET a = 1", "0A000", "UPDATE is not supported yet", 0},
      {"DELETE FROM t", "0A000", "DELETE is not supported yet", 0},
      {"EXPLAIN SELECT 1", "0A000", "EXPLAIN is not supported yet", 0},
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
  // COPY table fails later, when it runs (RunCopy), as before.
  for (const char* sql : {"SELECT 1 WHERE true", "SET search_path = x", "SHOW ALL", "BEGIN", "COMMIT",
                          "COPY t FROM STDIN", "COPY (SELECT 1) TO STDOUT",
                          "CREATE INDEX ON t (a)", "DROP INDEX i", "CREATE SEQUENCE s", "DROP SEQUENCE s",
                          "ALTER TABLE t ADD COLUMN b int", "TRUNCATE t"}) {
    EXPECT_FALSE(Check(sql).has_value()) << sql;
  }
}

}  // namespace
}  // namespace farmdb::sql
