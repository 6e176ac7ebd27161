// CREATE TABLE / DROP TABLE end to end through Session on a Node: the catalog sees committed DDL
// on every machine, transaction blocks commit or roll it back, errors and notices are
// PostgreSQL 15's (checked against it: regress/protocol/sql/ddl_tables.sql).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <thread>

#include "sql/node.h"
#include "sql/session.h"
#include "sql/test_sink.h"
#include "sql/types/type_io.h"
#include "storage/catalog.h"
#include "storage/table.h"
#include "txn/engine.h"

namespace farmdb::sql {
namespace {

class DdlTest : public ::testing::Test {
 protected:
  void Start(int machines) {
    NodeOptions node_options;
    node_options.machines = machines;
    node_options.region_size = 8ull << 20;
    auto node = Node::Start(node_options);
    ASSERT_TRUE(node) << node.error();
    node_ = *node;
    EngineOptions options;
    options.node = node_;
    engine_ = NewEngine(std::move(options));
  }
  std::unique_ptr<Session> NewSession() {
    SessionOptions options;
    options.user = "postgres";
    options.database = "postgres";
    options.is_superuser = true;
    auto s = engine_->NewSession(std::move(options));
    EXPECT_TRUE(s.has_value());
    return s ? std::move(*s) : nullptr;
  }
  // Runs `sql` on a fresh sink_; the error (sqlstate empty on success).
  Error Run(Session& s, std::string_view sql) {
    sink_ = RecordingSink();
    auto r = s.SimpleQuery(sql, sink_);
    return r ? Error{} : r.error();
  }
  // The committed catalog as machine m sees it, read in a fresh transaction.
  storage::SnapshotPtr Snapshot(int m) {
    auto worker = node_->NewWorker(m);
    for (;;) {
      auto t = *worker->Begin({});
      auto s = node_->Catalog(m).Snapshot(*t);
      if (s && t->Commit()) return *s;
      EXPECT_TRUE(!s && s.error().IsRetryable()) << "snapshot failed";
      if (s || !s.error().IsRetryable()) return nullptr;
      t->Abort();
    }
  }
  const storage::TableDesc* FindTable(const storage::SnapshotPtr& s, std::string_view name) {
    return s->FindTable(storage::kPublicNamespace, name);
  }
  // Runs `fn(txn, snapshot)` in a fresh transaction on machine 0 until it commits (INSERT and
  // SELECT over tables are not this branch's: rows go in and come out through storage).
  template <typename Fn>
  void InTxn(Fn fn) {
    auto worker = node_->NewWorker(0);
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto t = *worker->Begin({});
      auto s = node_->Catalog(0).Snapshot(*t);
      ASSERT_TRUE(s || s.error().IsRetryable());
      if (s && fn(*t, **s) && t->Commit()) return;
      t->Abort();
    }
    FAIL() << "transaction never committed";
  }
  void Insert(std::string_view table, std::vector<std::vector<Value>> rows) {
    InTxn([&](txn::Txn& t, const storage::CatalogSnapshot& s) {
      storage::Table storage(s.FindTable(storage::kPublicNamespace, table)->storage, node_->Caches(0));
      for (const auto& row : rows) {
        if (!storage.Insert(t, row)) return false;
      }
      return true;
    });
  }
  std::vector<std::vector<Value>> Rows(std::string_view table) {
    std::vector<std::vector<Value>> rows;
    InTxn([&](txn::Txn& t, const storage::CatalogSnapshot& s) {
      rows.clear();
      storage::Table storage(s.FindTable(storage::kPublicNamespace, table)->storage, node_->Caches(0));
      auto it = storage.Scan(t, storage::IndexScan{});
      if (!it) return false;
      for (;;) {
        auto more = it->Next();
        if (!more) return false;
        if (!*more) return true;
        rows.push_back(storage.Columns(it->row()));
      }
    });
    return rows;
  }

  std::shared_ptr<Node> node_;
  std::unique_ptr<Engine> engine_;
  RecordingSink sink_;
};

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

TEST_F(DdlTest, EngineWithoutNodeRefusesTables) {
  engine_ = NewEngine({});
  auto s = NewSession();
  Error e = Run(*s, "CREATE TABLE t (a int)");
  EXPECT_EQ(e.sqlstate, "0A000");
}

}  // namespace
}  // namespace farmdb::sql
