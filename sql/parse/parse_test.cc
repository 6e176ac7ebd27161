// Parse + transform: every modelled statement form printed through ast_print, the fields later
// stages rely on (locations, typmods as written, output names), and the refusals: 42601 for
// syntax errors with their position, 0A000 naming what farmdb does not model.
#include <gtest/gtest.h>

#include "sql/bind/binder.h"

#include "sql/exec/not_runnable.h"
#include "sql/parse/ast.h"
#include "sql/parse/ast_print.h"

namespace farmdb::sql {
namespace {

// The single statement of `sql`, printed; a refusal prints as "UNSUPPORTED <state>: <message>".
std::string P(std::string_view sql) {
  auto parsed = Parse(sql);
  if (!parsed) return "ERROR " + parsed.error().sqlstate + ": " + parsed.error().message;
  EXPECT_EQ(parsed->size(), 1u) << sql;
  if (parsed->size() != 1) return "";
  return ToString(parsed->front().node);
}

// The error of a statement that must not parse into a runnable AST: a syntax error, a refused
// statement (UnsupportedStmt), or a refused expression (kError, raised by analysis).
Error Refusal(std::string_view sql) {
  auto parsed = Parse(sql);
  if (!parsed) return parsed.error();
  EXPECT_EQ(parsed->size(), 1u) << sql;
  const Statement& statement = parsed->front();
  if (const auto* unsupported = std::get_if<UnsupportedStmt>(&statement.node)) return unsupported->error;
  if (auto refused = NotRunnable(statement)) return *refused;
  // An expression the transform could not model is raised by the binder when it reaches it.
  const auto* select = std::get_if<SelectStmt>(&statement.node);
  EXPECT_NE(select, nullptr) << sql << " parsed as " << ToString(statement.node);
  if (select == nullptr) return Error{};
  std::vector<TypeId> params;
  TextOptions options;
  Binder binder(*statement.source, params, 0, options);
  auto bound = binder.BindQuery(*select);
  EXPECT_FALSE(bound.has_value()) << sql;
  return bound ? Error{} : bound.error();
}

template <typename T>
T Node(std::string_view sql) {
  auto parsed = Parse(sql);
  EXPECT_TRUE(parsed.has_value()) << sql;
  EXPECT_EQ(parsed->size(), 1u);
  EXPECT_TRUE(std::holds_alternative<T>(parsed->front().node)) << ToString(parsed->front().node);
  return std::move(std::get<T>(parsed->front().node));
}

struct Case {
  const char* sql;
  const char* printed;
};

void ExpectPrinted(std::initializer_list<Case> cases) {
  for (const Case& c : cases) EXPECT_EQ(P(c.sql), c.printed) << c.sql;
}

TEST(ParseTest, CreateTable) {
  ExpectPrinted({
      {"CREATE TABLE t (a int)", "CREATE TABLE t (a pg_catalog.int4)"},
      {"create table if not exists s.Orders (id bigserial primary key, total numeric(12,2) not null default 0, "
       "code varchar(16) NULL unique, st char(2), at timestamptz, n serial)",
       "CREATE TABLE IF NOT EXISTS s.orders (id bigserial PRIMARY KEY, total pg_catalog.numeric(12, 2) NOT NULL "
       "DEFAULT 0, code pg_catalog.varchar(16) NULL UNIQUE, st pg_catalog.bpchar(2), at timestamptz, n serial)"},
      {"CREATE TABLE t (a int CONSTRAINT pos CHECK (a > 0), b text, c int REFERENCES u (x), "
       "PRIMARY KEY (a, b), CONSTRAINT uq UNIQUE (b), CHECK (a < b::int), FOREIGN KEY (c) REFERENCES s.u)",
       "CREATE TABLE t (a pg_catalog.int4 CONSTRAINT pos CHECK ((a > 0)), b text, c pg_catalog.int4 REFERENCES u (x), "
       "PRIMARY KEY (a, b), CONSTRAINT uq UNIQUE (b), CHECK ((a < (b)::int4)), FOREIGN KEY (c) REFERENCES s.u)"},
      {"CREATE TABLE t (a timestamp with time zone, b double precision, c interval, d character varying)",
       "CREATE TABLE t (a pg_catalog.timestamptz, b pg_catalog.float8, c pg_catalog.interval, d pg_catalog.varchar)"},
      {"CREATE TABLE t (a int NOT NULL NOT DEFERRABLE)", "CREATE TABLE t (a pg_catalog.int4 NOT NULL)"},
      {"CREATE TABLE t (a int REFERENCES u MATCH FULL ON DELETE CASCADE ON UPDATE SET NULL)",
       "CREATE TABLE t (a pg_catalog.int4 REFERENCES u MATCH f ON UPDATE n ON DELETE c)"},
  });
  auto create = Node<CreateTableStmt>("CREATE TABLE t (id int, amount numeric(12,2), CONSTRAINT fk FOREIGN KEY (id) REFERENCES p (pid))");
  ASSERT_EQ(create.columns.size(), 2u);
  EXPECT_EQ(create.columns[1].type.typmods, (std::vector<int64_t>{12, 2}));
  EXPECT_EQ(create.columns[1].type.location, 31);  // 0-based offset of "numeric"
  ASSERT_EQ(create.constraints.size(), 1u);
  const Constraint& fk = create.constraints[0];
  EXPECT_EQ(fk.kind, Constraint::Kind::kForeignKey);
  EXPECT_EQ(fk.name, "fk");
  EXPECT_EQ(fk.columns, std::vector<std::string>{"id"});
  EXPECT_EQ(fk.ref_table.name, "p");
  EXPECT_EQ(fk.ref_columns, std::vector<std::string>{"pid"});
}

TEST(ParseTest, DropIndexAlterTruncateSequence) {
  ExpectPrinted({
      {"DROP TABLE t", "DROP TABLE t"},
      {"DROP TABLE IF EXISTS a, s.b CASCADE", "DROP TABLE IF EXISTS a, s.b CASCADE"},
      {"DROP TABLE a RESTRICT", "DROP TABLE a"},
      {"DROP INDEX IF EXISTS i1, i2", "DROP INDEX IF EXISTS i1, i2"},
      {"DROP SEQUENCE s.seq", "DROP SEQUENCE s.seq"},
      {"CREATE INDEX ON t (a)", "CREATE INDEX ON t USING btree (a)"},
      {"CREATE UNIQUE INDEX IF NOT EXISTS ix ON s.t USING hash (a)", "CREATE UNIQUE INDEX IF NOT EXISTS ix ON s.t USING hash (a)"},
      {"CREATE INDEX ix ON t USING btree (a ASC, b DESC NULLS LAST, c NULLS FIRST)",
       "CREATE INDEX ix ON t USING btree (a, b DESC NULLS LAST, c NULLS FIRST)"},
      {"ALTER TABLE t ADD COLUMN c int DEFAULT 1", "ALTER TABLE t ADD COLUMN c pg_catalog.int4 DEFAULT 1"},
      {"ALTER TABLE IF EXISTS t ADD IF NOT EXISTS c text, DROP d, DROP COLUMN IF EXISTS e CASCADE",
       "ALTER TABLE IF EXISTS t ADD COLUMN IF NOT EXISTS c text, DROP COLUMN d, DROP COLUMN IF EXISTS e CASCADE"},
      {"ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY (a, b)", "ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY (a, b)"},
      {"ALTER TABLE t ADD UNIQUE (c)", "ALTER TABLE t ADD UNIQUE (c)"},
      {"ALTER TABLE t DROP CONSTRAINT c, DROP CONSTRAINT IF EXISTS d CASCADE",
       "ALTER TABLE t DROP CONSTRAINT c, DROP CONSTRAINT IF EXISTS d CASCADE"},
      {"TRUNCATE t", "TRUNCATE t"},
      {"TRUNCATE TABLE a, s.b RESTART IDENTITY CASCADE", "TRUNCATE a, s.b RESTART IDENTITY CASCADE"},
      {"CREATE SEQUENCE s", "CREATE SEQUENCE s"},
      {"CREATE SEQUENCE IF NOT EXISTS s.q START 10 INCREMENT BY -2 MINVALUE -100 MAXVALUE 9999999999 CACHE 5 CYCLE "
       "OWNED BY t.id",
       "CREATE SEQUENCE IF NOT EXISTS s.q START 10 INCREMENT -2 MINVALUE -100 MAXVALUE 9999999999 CACHE 5 CYCLE "
       "OWNED BY t.id"},
      {"CREATE SEQUENCE q NO MINVALUE NO MAXVALUE NO CYCLE START WITH 3", "CREATE SEQUENCE q START 3"},
      {"CREATE SEQUENCE q AS smallint", "CREATE SEQUENCE q AS pg_catalog.int2"},
  });
}

TEST(ParseTest, Insert) {
  ExpectPrinted({
      {"INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)"},
      {"INSERT INTO s.t AS x (a, b) VALUES (1, DEFAULT), ($1, 'y') RETURNING a, b + 1 AS c, *",
       "INSERT INTO s.t AS x (a, b) VALUES (1, DEFAULT), ($1, 'y') RETURNING a AS a, (b + 1) AS c, *"},
      {"INSERT INTO t SELECT a FROM u WHERE a > 1", "INSERT INTO t SELECT a AS a FROM u WHERE (a > 1)"},
      {"INSERT INTO t DEFAULT VALUES", "INSERT INTO t DEFAULT VALUES"},
      {"INSERT INTO t (k, v) VALUES (1, 2) ON CONFLICT (k) DO NOTHING",
       "INSERT INTO t (k, v) VALUES (1, 2) ON CONFLICT (k) DO NOTHING"},
      {"INSERT INTO t VALUES (1, 2) ON CONFLICT DO NOTHING", "INSERT INTO t VALUES (1, 2) ON CONFLICT DO NOTHING"},
      {"INSERT INTO t (k, v) VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET v = excluded.v + t.v, w = DEFAULT WHERE t.v < 10",
       "INSERT INTO t (k, v) VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET v = (excluded.v + t.v), w = DEFAULT WHERE (t.v < 10)"},
      {"INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING",
       "INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING"},
  });
}

TEST(ParseTest, UpdateDeleteCopy) {
  ExpectPrinted({
      {"UPDATE t SET a = 1", "UPDATE t SET a = 1"},
      {"UPDATE s.t AS x SET a = a + 1, b = DEFAULT WHERE x.id = $1 RETURNING *",
       "UPDATE s.t AS x SET a = (a + 1), b = DEFAULT WHERE (x.id = $1) RETURNING *"},
      {"DELETE FROM t", "DELETE FROM t"},
      {"DELETE FROM t u WHERE u.a IN (1, 2) RETURNING a", "DELETE FROM t AS u WHERE (u.a IN (1, 2)) RETURNING a AS a"},
      {"COPY t FROM STDIN", "COPY t FROM STDIN (FORMAT text, HEADER false, DELIMITER '\t', NULL '\\N')"},
      {"COPY s.t (a, b) TO STDOUT WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'x')",
       "COPY s.t (a, b) TO STDOUT (FORMAT csv, HEADER true, DELIMITER ';', NULL 'x')"},
      {"COPY (SELECT 1) TO STDOUT CSV", "COPY (SELECT 1 AS ?column?) TO STDOUT (FORMAT csv, HEADER false, DELIMITER ',', NULL '')"},
  });
}

TEST(ParseTest, SelectClauses) {
  ExpectPrinted({
      {"SELECT 1", "SELECT 1 AS ?column?"},
      {"SELECT * FROM t", "SELECT * FROM t"},
      {"SELECT t.*, s.t.a, b AS x FROM s.t", "SELECT t.*, s.t.a AS a, b AS x FROM s.t"},
      {"SELECT DISTINCT a FROM t AS x(a, b) ORDER BY 1 DESC NULLS FIRST, a + 1 LIMIT 10 OFFSET 5",
       "SELECT DISTINCT a AS a FROM t AS x(a, b) ORDER BY 1 DESC NULLS FIRST, (a + 1) LIMIT 10 OFFSET 5"},
      {"SELECT a, count(*), sum(DISTINCT b) FROM t GROUP BY a HAVING count(*) > 1",
       "SELECT a AS a, count(*) AS count, sum(DISTINCT b) AS sum FROM t GROUP BY a HAVING (count(*) > 1)"},
      {"SELECT a FROM t LIMIT ALL", "SELECT a AS a FROM t LIMIT NULL"},
      {"SELECT a FROM t FETCH FIRST 3 ROWS ONLY", "SELECT a AS a FROM t LIMIT 3"},
      {"SELECT * FROM t FOR UPDATE", "SELECT * FROM t FOR UPDATE"},
      {"SELECT * FROM t, u FOR SHARE OF t NOWAIT", "SELECT * FROM t, u FOR SHARE OF t NOWAIT"},
      {"SELECT * FROM t FOR NO KEY UPDATE SKIP LOCKED", "SELECT * FROM t FOR NO KEY UPDATE SKIP LOCKED"},
      {"WITH x AS (SELECT 1 AS a), y(b) AS (SELECT a FROM x) SELECT * FROM y",
       "WITH x AS (SELECT 1 AS a), y(b) AS (SELECT a AS a FROM x) SELECT * FROM y"},
      {"SELECT 1 UNION SELECT 2", "(SELECT 1 AS ?column?) UNION (SELECT 2 AS ?column?)"},
      {"SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 LIMIT 2",
       "(SELECT a AS a FROM t) UNION ALL (SELECT b AS b FROM u) ORDER BY 1 LIMIT 2"},
      {"SELECT 1 INTERSECT SELECT 2 EXCEPT ALL SELECT 3",
       "((SELECT 1 AS ?column?) INTERSECT (SELECT 2 AS ?column?)) EXCEPT ALL (SELECT 3 AS ?column?)"},
      {"VALUES (1, 'a'), (2, NULL)", "VALUES (1, 'a'), (2, NULL)"},
      {"SELECT * FROM (VALUES (1), (2)) AS v(x)", "SELECT * FROM (VALUES (1), (2)) AS v(x)"},
  });
}

TEST(ParseTest, Joins) {
  ExpectPrinted({
      {"SELECT * FROM a JOIN b ON a.id = b.id", "SELECT * FROM (a JOIN b ON (a.id = b.id))"},
      {"SELECT * FROM a INNER JOIN b USING (id, k)", "SELECT * FROM (a JOIN b USING (id, k))"},
      {"SELECT * FROM a LEFT OUTER JOIN b ON true CROSS JOIN c",
       "SELECT * FROM ((a LEFT JOIN b ON true) CROSS JOIN c)"},
      {"SELECT * FROM a x LEFT JOIN (SELECT 1 AS id) s ON x.id = s.id",
       "SELECT * FROM (a AS x LEFT JOIN (SELECT 1 AS id) AS s ON (x.id = s.id))"},
      {"SELECT * FROM (a JOIN b ON true) AS j", "SELECT * FROM (a JOIN b ON true) AS j"},
  });
}

TEST(ParseTest, Expressions) {
  ExpectPrinted({
      {"SELECT a IN (1, 2), a NOT IN (3)", "SELECT (a IN (1, 2)) AS ?column?, (a NOT IN (3)) AS ?column?"},
      {"SELECT a IN (SELECT b FROM u), a NOT IN (SELECT b FROM u)",
       "SELECT (a IN (SELECT b AS b FROM u)) AS ?column?, (NOT (a IN (SELECT b AS b FROM u))) AS ?column?"},
      {"SELECT EXISTS (SELECT 1), (SELECT max(b) FROM u), (SELECT 1 AS z)",
       "SELECT EXISTS (SELECT 1 AS ?column?) AS exists, (SELECT max(b) AS max FROM u) AS max, (SELECT 1 AS z) AS z"},
      {"SELECT a BETWEEN 1 AND 2, a NOT BETWEEN SYMMETRIC 2 AND 1",
       "SELECT (a BETWEEN 1 AND 2) AS ?column?, (a NOT BETWEEN SYMMETRIC 2 AND 1) AS ?column?"},
      {"SELECT a LIKE 'x%', a NOT LIKE 'y', a ILIKE 'z', a NOT ILIKE 'w'",
       "SELECT (a LIKE 'x%') AS ?column?, (a NOT LIKE 'y') AS ?column?, (a ILIKE 'z') AS ?column?, (a NOT ILIKE 'w') AS ?column?"},
      {"SELECT a LIKE 'x!%' ESCAPE '!'", "SELECT (a LIKE like_escape('x!%', '!')) AS ?column?"},
      {"SELECT count(DISTINCT a), count(*), upper(b), coalesce(a, 1), nullif(a, 2)",
       "SELECT count(DISTINCT a) AS count, count(*) AS count, upper(b) AS upper, coalesce(a, 1) AS coalesce, nullif(a, 2) AS nullif"},
      {"SELECT CASE WHEN a THEN 1 ELSE 2 END, CASE a WHEN 1 THEN 'x' END",
       "SELECT CASE WHEN a THEN 1 ELSE 2 END AS case, CASE a WHEN 1 THEN 'x' END AS case"},
      {"SELECT -a, NOT b, a IS NULL, b IS NOT NULL, a AND b OR c",
       "SELECT (- a) AS ?column?, (NOT b) AS ?column?, (a IS NULL) AS ?column?, (b IS NOT NULL) AS ?column?, "
       "((a AND b) OR c) AS ?column?"},
      {"SELECT '1'::numeric(5,2), 1.5, 3000000000", "SELECT ('1')::numeric[typmod 327686] AS numeric, 1.5 AS ?column?, 3000000000 AS ?column?"},
      {"SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b",
       "SELECT (a IS DISTINCT FROM b) AS ?column?, (a IS NOT DISTINCT FROM b) AS ?column?"},
      {"SELECT a IS TRUE, a IS NOT FALSE, a IS UNKNOWN",
       "SELECT (a IS true) AS ?column?, (a IS NOT false) AS ?column?, (a IS unknown) AS ?column?"},
      {"SELECT GREATEST(a, 1), LEAST(b, 2)", "SELECT greatest(a, 1) AS greatest, least(b, 2) AS least"},
      {"SELECT CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP(2)",
       "SELECT current_date() AS current_date, current_timestamp() AS current_timestamp, "
       "(localtimestamp())::timestamp[typmod 2] AS localtimestamp"},
  });
}

TEST(ParseTest, ArraysWindowsAndFunctionsInFrom) {
  ExpectPrinted({
      {"SELECT a[1], b[i + 1][2], (f(x)).n, (t.r).x, ARRAY[1, 2], ARRAY(SELECT 1)",
       "SELECT a[1] AS a, b[(i + 1)][2] AS b, (f(x)).n AS n, (t.r).x AS x, ARRAY[1, 2] AS array, "
       "ARRAY(SELECT 1 AS ?column?) AS array"},
      {"SELECT a = ANY(b), a <> ALL('{1}'), x::int2[], y::_int4, z::pg_catalog.int2[]",
       "SELECT (a = ANY(b)) AS ?column?, (a <> ALL('{1}')) AS ?column?, (x)::_int2 AS x, (y)::_int4 AS y, "
       "(z)::_int2 AS z"},
      {"SELECT row_number() OVER (PARTITION BY a, b ORDER BY c DESC NULLS LAST), count(*) OVER ()",
       "SELECT row_number() OVER (PARTITION BY a, b ORDER BY c DESC NULLS LAST) AS row_number, count(*) OVER () AS count"},
      {"SELECT sum(x) OVER (ORDER BY y ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
       "SELECT sum(x) OVER (ORDER BY y ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS sum"},
      {"SELECT * FROM generate_series(1, 3) AS s(r), information_schema._pg_expandarray(k) e",
       "SELECT * FROM generate_series(1, 3) AS s(r), information_schema._pg_expandarray(k) AS e"},
  });
}

TEST(ParseTest, ExplainAndTransactions) {
  ExpectPrinted({
      {"EXPLAIN SELECT 1", "EXPLAIN SELECT 1 AS ?column?"},
      {"EXPLAIN ANALYZE DELETE FROM t", "EXPLAIN ANALYZE DELETE FROM t"},
      {"EXPLAIN (ANALYZE) SELECT 1", "EXPLAIN ANALYZE SELECT 1 AS ?column?"},
      {"EXPLAIN (ANALYZE false) SELECT 1", "EXPLAIN SELECT 1 AS ?column?"},
      {"SAVEPOINT sp1", "SAVEPOINT sp1"},
      {"RELEASE SAVEPOINT sp1", "RELEASE SAVEPOINT sp1"},
      {"RELEASE sp1", "RELEASE SAVEPOINT sp1"},
      {"ROLLBACK TO SAVEPOINT sp1", "ROLLBACK TO SAVEPOINT sp1"},
      {"ROLLBACK TO sp1", "ROLLBACK TO SAVEPOINT sp1"},
      {"BEGIN ISOLATION LEVEL REPEATABLE READ", "BEGIN ISOLATION LEVEL repeatable read"},
  });
}

TEST(ParseTest, Locations) {
  auto select = Node<SelectStmt>("SELECT x.a FROM s.t AS x WHERE a IN (1)");
  ASSERT_EQ(select.from.size(), 1u);
  EXPECT_EQ(select.from[0]->relation.schema, "s");
  EXPECT_EQ(select.from[0]->relation.location, 16);
  EXPECT_EQ(select.targets[0].expr->names, (std::vector<std::string>{"x", "a"}));
  EXPECT_EQ(select.targets[0].expr->text, "a");
  EXPECT_EQ(select.targets[0].expr->location, 7);
  EXPECT_FALSE(select.targets[0].has_alias);
  EXPECT_EQ(select.where->location, 33);  // the IN keyword, where PostgreSQL points
}

TEST(ParseTest, SyntaxErrors) {
  struct ErrorCase {
    const char* sql;
    const char* message;
    int position;
  };
  const ErrorCase cases[] = {
      {"CREATE TABLE t (a int,)", "syntax error at or near \")\"", 23},
      {"INSERT INTO t VALUES", "syntax error at end of input", 21},
      {"SELECT 1; DELETE t", "syntax error at or near \"t\"", 18},
      {"CREATE INDEX ON t", "syntax error at end of input", 18},
      {"UPDATE t SET", "syntax error at end of input", 13},
  };
  for (const ErrorCase& c : cases) {
    auto parsed = Parse(c.sql);
    ASSERT_FALSE(parsed.has_value()) << c.sql;
    EXPECT_EQ(parsed.error().sqlstate, "42601") << c.sql;
    EXPECT_EQ(parsed.error().message, c.message) << c.sql;
    EXPECT_EQ(parsed.error().position, c.position) << c.sql;
  }
}

TEST(ParseTest, Refusals) {
  struct RefusalCase {
    const char* sql;
    const char* sqlstate;
    const char* message;
    int position;
  };
  const RefusalCase cases[] = {
      {"SELECT sum(1) OVER w", "0A000", "named windows is not supported yet", 20},
      {"SELECT sum(a) OVER (ROWS 2 PRECEDING)", "0A000", "window frame offsets is not supported yet", 20},
      {"SELECT sum(a) OVER (GROUPS UNBOUNDED PRECEDING)", "0A000", "GROUPS frames is not supported yet", 20},
      {"SELECT ARRAY[[1], [2]]", "0A000", "multidimensional arrays is not supported yet", 14},
      {"SELECT (ARRAY[1])[1:2]", "0A000", "array slices is not supported yet", 9},
      {"SELECT (upper('a')).*", "0A000", "field expansion (.*) is not supported yet", 9},
      {"SELECT CURRENT_TIME", "0A000", "this SQL value function is not supported yet", 8},
      {"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a)", "0A000", "WITHIN GROUP is not supported yet", 8},
      {"SELECT * FROM t, LATERAL (SELECT 1) s", "0A000", "LATERAL is not supported yet", 0},
      {"SELECT * FROM a FULL JOIN b ON true", "0A000", "FULL JOIN is not supported yet", 0},
      {"SELECT * FROM a RIGHT JOIN b ON true", "0A000", "RIGHT JOIN is not supported yet", 0},
      {"SELECT * FROM a NATURAL JOIN b", "0A000", "NATURAL JOIN is not supported yet", 0},
      {"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r", "0A000", "WITH RECURSIVE is not supported yet", 1},
      {"SELECT a FROM t GROUP BY ROLLUP (a)", "0A000", "GROUPING SETS, ROLLUP and CUBE is not supported yet", 26},
      {"SELECT DISTINCT ON (a) a FROM t", "0A000", "SELECT DISTINCT ON is not supported yet", 0},
      {"SELECT a = ANY (SELECT 1)", "0A000", "ANY (subquery) is not supported yet", 10},
      {"SELECT a SIMILAR TO 'x'", "0A000", "SIMILAR TO is not supported yet", 10},
      {"SELECT * FROM generate_series(1, 3) WITH ORDINALITY", "0A000", "WITH ORDINALITY is not supported yet", 0},
      {"SELECT * FROM unnest(a) AS u(x int)", "0A000", "column definition lists is not supported yet", 0},
      {"CREATE TEMP TABLE t (a int)", "0A000", "CREATE TEMPORARY TABLE is not supported yet", 19},
      {"CREATE TABLE t (a int[])", "0A000", "array types is not supported yet", 19},
      {"CREATE TABLE t (a int GENERATED ALWAYS AS IDENTITY)", "0A000", "identity columns is not supported yet", 23},
      {"CREATE TABLE t (a int UNIQUE DEFERRABLE)", "0A000", "DEFERRABLE constraints is not supported yet", 30},
      {"CREATE TABLE t (LIKE u)", "0A000", "CREATE TABLE ... LIKE is not supported yet", 0},
      {"CREATE INDEX ON t USING gin (a)", "0A000", "access method \"gin\" is not supported yet", 0},
      {"CREATE INDEX ON t ((a + 1))", "0A000", "indexes on expressions is not supported yet", 0},
      {"CREATE INDEX ON t (a) WHERE a > 0", "0A000", "partial indexes is not supported yet", 0},
      {"DROP VIEW v", "0A000", "DROP VIEW is not supported yet", 0},
      {"ALTER TABLE t ALTER COLUMN a TYPE int8", "0A000", "ALTER TABLE ... ALTER COLUMN ... TYPE is not supported yet", 0},
      {"CREATE SEQUENCE s RESTART 5", "0A000", "sequence option \"restart\" is not supported yet", 19},
      {"CREATE SEQUENCE s START 1 START 2", "42601", "conflicting or redundant options", 27},
      {"UPDATE t SET (a, b) = (1, 2)", "0A000", "SET (column, ...) = ... is not supported yet", 15},
      {"UPDATE t SET a = 1 FROM u", "0A000", "UPDATE ... FROM is not supported yet", 0},
      {"DELETE FROM t USING u", "0A000", "DELETE ... USING is not supported yet", 0},
      {"EXPLAIN (VERBOSE) SELECT 1", "0A000", "EXPLAIN option \"verbose\" is not supported yet", 10},
      {"EXPLAIN (ANALYZE maybe) SELECT 1", "42601", "analyze requires a Boolean value", 0},
      {"SELECT * FROM otherdb.s.t", "0A000", "cross-database references are not implemented: \"otherdb.s.t\"", 15},
      {"WITH x AS (DELETE FROM t) SELECT 1", "0A000", "data-modifying statements in WITH is not supported yet", 6},
      {"INSERT INTO t VALUES (1) ON CONFLICT (a) WHERE a > 0 DO NOTHING", "0A000",
       "ON CONFLICT (...) WHERE is not supported yet", 38},
      {"CREATE VIEW v AS SELECT 1", "0A000", "CREATE VIEW is not supported yet", 0},
      {"COMMIT PREPARED 'x'", "0A000", "two-phase commit is not supported yet", 0},
  };
  for (const RefusalCase& c : cases) {
    Error e = Refusal(c.sql);
    EXPECT_EQ(e.sqlstate, c.sqlstate) << c.sql;
    EXPECT_EQ(e.message, c.message) << c.sql;
    EXPECT_EQ(e.position, c.position) << c.sql;
  }
}

// Errors inside clause expressions are kept in the tree (kError) and raised by the binder when
// it reaches them, after what PostgreSQL checks first (a missing relation: sql_query_test).
TEST(ParseTest, ExpressionErrorsAreDeferred) {
  EXPECT_EQ(P("SELECT 'x'::nosuchtype, a SIMILAR TO b FROM t"),
            "SELECT ERROR(42704: type \"nosuchtype\" does not exist) AS nosuchtype, "
            "ERROR(0A000: SIMILAR TO is not supported yet) AS ?column? FROM t");
  EXPECT_EQ(P("INSERT INTO t VALUES (1::nosuchtype)"),
            "INSERT INTO t VALUES (ERROR(42704: type \"nosuchtype\" does not exist))");
}

// Less common spellings of the modelled statements: each becomes its node or a 0A000 refusal,
// never a crash or an internal error.
TEST(ParseTest, UnusualFormsParseOrRefuse) {
  for (const char* sql : {
           "CREATE TABLE t ()", "CREATE TABLE t (a int) WITH (fillfactor = 70)", "CREATE TABLE p PARTITION OF q DEFAULT",
           "CREATE TABLE t OF mytype", "CREATE TABLE t (a int COLLATE \"C\")", "CREATE TABLE t (a int CHECK (a > 0) NO INHERIT)",
           "CREATE TABLE t (a int REFERENCES u MATCH FULL ON DELETE CASCADE)", "CREATE TABLE t (a int, EXCLUDE USING gist (a WITH =))",
           "CREATE TABLE t (a int GENERATED ALWAYS AS (1) STORED)", "CREATE TABLE t (a int PRIMARY KEY USING INDEX TABLESPACE x)",
           "CREATE TABLE t (a int, UNIQUE (a) INCLUDE (a))", "ALTER INDEX i RENAME TO j", "ALTER TABLE t RENAME TO u",
           "ALTER TABLE t ALTER a SET DEFAULT 1", "ALTER TABLE t DROP CONSTRAINT c", "ALTER TABLE ONLY t ADD CHECK (a > 0) NOT VALID",
           "DROP TABLE a.b.c", "DROP INDEX CONCURRENTLY i", "DROP SCHEMA s", "CREATE INDEX CONCURRENTLY ON t (a)",
           "CREATE INDEX ON t (a) INCLUDE (b)", "CREATE INDEX ON t (a text_pattern_ops)", "CREATE INDEX ON t (a COLLATE \"C\")",
           "CREATE SEQUENCE s START 1.5", "CREATE SEQUENCE s OWNED BY NONE", "CREATE SEQUENCE s RESTART 1",
           "INSERT INTO t OVERRIDING SYSTEM VALUE VALUES (1)", "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x",
           "INSERT INTO t (a[1]) VALUES (1)", "INSERT INTO t VALUES (1) ON CONFLICT ((a + 1)) DO NOTHING",
           "UPDATE t SET a[1] = 2", "UPDATE t SET a = 1 WHERE CURRENT OF c", "DELETE FROM t WHERE CURRENT OF c",
           "COPY t TO '/tmp/x'", "COPY t FROM PROGRAM 'cat'", "COPY t FROM STDIN WHERE a > 1", "COPY t TO STDOUT (FORMAT binary)",
           "COPY (INSERT INTO t VALUES (1)) TO STDOUT", "EXPLAIN (FORMAT json) SELECT 1", "EXPLAIN VERBOSE SELECT 1",
           "SELECT * FROM ONLY t", "SELECT * FROM t TABLESAMPLE bernoulli (10)", "SELECT a FROM t WINDOW w AS ()",
           "SELECT a FROM t GROUP BY DISTINCT a", "SELECT a FROM t ORDER BY a FETCH FIRST 1 ROW WITH TIES", "SELECT * INTO u FROM t",
           "SELECT * FROM a JOIN b USING (x) AS j", "WITH x AS MATERIALIZED (SELECT 1) SELECT 1", "SELECT a FROM t ORDER BY a USING <",
           "SELECT (a, b) IN (SELECT 1, 2)", "SELECT a = ALL (SELECT 1)", "SELECT ARRAY(SELECT 1)", "SELECT a[1]", "SELECT B'101'",
           "SELECT * FROM xmltable('/' PASSING 'x' COLUMNS a int)", "SELECT * FROM ROWS FROM (f())", "SELECT 1 + DEFAULT",
       }) {
    auto parsed = Parse(sql);
    ASSERT_TRUE(parsed.has_value()) << sql << ": " << parsed.error().message;
    ASSERT_EQ(parsed->size(), 1u) << sql;
    std::string printed = ToString(parsed->front().node);
    auto refused = NotRunnable(parsed->front());
    if (refused) {
      EXPECT_NE(refused->sqlstate, "XX000") << sql << ": " << refused->message;
      EXPECT_FALSE(refused->message.empty()) << sql;
    }
  }
  EXPECT_EQ(Refusal("CREATE SEQUENCE s START 1.5").sqlstate, "22P02");
  EXPECT_EQ(Refusal("CREATE SEQUENCE s START 99999999999999999999").sqlstate, "22003");
}

// A refusal stays with its statement: earlier statements of the same text still parse.
TEST(ParseTest, RefusalIsPerStatement) {
  auto parsed = Parse("SELECT 1; SELECT a FROM x FULL JOIN y ON true; DROP TABLE t");
  ASSERT_TRUE(parsed.has_value());
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_TRUE(std::holds_alternative<SelectStmt>((*parsed)[0].node));
  EXPECT_TRUE(std::holds_alternative<UnsupportedStmt>((*parsed)[1].node));
  EXPECT_TRUE(std::holds_alternative<DropStmt>((*parsed)[2].node));
}

}  // namespace
}  // namespace farmdb::sql
