// CREATE/DROP INDEX, CREATE/DROP SEQUENCE, ALTER TABLE, TRUNCATE, CHECK constraints and
// expression defaults end to end through Session on a Node, over rows written through storage:
// catalog contents and the errors PostgreSQL 15 gives (checked against it:
// regress/protocol/sql/ddl_indexes.sql, ddl_sequences.sql, ddl_alter.sql).
#include "sql/exec/ddl_test_fixture.h"

#include "sql/types/type_io.h"

namespace farmdb::sql {
namespace {

TEST_F(DdlTest, ChecksAndExpressionDefaultsAsPostgresStoresThem) {
  Start(1);
  auto s = NewSession();
  // Names and texts as PostgreSQL 15's pg_constraint / pg_get_constraintdef / pg_get_expr.
  ASSERT_EQ(Run(*s, "CREATE TABLE ck (a int CHECK (a > 0), b text DEFAULT 'x' CHECK (b <> ''), "
                    "g int DEFAULT (1 + 2) * 3, i int CHECK (i IS NOT NULL OR a IS NULL), v text DEFAULT lower('ABC'), "
                    "CONSTRAINT named CHECK (a < 1000 OR b IS NULL), CHECK (a + g > 0))")
                .message,
            "");
  auto snap = Snapshot(0);
  const storage::TableDesc* t = FindTable(snap, "ck");
  ASSERT_NE(t, nullptr);
  std::vector<std::pair<std::string, std::string>> checks;
  for (const storage::ConstraintDesc& c : t->constraints) checks.emplace_back(c.conname, c.check_expr);
  EXPECT_EQ(checks, (std::vector<std::pair<std::string, std::string>>{
                        {"ck_a_check", "(a > 0)"},
                        {"ck_b_check", "(b <> ''::text)"},
                        {"ck_check", "((i IS NOT NULL) OR (a IS NULL))"},
                        {"named", "((a < 1000) OR (b IS NULL))"},
                        {"ck_check1", "((a + g) > 0)"},
                    }));
  EXPECT_EQ(t->FindColumn("b")->default_expr, "'x'::text");
  EXPECT_EQ(t->FindColumn("g")->default_expr, "((1 + 2) * 3)");
  EXPECT_EQ(t->FindColumn("v")->default_expr, "lower('ABC'::text)");
}

TEST_F(DdlTest, DefaultsAreCheckedAsPostgresCooksThem) {
  Start(1);
  auto s = NewSession();
  std::string sql = "CREATE TABLE z (a int DEFAULT nextval('nosuch'))";
  Error e = Run(*s, sql);
  EXPECT_EQ(e.sqlstate, "42P01");
  EXPECT_EQ(e.message, "relation \"nosuch\" does not exist");
  EXPECT_EQ(e.position, static_cast<int>(sql.find("'nosuch'")) + 1);
  e = Run(*s, "CREATE TABLE z (a int DEFAULT 'x'::text)");
  EXPECT_EQ(e.sqlstate, "42804");
  EXPECT_EQ(e.message, "column \"a\" is of type integer but default expression is of type text");
  EXPECT_EQ(e.hint, "You will need to rewrite or cast the expression.");
  EXPECT_EQ(Run(*s, "CREATE TABLE z (c int DEFAULT true)").sqlstate, "42804");
  ASSERT_EQ(Run(*s, "CREATE SEQUENCE zs; CREATE TABLE z (a int DEFAULT nextval('zs'), b text DEFAULT 5, "
                    "c int DEFAULT 1.5, d date DEFAULT now())")
                .message,
            "");
  EXPECT_EQ(FindTable(Snapshot(0), "z")->FindColumn("a")->default_expr, "nextval('zs'::regclass)");
  e = Run(*s, "DROP SEQUENCE zs");
  EXPECT_EQ(e.sqlstate, "2BP01");
  EXPECT_EQ(e.detail, "default value for column a of table z depends on sequence zs");
}

TEST_F(DdlTest, IndexesAreStoredAndBuiltOverExistingRows) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "CREATE TABLE t (a int, b text, c int)").message, "");
  Insert("t", {{Value::Int(TypeId::kInt4, 2), Value::Str(TypeId::kText, "x"), Value::Int(TypeId::kInt4, 1)},
               {Value::Int(TypeId::kInt4, 1), Value::Str(TypeId::kText, "x"), Value::Null(TypeId::kInt4)},
               {Value::Int(TypeId::kInt4, 1), Value::Str(TypeId::kText, "y"), Value::Null(TypeId::kInt4)}});
  ASSERT_EQ(Run(*s, "CREATE INDEX ON t (a, b DESC NULLS LAST); CREATE INDEX h ON t USING hash (b)").message, "");
  // A unique index over duplicates fails with the duplicated key, as PostgreSQL's tuplesort.
  Error e = Run(*s, "CREATE UNIQUE INDEX u ON t (a)");
  EXPECT_EQ(e.sqlstate, "23505");
  EXPECT_EQ(e.message, "could not create unique index \"u\"");
  EXPECT_EQ(e.detail, "Key (a)=(1) is duplicated.");
  // No duplicate (b, a); NULLs never collide.
  ASSERT_EQ(Run(*s, "CREATE UNIQUE INDEX u ON t (b, a)").message, "");
  ASSERT_EQ(Run(*s, "CREATE UNIQUE INDEX uc ON t (c)").message, "");
  auto snap = Snapshot(0);
  const storage::TableDesc* t = FindTable(snap, "t");
  ASSERT_EQ(t->indexes.size(), 4u);
  EXPECT_EQ(t->indexes[0].relname, "t_a_b_idx");
  EXPECT_EQ(t->indexes[0].keys, (std::vector<storage::IndexKeyColumn>{{1, false, false}, {2, true, false}}));
  EXPECT_EQ(t->indexes[1].kind, storage::IndexKind::kHash);
  EXPECT_TRUE(t->indexes[3].indisunique);
  EXPECT_EQ(t->ConstraintOf(t->indexes[3].oid), nullptr);  // a plain unique index, no constraint
  ASSERT_EQ(Run(*s, "DROP INDEX t_a_b_idx, h").message, "");
  EXPECT_EQ(FindTable(Snapshot(0), "t")->indexes.size(), 2u);
  EXPECT_EQ(Rows("t").size(), 3u);  // the rows stay
}

TEST_F(DdlTest, SequencesKeepTheirOptions) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "CREATE SEQUENCE d INCREMENT -2 CACHE 4 CYCLE; CREATE SEQUENCE i AS integer START 7").message, "");
  auto snap = Snapshot(0);
  auto options = [&](std::string_view name) {
    storage::SequenceOptions o;
    InTxn([&](txn::Txn& t, const storage::CatalogSnapshot& c) {
      auto state = storage::Sequence::Read(t, c.FindSequence(storage::kPublicNamespace, name)->object);
      if (state) o = state->options;
      return state.has_value();
    });
    return o;
  };
  storage::SequenceOptions d = options("d");
  EXPECT_EQ(d.increment, -2);
  EXPECT_EQ(d.min, INT64_MIN);
  EXPECT_EQ(d.max, -1);
  EXPECT_EQ(d.start, -1);
  EXPECT_EQ(d.cache, 4);
  EXPECT_TRUE(d.cycle);
  storage::SequenceOptions i = options("i");
  EXPECT_EQ(i.max, INT32_MAX);
  EXPECT_EQ(i.start, 7);
  Error e = Run(*s, "CREATE SEQUENCE x AS smallint MAXVALUE 100000");
  EXPECT_EQ(e.sqlstate, "22023");
  EXPECT_EQ(e.message, "MAXVALUE (100000) is out of range for sequence data type smallint");
  ASSERT_EQ(Run(*s, "DROP SEQUENCE d, i").message, "");
  EXPECT_TRUE(Snapshot(0)->sequences().empty());
}

TEST_F(DdlTest, AlterTableAndTruncateOverRows) {
  Start(1);
  auto s = NewSession();
  ASSERT_EQ(Run(*s, "CREATE TABLE t (id serial PRIMARY KEY, a int)").message, "");
  Insert("t", {{Value::Int(TypeId::kInt4, 1), Value::Int(TypeId::kInt4, 10)}});
  // Old rows read a constant default (attmissingval); new columns are stored as PostgreSQL does.
  ASSERT_EQ(Run(*s, "ALTER TABLE t ADD COLUMN d date DEFAULT '2020-1-2', ADD COLUMN n int, "
                    "ADD COLUMN k numeric(5,1) DEFAULT 1.26 * 2")
                .message,
            "");
  auto rows = Rows("t");
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].size(), 5u);
  EXPECT_EQ(FormatText(rows[0][2], {}), "2020-01-02");
  EXPECT_TRUE(rows[0][3].IsNull());
  EXPECT_EQ(FormatText(rows[0][4], {}), "2.5");  // evaluated once, in the column's typmod
  const storage::TableDesc* t = FindTable(Snapshot(0), "t");
  EXPECT_EQ(t->FindColumn("d")->default_expr, "'2020-01-02'::date");
  // What needs each old row evaluated or checked is refused, or fails as PostgreSQL does.
  Error e = Run(*s, "ALTER TABLE t ADD COLUMN x int NOT NULL");
  EXPECT_EQ(e.sqlstate, "23502");
  EXPECT_EQ(e.message, "column \"x\" of relation \"t\" contains null values");
  e = Run(*s, "ALTER TABLE t ADD COLUMN x serial");
  EXPECT_EQ(e.sqlstate, "0A000");
  EXPECT_EQ(e.message, "ADD COLUMN with a volatile DEFAULT on non-empty table \"t\" is not supported yet");
  e = Run(*s, "ALTER TABLE t ADD CHECK (a > 0)");
  EXPECT_EQ(e.sqlstate, "0A000");
  EXPECT_EQ(e.message, "ADD CONSTRAINT CHECK on non-empty table \"t\" is not supported yet");
  ASSERT_EQ(Run(*s, "ALTER TABLE t ADD UNIQUE (a), DROP COLUMN n").message, "");
  t = FindTable(Snapshot(0), "t");
  ASSERT_NE(t->ConstraintOf(t->indexes.back().oid), nullptr);
  EXPECT_EQ(t->indexes.back().relname, "t_a_key");
  EXPECT_EQ(t->FindColumn("n"), nullptr);

  // TRUNCATE empties the table; RESTART IDENTITY gives its serial a fresh sequence object.
  storage::SequenceRef before = Snapshot(0)->FindSequence(storage::kPublicNamespace, "t_id_seq")->object;
  ASSERT_EQ(Run(*s, "TRUNCATE t").message, "");
  EXPECT_TRUE(Rows("t").empty());
  EXPECT_EQ(Snapshot(0)->FindSequence(storage::kPublicNamespace, "t_id_seq")->object, before);
  Insert("t", {{Value::Int(TypeId::kInt4, 5), Value::Int(TypeId::kInt4, 1), Value::Null(TypeId::kDate),
                Value::Null(TypeId::kInt4), Value::Null(TypeId::kNumeric)}});
  ASSERT_EQ(Run(*s, "BEGIN; TRUNCATE TABLE t RESTART IDENTITY; ROLLBACK").message, "");
  EXPECT_EQ(Rows("t").size(), 1u);  // rolled back
  ASSERT_EQ(Run(*s, "TRUNCATE TABLE t RESTART IDENTITY").message, "");
  EXPECT_TRUE(Rows("t").empty());
  EXPECT_NE(Snapshot(0)->FindSequence(storage::kPublicNamespace, "t_id_seq")->object, before);
  // Empty now: CHECK can be added; its text is pg_get_constraintdef's.
  ASSERT_EQ(Run(*s, "ALTER TABLE t ADD CHECK (a > 0 AND d > '2000-01-01')").message, "");
  auto snap = Snapshot(0);
  const storage::ConstraintDesc* check = snap->FindConstraint(FindTable(snap, "t")->oid, "t_check");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->check_expr, "((a > 0) AND (d > '2000-01-01'::date))");
  EXPECT_EQ(check->conkey, (std::vector<int16_t>{2, 3}));
}

TEST_F(DdlTest, OtherMachinesSeeIndexesAndTruncatedRows) {
  Start(3);
  auto a = NewSession();  // machine 0
  auto b = NewSession();  // machine 1
  ASSERT_EQ(Run(*a, "CREATE TABLE m (k int PRIMARY KEY, v text)").message, "");
  Insert("m", {{Value::Int(TypeId::kInt4, 1), Value::Str(TypeId::kText, "x")},
               {Value::Int(TypeId::kInt4, 2), Value::Str(TypeId::kText, "x")}},
         2);
  Error e = Run(*b, "CREATE UNIQUE INDEX mv ON m (v)");
  EXPECT_EQ(e.sqlstate, "23505");
  EXPECT_EQ(e.detail, "Key (v)=(x) is duplicated.");
  ASSERT_EQ(Run(*b, "CREATE INDEX mv ON m (v); ALTER TABLE m ADD COLUMN n int DEFAULT 7").message, "");
  for (int machine = 0; machine < 3; ++machine) {
    auto snap = Snapshot(machine);
    ASSERT_NE(snap->FindIndex(storage::kPublicNamespace, "mv"), nullptr) << machine;
    auto rows = Rows("m", machine);
    ASSERT_EQ(rows.size(), 2u) << machine;
    EXPECT_EQ(rows[1][2].AsInt(), 7) << machine;
  }
  ASSERT_EQ(Run(*a, "TRUNCATE m").message, "");
  for (int machine = 0; machine < 3; ++machine) EXPECT_TRUE(Rows("m", machine).empty()) << machine;
  // The new, empty indexes take rows again, the secondary one included.
  Insert("m", {{Value::Int(TypeId::kInt4, 3), Value::Str(TypeId::kText, "y"), Value::Int(TypeId::kInt4, 1)}}, 1);
  EXPECT_EQ(Rows("m", 2).size(), 1u);
}

}  // namespace
}  // namespace farmdb::sql
