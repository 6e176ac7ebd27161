// The exact queries psql 15 and pgjdbc 42.5.5 send (regress/protocol/catalog_queries/*.sql),
// run through a Session on the schema they were captured on, with the rows PostgreSQL 15
// returned for them.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "sql/node_session_fixture.h"

namespace farmdb::sql {
namespace {

using Rows = std::vector<std::vector<std::string>>;

class CatalogQueriesTest : public NodeSessionTest {
 protected:
  void SetUp() override {
    Start(1);
    session_ = NewSession();
    ASSERT_NE(session_, nullptr);
    // The schema of catalog_queries/README.md.
    for (const char* ddl : {"CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', code varchar(10) UNIQUE, "
                            "n numeric(10,2), created timestamptz)",
                            "CREATE INDEX t_name_idx ON t (name)", "CREATE TABLE u (a int, b text)"}) {
      ASSERT_EQ(Run(*session_, ddl).sqlstate, "") << ddl;
    }
    ASSERT_EQ(Run(*session_, "SELECT 't'::regclass::oid").sqlstate, "");
    t_oid_ = sink_.rows.at(0).at(0);
  }

  // The statements of one captured file, with t's OID where the capture had 16385 and $1 bound
  // to `param` (pgjdbc's pg_type lookups).
  std::vector<std::string> Statements(std::string_view file, std::string_view param = "2205") {
    std::ifstream in(fmt::format("{}/regress/protocol/catalog_queries/{}", FARMDB_SOURCE_DIR, file));
    EXPECT_TRUE(in.good()) << file;
    std::vector<std::string> out;
    std::string line, current;
    while (std::getline(in, line)) {
      if (line.starts_with("--")) continue;
      current += line + "\n";
      if (!line.empty() && line.back() == ';') {
        for (size_t at; (at = current.find("16385")) != std::string::npos;) current.replace(at, 5, t_oid_);
        for (size_t at; (at = current.find("$1")) != std::string::npos;) current.replace(at, 2, param);
        out.push_back(std::move(current));
        current.clear();
      }
    }
    return out;
  }

  // The rows of `sql`, or a one-cell row with its error.
  Rows Query(std::string_view sql) {
    Error e = Run(*session_, sql);
    if (!e.sqlstate.empty()) return {{"ERROR " + e.sqlstate + ": " + e.message}};
    return sink_.rows;
  }

  std::unique_ptr<Session> session_;
  std::string t_oid_;
};

TEST_F(CatalogQueriesTest, EveryCapturedQueryRuns) {
  for (const char* file : {"psql_d.sql", "psql_dt.sql", "psql_di.sql", "psql_dn.sql", "psql_l.sql", "psql_du.sql",
                           "psql_d_t.sql", "psql_d_plus_t.sql", "pgjdbc_getTables.sql", "pgjdbc_getColumns.sql",
                           "pgjdbc_getPrimaryKeys.sql", "pgjdbc_getIndexInfo.sql", "pgjdbc_types.sql"}) {
    std::vector<std::string> statements = Statements(file);
    EXPECT_FALSE(statements.empty()) << file;
    for (const std::string& sql : statements) {
      Error e = Run(*session_, sql);
      EXPECT_EQ(e.sqlstate, "") << file << ": " << e.message << "\n" << sql;
    }
  }
}

TEST_F(CatalogQueriesTest, PsqlDescribeTable) {
  std::vector<std::string> q = Statements("psql_d_plus_t.sql");
  ASSERT_EQ(q.size(), 9u);
  EXPECT_EQ(Query(q[0]), (Rows{{t_oid_, "public", "t"}}));
  // relchecks ... reloptions (none: ''), reltablespace, reloftype, relpersistence, relreplident, amname.
  EXPECT_EQ(Query(q[1]), (Rows{{"0", "r", "t", "f", "f", "f", "f", "f", "f", "", "0", "", "p", "d", "heap"}}));
  EXPECT_EQ(Query(q[2]), (Rows{{"id", "integer", "nextval('t_id_seq'::regclass)", "t", "<NULL>", "", "", "p", "", "<NULL>", "<NULL>"},
                               {"name", "text", "'x'::text", "t", "<NULL>", "", "", "x", "", "<NULL>", "<NULL>"},
                               {"code", "character varying(10)", "<NULL>", "f", "<NULL>", "", "", "x", "", "<NULL>", "<NULL>"},
                               {"n", "numeric(10,2)", "<NULL>", "f", "<NULL>", "", "", "m", "", "<NULL>", "<NULL>"},
                               {"created", "timestamp with time zone", "<NULL>", "f", "<NULL>", "", "", "p", "", "<NULL>", "<NULL>"}}));
  EXPECT_EQ(Query(q[3]),
            (Rows{{"t_pkey", "t", "t", "f", "t", "CREATE UNIQUE INDEX t_pkey ON t USING btree (id)", "PRIMARY KEY (id)", "p", "f", "f", "f", "0"},
                  {"t_code_key", "f", "t", "f", "t", "CREATE UNIQUE INDEX t_code_key ON t USING btree (code)", "UNIQUE (code)", "u", "f", "f", "f", "0"},
                  {"t_name_idx", "f", "f", "f", "t", "CREATE INDEX t_name_idx ON t USING btree (name)", "<NULL>", "<NULL>", "<NULL>", "<NULL>", "f", "0"}}));
  for (size_t i = 4; i < q.size(); ++i) EXPECT_EQ(Query(q[i]), Rows{}) << q[i];
}

TEST_F(CatalogQueriesTest, PsqlListsDatabasesRolesAndSchemas) {
  EXPECT_EQ(Query(Statements("psql_l.sql")[0]),
            (Rows{{"postgres", "postgres", "UTF8", "C", "C", "<NULL>", "libc", "<NULL>"},
                  {"template1", "postgres", "UTF8", "C", "C", "<NULL>", "libc", "=c/postgres\npostgres=CTc/postgres"}}));
  EXPECT_EQ(Query(Statements("psql_du.sql")[0]),
            (Rows{{"postgres", "t", "t", "t", "t", "t", "-1", "<NULL>", "{}", "t", "t"}}));
  EXPECT_EQ(Query("SELECT n.nspname, pg_catalog.array_to_string(n.nspacl, E'\\n'), "
                  "pg_catalog.obj_description(n.oid, 'pg_namespace') FROM pg_catalog.pg_namespace n ORDER BY 1"),
            (Rows{{"information_schema", "postgres=UC/postgres\n=U/postgres", "<NULL>"},
                  {"pg_catalog", "postgres=UC/postgres\n=U/postgres", "<NULL>"},
                  {"public", "pg_database_owner=UC/pg_database_owner\n=U/pg_database_owner", "standard public schema"}}));
}

TEST_F(CatalogQueriesTest, PgjdbcColumnsKeysAndIndexes) {
  Rows columns = Query(Statements("pgjdbc_getColumns.sql")[0]);
  ASSERT_EQ(columns.size(), 5u);
  // nspname, relname, attname, atttypid, attnotnull, atttypmod, attlen, typtypmod, attnum (row_number), ...
  EXPECT_EQ(columns[0], (std::vector<std::string>{"public", "t", "id", "23", "t", "-1", "4", "-1", "1", "<NULL>", "<NULL>",
                                                  "nextval('t_id_seq'::regclass)", "<NULL>", "0", "b"}));
  EXPECT_EQ(columns[3], (std::vector<std::string>{"public", "t", "n", "1700", "f", "655366", "-1", "-1", "4", "<NULL>", "<NULL>",
                                                  "<NULL>", "<NULL>", "0", "b"}));
  EXPECT_EQ(columns[4][2], "created");
  EXPECT_EQ(columns[4][8], "5");
  EXPECT_EQ(Query(Statements("pgjdbc_getPrimaryKeys.sql")[0]), (Rows{{"<NULL>", "public", "t", "id", "1", "t_pkey"}}));
  Rows indexes = Query(Statements("pgjdbc_getIndexInfo.sql")[0]);
  ASSERT_EQ(indexes.size(), 3u);
  // TABLE_CAT .. FILTER_CONDITION. CARDINALITY and PAGES come from pg_class, where farmdb keeps
  // no statistics (reltuples -1, relpages 0; PostgreSQL has 0 and 1 for a new empty index).
  EXPECT_EQ(indexes[0], (std::vector<std::string>{"<NULL>", "public", "t", "f", "<NULL>", "t_code_key", "3", "1", "code", "A",
                                                  "-1", "0", "<NULL>"}));
  EXPECT_EQ(indexes[1][5], "t_pkey");
  EXPECT_EQ(indexes[2][5], "t_name_idx");
  EXPECT_EQ(indexes[2][3], "t");
}

TEST_F(CatalogQueriesTest, PgjdbcTypeLookups) {
  std::vector<std::string> regclass = Statements("pgjdbc_types.sql", "2205");
  ASSERT_EQ(regclass.size(), 3u);
  EXPECT_EQ(Query(regclass[1]), (Rows{{"t", "pg_catalog", "regclass"}}));
  EXPECT_EQ(Query(regclass[2]), (Rows{{"f", "b", "regclass", "2205"}}));
  EXPECT_EQ(Query(Statements("pgjdbc_types.sql", "1007")[2]), (Rows{{"t", "b", "_int4", "1007"}}));
  Rows columns = Query(regclass[0]);  // no ORDER BY: by attnum here
  std::ranges::sort(columns, {}, [](const std::vector<std::string>& r) { return r.at(1); });
  ASSERT_EQ(columns.size(), 5u);
  EXPECT_EQ(columns[0], (std::vector<std::string>{t_oid_, "1", "id", "t", "public", "t", "t"}));
  EXPECT_EQ(columns[2], (std::vector<std::string>{t_oid_, "3", "code", "t", "public", "f", "<NULL>"}));
}

}  // namespace
}  // namespace farmdb::sql
