// CREATE TABLE / DROP TABLE end to end through Session on a Node: the catalog sees committed DDL
// on every machine, transaction blocks commit or roll it back, errors and notices are
// PostgreSQL 15's (checked against it: regress/protocol/sql/ddl_tables.sql).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <thread>

#include "sql/exec/ddl_test_fixture.h"

namespace farmdb::sql {
namespace {

TEST_F(DdlTest, CreateTableStoresColumnsKeysAndDefaults) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "CREATE TABLE t (id bigserial, name varchar(20) NOT NULL, price numeric(10,2) DEFAULT 0, "
                    "d date DEFAULT '2020-1-2', neg int8 DEFAULT -5, ch char(3) DEFAULT 'ab', ok bool DEFAULT true, "
                    "f float8 DEFAULT 1.50, n text DEFAULT NULL, big int8 DEFAULT 3000000000, nn numeric DEFAULT -1.5, "
                    "txt text DEFAULT 5, vc varchar(5) DEFAULT 'q''x', ts timestamp(3) DEFAULT '2020-01-01 10:00', "
                    "PRIMARY KEY (id), UNIQUE (name))")
                .message,
            "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"CREATE TABLE"});
  auto snap = Snapshot(0);
  const storage::TableDesc* t = FindTable(snap, "t");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->columns.size(), 14u);
  EXPECT_EQ(t->columns[0].type, TypeId::kInt8);
  EXPECT_TRUE(t->columns[0].attnotnull);
  EXPECT_EQ(t->columns[0].default_expr, "nextval('t_id_seq'::regclass)");
  EXPECT_EQ(t->columns[1].type, TypeId::kVarchar);
  EXPECT_EQ(t->columns[1].atttypmod, 24);
  EXPECT_TRUE(t->columns[1].attnotnull);
  EXPECT_EQ(t->columns[2].atttypmod, (10 << 16 | 2) + 4);
  EXPECT_EQ(t->columns[2].default_expr, "0");
  EXPECT_EQ(t->columns[3].default_expr, "'2020-01-02'::date");
  EXPECT_EQ(t->columns[4].default_expr, "'-5'::integer");
  EXPECT_EQ(t->columns[5].default_expr, "'ab'::bpchar");
  EXPECT_EQ(t->columns[6].default_expr, "true");
  EXPECT_EQ(t->columns[7].default_expr, "1.50");
  EXPECT_EQ(t->columns[8].default_expr, std::nullopt);
  // As PostgreSQL 15's pg_get_expr(adbin, adrelid) prints them.
  EXPECT_EQ(t->columns[9].default_expr, "'3000000000'::bigint");
  EXPECT_EQ(t->columns[10].default_expr, "'-1.5'::numeric");
  EXPECT_EQ(t->columns[11].default_expr, "5");
  EXPECT_EQ(t->columns[12].default_expr, "'q''x'::character varying");
  EXPECT_EQ(t->columns[13].default_expr, "'2020-01-01 10:00:00'::timestamp without time zone");
  ASSERT_NE(t->PrimaryKey(), nullptr);
  EXPECT_EQ(t->PrimaryKey()->relname, "t_pkey");
  ASSERT_EQ(t->indexes.size(), 2u);
  EXPECT_EQ(t->indexes[1].relname, "t_name_key");
  const storage::SequenceDesc* seq = snap->FindSequence(storage::kPublicNamespace, "t_id_seq");
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->owned_by_table, t->oid);

  // DROP takes the owned sequence with it.
  ASSERT_EQ(Run(*s, "DROP TABLE t").message, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"DROP TABLE"});
  snap = Snapshot(0);
  EXPECT_EQ(FindTable(snap, "t"), nullptr);
  EXPECT_EQ(snap->FindSequence(storage::kPublicNamespace, "t_id_seq"), nullptr);
}

TEST_F(DdlTest, DuplicatesAndIfExistsNotices) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "CREATE TABLE t (a int)").message, "");
  Error e = Run(*s, "CREATE TABLE t (b int)");
  EXPECT_EQ(e.sqlstate, "42P07");
  EXPECT_EQ(e.message, "relation \"t\" already exists");
  EXPECT_EQ(s->Status(), TxnStatus::kIdle);

  ASSERT_EQ(Run(*s, "CREATE TABLE IF NOT EXISTS t (b int)").message, "");
  ASSERT_EQ(sink_.notices.size(), 1u);
  EXPECT_EQ(sink_.notices[0].severity, "NOTICE");
  EXPECT_EQ(sink_.notices[0].sqlstate, "42P07");
  EXPECT_EQ(sink_.notices[0].message, "relation \"t\" already exists, skipping");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"CREATE TABLE"});
  // Nothing changed: still the first definition.
  EXPECT_NE(FindTable(Snapshot(0), "t")->FindColumn("a"), nullptr);

  ASSERT_EQ(Run(*s, "DROP TABLE t").message, "");
  e = Run(*s, "DROP TABLE t");
  EXPECT_EQ(e.sqlstate, "42P01");
  EXPECT_EQ(e.message, "table \"t\" does not exist");
  ASSERT_EQ(Run(*s, "DROP TABLE IF EXISTS t").message, "");
  ASSERT_EQ(sink_.notices.size(), 1u);
  EXPECT_EQ(sink_.notices[0].message, "table \"t\" does not exist, skipping");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"DROP TABLE"});
}

TEST_F(DdlTest, RefusalsAndPositions) {
  Start(1);
  auto s = NewSession();
  const ErrorCase cases[] = {
      {"CREATE TABLE t (a nosuchtype)", "42704", "type \"nosuchtype\" does not exist", 19},
      {"CREATE TABLE t (a int PRIMARY KEY, b int PRIMARY KEY)", "42P16",
       "multiple primary keys for table \"t\" are not allowed", 42},
      {"CREATE TABLE t (a int, PRIMARY KEY (b))", "42703", "column \"b\" named in key does not exist", 24},
      {"CREATE TABLE t (a int, a int)", "42701", "column \"a\" specified more than once", 0},
      {"CREATE TABLE t (a int REFERENCES u (a))", "0A000", "FOREIGN KEY constraints is not supported yet", 23},
      {"CREATE TABLE t (a int CHECK (b > 0))", "42703", "column \"b\" does not exist", 30},
      {"CREATE TABLE t (a int DEFAULT a + 1)", "0A000", "cannot use column reference in DEFAULT expression", 31},
      {"CREATE TABLE t (a date DEFAULT 'x')", "22007", "invalid input syntax for type date: \"x\"", 32},
      {"CREATE TABLE t (a serial DEFAULT 1)", "42601",
       "multiple default values specified for column \"a\" of table \"t\"", 26},
      {"CREATE TABLE nosuchschema.t (a int)", "3F000", "schema \"nosuchschema\" does not exist", 0},
  };
  for (const ErrorCase& c : cases) {
    Error e = Run(*s, c.sql);
    EXPECT_EQ(e.sqlstate, c.sqlstate) << c.sql;
    EXPECT_EQ(e.message, c.message) << c.sql;
    EXPECT_EQ(e.position, c.position) << c.sql;
  }
  EXPECT_TRUE(Snapshot(0)->tables().empty());
}

TEST_F(DdlTest, UnqualifiedNamesFollowSearchPath) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "SET search_path = nosuch").message, "");
  Error e = Run(*s, "CREATE TABLE s1 (a int)");
  EXPECT_EQ(e.sqlstate, "3F000");
  EXPECT_EQ(e.message, "no schema has been selected to create in");
  EXPECT_EQ(e.position, 14);
  ASSERT_EQ(Run(*s, "SET search_path = nosuch, \"Public\", public; CREATE TABLE s1 (a int)").message, "");
  EXPECT_NE(FindTable(Snapshot(0), "s1"), nullptr);
  ASSERT_EQ(Run(*s, "SET search_path = nosuch").message, "");
  EXPECT_EQ(Run(*s, "DROP TABLE s1").sqlstate, "42P01");
  e = Run(*s, "CREATE TABLE pg_catalog.x (a int)");
  EXPECT_EQ(e.sqlstate, "42501");
  EXPECT_EQ(e.message, "permission denied to create \"pg_catalog.x\"");
  ASSERT_EQ(Run(*s, "RESET search_path; DROP TABLE s1").message, "");
  EXPECT_TRUE(Snapshot(0)->tables().empty());
}

TEST_F(DdlTest, BlocksCommitOrRollBackDdl) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "BEGIN; CREATE TABLE t (a int); CREATE TABLE u (a int)").message, "");
  EXPECT_EQ(s->Status(), TxnStatus::kInBlock);
  // Not committed yet: another transaction does not see it.
  EXPECT_EQ(FindTable(Snapshot(0), "t"), nullptr);
  ASSERT_EQ(Run(*s, "ROLLBACK").message, "");
  EXPECT_EQ(FindTable(Snapshot(0), "t"), nullptr);
  EXPECT_EQ(FindTable(Snapshot(0), "u"), nullptr);

  // A failed statement fails the block; COMMIT then rolls back the earlier DDL.
  ASSERT_EQ(Run(*s, "BEGIN; CREATE TABLE t (a int)").message, "");
  EXPECT_EQ(Run(*s, "CREATE TABLE t (a int)").sqlstate, "42P07");
  EXPECT_EQ(s->Status(), TxnStatus::kFailed);
  EXPECT_EQ(Run(*s, "CREATE TABLE v (a int)").sqlstate, "25P02");
  ASSERT_EQ(Run(*s, "COMMIT").message, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"ROLLBACK"});
  EXPECT_TRUE(Snapshot(0)->tables().empty());

  ASSERT_EQ(Run(*s, "BEGIN ISOLATION LEVEL REPEATABLE READ; CREATE TABLE t (a int); DROP TABLE t; "
                    "CREATE TABLE w (a int); COMMIT")
                .message,
            "");
  auto snap = Snapshot(0);
  EXPECT_EQ(FindTable(snap, "t"), nullptr);
  EXPECT_NE(FindTable(snap, "w"), nullptr);

  // SET TRANSACTION after DDL is too late, as after a query in PostgreSQL.
  ASSERT_EQ(Run(*s, "BEGIN; DROP TABLE w").message, "");
  EXPECT_EQ(Run(*s, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED").sqlstate, "25001");
  ASSERT_EQ(Run(*s, "ROLLBACK").message, "");
  EXPECT_NE(FindTable(Snapshot(0), "w"), nullptr);

  ASSERT_EQ(Run(*s, "BEGIN READ ONLY").message, "");
  Error e = Run(*s, "DROP TABLE w");
  EXPECT_EQ(e.sqlstate, "25006");
  EXPECT_EQ(e.message, "cannot execute DROP TABLE in a read-only transaction");
  ASSERT_EQ(Run(*s, "ROLLBACK").message, "");
}

TEST_F(DdlTest, SessionsOnDifferentMachinesSeeCommittedDdl) {
  Start(3);
  auto a = NewSession();
  auto b = NewSession();  // round-robin: machine 1
  ASSERT_EQ(Run(*a, "CREATE TABLE shared (a int PRIMARY KEY)").message, "");
  EXPECT_EQ(Run(*b, "CREATE TABLE shared (a int)").sqlstate, "42P07");
  ASSERT_EQ(Run(*b, "BEGIN; DROP TABLE shared").message, "");
  // a's DDL conflicts with b's open block only at commit; a sees the table still.
  EXPECT_EQ(Run(*a, "CREATE TABLE shared (a int)").sqlstate, "42P07");
  ASSERT_EQ(Run(*b, "COMMIT").message, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"COMMIT"});
  ASSERT_EQ(Run(*a, "CREATE TABLE shared (b text)").message, "");
  for (int m = 0; m < 3; ++m) {
    auto snap = Snapshot(m);
    const storage::TableDesc* t = FindTable(snap, "shared");
    ASSERT_NE(t, nullptr) << m;
    EXPECT_NE(t->FindColumn("b"), nullptr) << m;
  }
}

TEST_F(DdlTest, ConflictingBlocksFailOneCommitWith40001) {
  Start(2);
  auto a = NewSession();
  auto b = NewSession();
  ASSERT_EQ(Run(*a, "BEGIN; CREATE TABLE x (a int)").message, "");
  ASSERT_EQ(Run(*b, "BEGIN; CREATE TABLE y (a int)").message, "");
  ASSERT_EQ(Run(*a, "COMMIT").message, "");
  // Every DDL writes the catalog root (storage/catalog.h), so b's serializable block fails.
  Error e = Run(*b, "COMMIT");
  EXPECT_EQ(e.sqlstate, "40001");
  EXPECT_NE(e.detail.find("FaRMv2 transaction aborted"), std::string::npos) << e.detail;
  EXPECT_EQ(b->Status(), TxnStatus::kIdle);
  auto snap = Snapshot(0);
  EXPECT_NE(FindTable(snap, "x"), nullptr);
  EXPECT_EQ(FindTable(snap, "y"), nullptr);
}

TEST_F(DdlTest, ConcurrentStatementsOutsideBlocksAreRetried) {
  // Two sessions on two machines create tables at once; every DDL writes the catalog root, so
  // their transactions conflict, and the server retries them (DESIGN.md §2): no 40001 reaches
  // the client.
  Start(2);
  auto a = NewSession();
  auto b = NewSession();
  constexpr int kTables = 20;
  auto create = [&](Session& s, std::string prefix, std::vector<std::string>* errors) {
    for (int i = 0; i < kTables; ++i) {
      RecordingSink sink;
      auto r = s.SimpleQuery(fmt::format("CREATE TABLE {}{} (a int PRIMARY KEY)", prefix, i), sink);
      if (!r) errors->push_back(r.error().sqlstate + " " + r.error().message);
    }
  };
  std::vector<std::string> errors_a, errors_b;
  std::thread ta([&] { create(*a, "a", &errors_a); });
  std::thread tb([&] { create(*b, "b", &errors_b); });
  ta.join();
  tb.join();
  EXPECT_EQ(errors_a, std::vector<std::string>{});
  EXPECT_EQ(errors_b, std::vector<std::string>{});
  EXPECT_EQ(Snapshot(0)->tables().size(), 2u * kTables);
}

TEST_F(DdlTest, EngineWithoutNodeRefusesTables) {
  engine_ = NewEngine({});
  auto s = NewSession();
  Error e = Run(*s, "CREATE TABLE t (a int)");
  EXPECT_EQ(e.sqlstate, "0A000");
}

}  // namespace
}  // namespace farmdb::sql
