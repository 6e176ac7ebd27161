#include "storage/catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "storage/index_test_util.h"
#include "storage/table.h"

namespace farmdb::storage {
namespace {

// One machine's handles: a worker, its catalog cache and the caches user tables use.
struct Node {
  std::unique_ptr<Worker> worker;
  std::unique_ptr<SequenceCache> sequences;
  BTreeCache tables;
  std::unique_ptr<CatalogCache> catalog;
};

class CatalogTest : public ::testing::Test {
 protected:
  void Start(int machines) {
    cluster_ = std::make_unique<TestCluster>(Machines(machines), Patient());
    for (int m = 0; m < machines; ++m) {
      auto n = std::make_unique<Node>();
      n->worker = cluster_->engine(m).NewWorker();
      n->sequences = std::make_unique<SequenceCache>(cluster_->engine(m));
      n->catalog = std::make_unique<CatalogCache>(TableCaches{&n->tables, n->sequences.get()});
      nodes_.push_back(std::move(n));
    }
    auto t = *nodes_[0]->worker->Begin({});
    auto c = Catalog::Bootstrap(*t, {}, nodes_[0]->catalog.get());
    ASSERT_TRUE(c);
    ASSERT_TRUE(t->Commit());
    root_ = c->root();
  }
  void TearDown() override {
    for (auto& n : nodes_) n->worker->FlushTruncations();
    if (cluster_) {
      EXPECT_EQ(cluster_->CheckReplicas(), "");
    }
  }

  Catalog Cat(int m) { return Catalog::Open(root_, nodes_[m]->catalog.get()); }
  TableCaches Caches(int m) { return {&nodes_[m]->tables, nodes_[m]->sequences.get()}; }

  // Runs fn(txn) on machine m until it commits or fails for a reason other than a conflict;
  // returns fn's result (its error if it failed).
  template <typename Fn>
  auto Run(int m, Fn fn) -> decltype(fn(std::declval<Txn&>())) {
    for (;;) {
      auto t = *nodes_[m]->worker->Begin({});
      auto r = fn(*t);
      if (!r) {
        t->Abort();
        if (r.error().IsRetryable()) continue;
        return r;
      }
      if (t->Commit()) return r;
    }
  }

  SnapshotPtr Snap(int m) {
    return *Run(m, [&](Txn& t) { return Cat(m).Snapshot(t); });
  }

  Oid CreateT(int m, CreateTableDef def) {
    auto oid = Run(m, [&](Txn& t) { return Cat(m).CreateTable(t, def); });
    EXPECT_TRUE(oid) << (oid ? "" : oid.error().error.message);
    return oid.value_or(0);
  }

  Table Open(int m, const SnapshotPtr& s, Oid table) {
    return Table(s->TableByOid(table)->storage, Caches(m));
  }

  std::unique_ptr<TestCluster> cluster_;
  std::vector<std::unique_ptr<Node>> nodes_;
  Addr root_;
};

ColumnDef Col(std::string name, TypeId type, int32_t typmod = -1, bool not_null = false,
              std::optional<std::string> default_expr = std::nullopt) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.typmod = typmod;
  c.not_null = not_null;
  c.default_expr = std::move(default_expr);
  return c;
}

IndexColumnDef Key(std::string column, bool descending = false) {
  IndexColumnDef k;
  k.column = std::move(column);
  k.descending = descending;
  return k;
}

IndexDef Index(std::vector<IndexColumnDef> columns, std::string name = "") {
  IndexDef x;
  x.columns = std::move(columns);
  x.name = std::move(name);
  return x;
}

Value Int(int64_t v) { return Value::Int(TypeId::kInt4, v); }
Value Text(std::string s) { return Value::Str(TypeId::kText, std::move(s)); }

// t(a int primary key, b text not null default 'x', c varchar(10) unique, check (b <> ''))
CreateTableDef Sample(std::string name = "t") {
  CreateTableDef def;
  def.relname = std::move(name);
  def.columns = {Col("a", TypeId::kInt4), Col("b", TypeId::kText, -1, true, "'x'::text"),
                 Col("c", TypeId::kVarchar, 14)};
  def.primary_key = Index({Key("a")});
  def.unique_constraints = {Index({Key("c")})};
  def.checks = {CheckDef{"", "(b <> ''::text)", {"b"}}};
  return def;
}

TEST_F(CatalogTest, BootstrapHoldsBuiltInNamespacesAndSuperuser) {
  Start(1);
  SnapshotPtr s = Snap(0);
  EXPECT_EQ(s->version().counter, 1u);
  ASSERT_NE(s->FindNamespace("public"), nullptr);
  EXPECT_EQ(s->FindNamespace("public")->oid, kPublicNamespace);
  EXPECT_EQ(s->NamespaceByOid(kPgCatalogNamespace)->nspname, "pg_catalog");
  const RoleDesc* su = s->FindRole("postgres");
  ASSERT_NE(su, nullptr);
  EXPECT_EQ(su->oid, kBootstrapSuperuser);
  EXPECT_TRUE(su->rolsuper);
  EXPECT_TRUE(s->tables().empty());
}

TEST_F(CatalogTest, CreateTableDescribesColumnsIndexesAndConstraints) {
  Start(1);
  Oid oid = CreateT(0, Sample());
  EXPECT_GE(oid, kFirstNormalOid);
  SnapshotPtr s = Snap(0);
  EXPECT_EQ(s->version().counter, 2u);
  const TableDesc* t = s->FindTable(kPublicNamespace, "t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t, s->TableByOid(oid));
  ASSERT_EQ(t->columns.size(), 3u);
  EXPECT_EQ(t->columns[0].attname, "a");
  EXPECT_TRUE(t->columns[0].attnotnull) << "primary key columns are NOT NULL";
  EXPECT_EQ(t->columns[1].attnum, 2);
  EXPECT_EQ(t->columns[1].default_expr, "'x'::text");
  EXPECT_EQ(t->columns[2].atttypid(), 1043u);
  EXPECT_EQ(t->columns[2].atttypmod, 14);
  EXPECT_FALSE(t->columns[2].attnotnull);
  // PostgreSQL's generated names, the primary key first.
  ASSERT_EQ(t->indexes.size(), 2u);
  EXPECT_EQ(t->indexes[0].relname, "t_pkey");
  EXPECT_TRUE(t->indexes[0].indisprimary);
  EXPECT_EQ(t->indexes[1].relname, "t_c_key");
  EXPECT_TRUE(t->indexes[1].indisunique);
  EXPECT_FALSE(t->indexes[1].indisprimary);
  EXPECT_EQ(t->IndexAt(0), &t->indexes[0]);
  EXPECT_EQ(t->IndexAt(1), &t->indexes[1]);
  EXPECT_EQ(t->IndexAt(2), nullptr);
  ASSERT_EQ(t->constraints.size(), 3u);
  EXPECT_EQ(t->ConstraintOf(t->indexes[1].oid)->conname, "t_c_key");
  const ConstraintDesc* check = s->FindConstraint(oid, "t_b_check");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->contype, 'c');
  EXPECT_EQ(check->check_expr, "(b <> ''::text)");
  EXPECT_EQ(check->conkey, std::vector<int16_t>{2});
  // Every relation name resolves, to the right kind.
  EXPECT_EQ(s->FindRelation(kPublicNamespace, "t_c_key")->relkind(), 'i');
  EXPECT_EQ(s->FindIndex(kPublicNamespace, "t_pkey")->indrelid, oid);
  std::vector<std::string> path = {"public"};
  EXPECT_EQ(s->ResolveRelation(path, "t")->oid, oid);
  EXPECT_FALSE(s->ResolveRelation(path, "nope"));

  // The stored descriptor drives storage: rows go in and come back by key, and the unique
  // constraint's violation names its index position.
  auto inserted = Run(0, [&](Txn& txn) -> StorageResult<void> {
    Table table = Open(0, s, oid);
    for (int i = 0; i < 5; ++i) {
      auto r = table.Insert(txn, std::vector<Value>{Int(i), Text("b"), Text("c" + std::to_string(i))});
      if (!r) return std::unexpected(r.error());
    }
    return {};
  });
  ASSERT_TRUE(inserted);
  auto dup = Run(0, [&](Txn& txn) {
    return Open(0, s, oid).Insert(txn, std::vector<Value>{Int(9), Text("b"), Text("c3")});
  });
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, StorageError::Code::kDuplicateKey);
  EXPECT_EQ(t->IndexAt(dup.error().index)->relname, "t_c_key");

  // Name clashes: the table, an index name, a column twice, a key on a missing column.
  auto again = Run(0, [&](Txn& txn) { return Cat(0).CreateTable(txn, Sample()); });
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, CatalogError::Code::kDuplicate);
  EXPECT_EQ(again.error().error.sqlstate, "42P07");
  EXPECT_EQ(again.error().error.message, "relation \"t\" already exists");
  CreateTableDef clash = Sample("t_pkey");
  EXPECT_EQ(Run(0, [&](Txn& txn) { return Cat(0).CreateTable(txn, clash); }).error().error.sqlstate,
            "42P07");
  CreateTableDef twice = Sample("u");
  twice.columns.push_back(Col("a", TypeId::kInt8));
  EXPECT_EQ(Run(0, [&](Txn& txn) { return Cat(0).CreateTable(txn, twice); }).error().error.sqlstate,
            "42701");
  CreateTableDef bad_key = Sample("u");
  bad_key.primary_key->columns = {Key("zz")};
  auto missing = Run(0, [&](Txn& txn) { return Cat(0).CreateTable(txn, bad_key); });
  EXPECT_EQ(missing.error().error.sqlstate, "42703");
  EXPECT_EQ(missing.error().error.message, "column \"zz\" named in key does not exist");
  CreateTableDef existing = Sample();
  existing.if_not_exists = true;
  EXPECT_EQ(*Run(0, [&](Txn& txn) { return Cat(0).CreateTable(txn, existing); }), oid);
  // Failed DDL changed nothing.
  EXPECT_EQ(Snap(0)->version().counter, 2u);
}

TEST_F(CatalogTest, GeneratedNamesAvoidClashesAndFitNamedatalen) {
  Start(1);
  CreateTableDef def = Sample();
  def.unique_constraints.push_back(Index({Key("c")}));  // t_c_key taken: t_c_key1
  std::string long_name(70, 'n');
  def.columns.push_back(Col(long_name, TypeId::kInt8));
  def.unique_constraints.push_back(Index({Key(long_name)}));
  Oid oid = CreateT(0, def);
  const TableDesc* t = Snap(0)->TableByOid(oid);
  ASSERT_EQ(t->indexes.size(), 4u);
  EXPECT_EQ(t->indexes[1].relname, "t_c_key");
  EXPECT_EQ(t->indexes[2].relname, "t_c_key1");
  EXPECT_EQ(t->indexes[3].relname, "t_" + std::string(63 - 6, 'n') + "_key");
  auto idx = Run(0, [&](Txn& txn) {
    return Cat(0).CreateIndex(txn, oid, Index({Key("b"), Key("c", true)}));
  });
  ASSERT_TRUE(idx);
  const IndexDesc* x = Snap(0)->IndexByOid(*idx);
  EXPECT_EQ(x->relname, "t_b_c_idx");
  EXPECT_TRUE(x->keys[1].descending);
  EXPECT_TRUE(x->keys[1].nulls_first) << "DESC defaults to NULLS FIRST";
}

TEST_F(CatalogTest, DdlIsVisibleOnEveryMachine) {
  Start(3);
  for (int m = 0; m < 3; ++m) EXPECT_EQ(Snap(m)->tables().size(), 0u);
  Oid oid = CreateT(1, Sample());
  for (int m = 0; m < 3; ++m) {
    SnapshotPtr s = Snap(m);
    ASSERT_NE(s->FindTable(kPublicNamespace, "t"), nullptr) << "machine " << m;
    EXPECT_EQ(s->FindTable(kPublicNamespace, "t")->oid, oid);
    EXPECT_EQ(s->version(), Snap(1)->version());
  }
  // A row inserted through machine 2's view is read through machine 0's.
  ASSERT_TRUE(Run(2, [&](Txn& t) {
    return Open(2, Snap(2), oid).Insert(t, std::vector<Value>{Int(7), Text("b"), Text("c")});
  }));
  auto got = Run(0, [&](Txn& t) -> StorageResult<std::vector<Value>> {
    Table table = Open(0, Snap(0), oid);
    auto row = table.Get(t, std::vector<Value>{Int(7)});
    if (!row) return std::unexpected(row.error());
    if (!*row) return std::vector<Value>{};
    return table.Columns(**row);
  });
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ((*got)[2].AsString(), "c");
}

TEST_F(CatalogTest, CacheRevalidatesAfterDdlElsewhere) {
  Start(3);
  Oid first = CreateT(0, Sample());
  SnapshotPtr cached = Snap(1);
  uint64_t loads = nodes_[1]->catalog->loads();
  // No DDL: the same snapshot object, no reload.
  EXPECT_EQ(Snap(1).get(), cached.get());
  EXPECT_EQ(nodes_[1]->catalog->loads(), loads);
  // Machine 2 drops t and creates a different t in one transaction.
  CreateTableDef other;
  other.relname = "t";
  other.columns = {Col("x", TypeId::kText), Col("y", TypeId::kInt8)};
  auto second = Run(2, [&](Txn& t) -> CatalogResult<Oid> {
    if (auto r = Cat(2).DropTable(t, first); !r) return std::unexpected(r.error());
    return Cat(2).CreateTable(t, other);
  });
  ASSERT_TRUE(second);
  EXPECT_NE(*second, first);
  SnapshotPtr fresh = Snap(1);
  EXPECT_EQ(nodes_[1]->catalog->loads(), loads + 1);
  EXPECT_EQ(fresh->TableByOid(first), nullptr);
  EXPECT_EQ(fresh->IndexByOid(cached->TableByOid(first)->indexes[0].oid), nullptr);
  const TableDesc* t = fresh->FindTable(kPublicNamespace, "t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->oid, *second);
  EXPECT_EQ(t->columns[0].attname, "x");
  EXPECT_EQ(t->PrimaryKey(), nullptr);
  EXPECT_FALSE(t->rowid_sequence.addr.null()) << "no primary key: hidden row ids";
  EXPECT_EQ(fresh->FindRelation(kPublicNamespace, "t_pkey"), std::nullopt);
  // The old snapshot object is untouched (immutable), still showing the old table.
  EXPECT_EQ(cached->TableByOid(first)->relname, "t");
}

TEST_F(CatalogTest, RolledBackDdlLeavesNoTrace) {
  Start(1);
  CatalogVersion before = Snap(0)->version();
  {
    auto t = *nodes_[0]->worker->Begin({});
    auto oid = Cat(0).CreateTable(*t, Sample("gone"));
    ASSERT_TRUE(oid);
    // The transaction sees its own DDL (and a second DDL in it sees the first).
    auto s = Cat(0).Snapshot(*t);
    ASSERT_TRUE(s);
    EXPECT_NE((*s)->FindTable(kPublicNamespace, "gone"), nullptr);
    ASSERT_TRUE(Cat(0).CreateIndex(*t, *oid, Index({Key("b")})));
    s = Cat(0).Snapshot(*t);
    EXPECT_NE((*s)->FindIndex(kPublicNamespace, "gone_b_idx"), nullptr);
    t->Abort();
  }
  SnapshotPtr after = Snap(0);
  EXPECT_EQ(after->version(), before);
  EXPECT_EQ(after->FindRelation(kPublicNamespace, "gone"), std::nullopt);
  EXPECT_EQ(after->FindRelation(kPublicNamespace, "gone_b_idx"), std::nullopt);
  // Another transaction's DDL reaches the same version counter the aborted one had cached;
  // the writer id keeps the two apart.
  Oid kept = CreateT(0, Sample("kept"));
  SnapshotPtr s = Snap(0);
  EXPECT_EQ(s->version().counter, before.counter + 1);
  EXPECT_EQ(s->FindRelation(kPublicNamespace, "gone"), std::nullopt);
  EXPECT_EQ(s->FindTable(kPublicNamespace, "kept")->oid, kept);
}

// A statement reads the version in its own Txn: under serializable a DDL committed meanwhile
// fails the statement's validation; under SI the statement keeps its consistent snapshot.
TEST_F(CatalogTest, ConcurrentDdlFailsSerializableStatementsOnly) {
  Start(2);
  Oid oid = CreateT(0, Sample());
  for (auto isolation : {txn::Isolation::kSerializable, txn::Isolation::kSnapshot}) {
    txn::TxnOptions options;
    options.isolation = isolation;
    auto t = *nodes_[0]->worker->Begin(options);
    auto s = Cat(0).Snapshot(*t);
    ASSERT_TRUE(s);
    int64_t key = isolation == txn::Isolation::kSerializable ? 1 : 2;
    ASSERT_TRUE(Open(0, *s, oid).Insert(*t, std::vector<Value>{Int(key), Text("b"), Text("c" + std::to_string(key))}));
    auto role = "r" + std::to_string(key);
    ASSERT_TRUE(Run(1, [&](Txn& ddl) { return Cat(1).CreateRole(ddl, RoleDef{role, false, true, ""}); }));
    auto committed = t->Commit();
    if (isolation == txn::Isolation::kSerializable) {
      ASSERT_FALSE(committed);
      EXPECT_TRUE(committed.error().IsRetryable());
    } else {
      EXPECT_TRUE(committed);
    }
  }
}

TEST_F(CatalogTest, ConcurrentCreateTableOfOneNameHasOneWinner) {
  Start(3);
  constexpr int kThreads = 6;
  std::atomic<int> won{0}, exists{0}, other{0};
  std::vector<Oid> winners(kThreads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      int m = i % 3;
      auto worker = cluster_->engine(m).NewWorker();
      CatalogCache cache;  // per thread: a cold cache on every attempt's first round
      Catalog cat = Catalog::Open(root_, &cache);
      CreateTableDef def = Sample("race");
      def.columns[1].name = "b" + std::to_string(i);  // tell the winners apart
      def.checks.clear();
      for (;;) {
        auto t = *worker->Begin({});
        auto r = cat.CreateTable(*t, def);
        if (!r) {
          t->Abort();
          if (r.error().IsRetryable()) continue;
          (r.error().error.sqlstate == "42P07" ? exists : other)++;
          break;
        }
        if (t->Commit()) {
          winners[i] = *r;
          ++won;
          break;
        }
      }
      worker->FlushTruncations();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(exists.load(), kThreads - 1);
  EXPECT_EQ(other.load(), 0);
  SnapshotPtr s = Snap(0);
  ASSERT_EQ(s->tables().size(), 1u);
  const TableDesc& t = s->tables().begin()->second;
  int winner = static_cast<int>(std::ranges::find_if(winners, [](Oid o) { return o != 0; }) -
                                winners.begin());
  EXPECT_EQ(t.oid, winners[winner]);
  EXPECT_EQ(t.columns[1].attname, "b" + std::to_string(winner)) << "the winner's definition";
}


// Rows of Sample(): (i, "b" + i % 3, "c" + i).
StorageResult<void> FillSample(Txn& t, const Table& table, int n) {
  for (int i = 0; i < n; ++i) {
    auto r = table.Insert(t, std::vector<Value>{Int(i), Text("b" + std::to_string(i % 3)),
                                                Text("c" + std::to_string(i))});
    if (!r) return std::unexpected(r.error());
  }
  return {};
}

// Column 0 of every row an index scan over `prefix` (all rows if empty) finds, in scan order.
StorageResult<std::vector<int64_t>> ScanFirstColumn(Txn& t, const Table& table, uint32_t index,
                                                    std::vector<Value> prefix) {
  IndexScan scan;
  scan.index = index;
  if (!prefix.empty()) {
    std::string key = table.IndexKey(index, prefix);
    scan.lower = KeyBound{key, true};
    scan.upper = KeyBound{PrefixSuccessor(key), false};
  }
  auto it = table.Scan(t, scan);
  if (!it) return std::unexpected(it.error());
  std::vector<int64_t> out;
  for (;;) {
    auto more = it->Next();
    if (!more) return std::unexpected(more.error());
    if (!*more) return out;
    out.push_back(table.Column(it->row(), 0).AsInt());
  }
}

TEST_F(CatalogTest, CreateIndexFillsFromRowsAndDropIndexKeepsConstraintIndexes) {
  Start(1);
  Oid oid = CreateT(0, Sample());
  ASSERT_TRUE(Run(0, [&](Txn& t) { return FillSample(t, Open(0, Snap(0), oid), 9); }));
  auto idx = Run(0, [&](Txn& t) { return Cat(0).CreateIndex(t, oid, Index({Key("b")})); });
  ASSERT_TRUE(idx);
  SnapshotPtr s = Snap(0);
  const TableDesc* t = s->TableByOid(oid);
  ASSERT_EQ(t->IndexAt(2)->oid, *idx);
  auto found = Run(0, [&](Txn& txn) { return ScanFirstColumn(txn, Open(0, s, oid), 2, {Text("b1")}); });
  ASSERT_TRUE(found);
  std::ranges::sort(*found);  // equal keys come in row Addr order
  EXPECT_EQ(*found, (std::vector<int64_t>{1, 4, 7}));
  // A unique index over duplicate values fails and leaves nothing behind.
  IndexDef unique = Index({Key("b")});
  unique.unique = true;
  auto dup = Run(0, [&](Txn& txn) { return Cat(0).CreateIndex(txn, oid, unique); });
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().error.sqlstate, "23505");
  EXPECT_EQ(dup.error().error.message, "could not create unique index \"t_b_idx1\"");
  EXPECT_EQ(Snap(0)->version(), s->version());
  IndexDef named = Index({Key("b")}, "t_b_idx");
  EXPECT_EQ(Run(0, [&](Txn& txn) { return Cat(0).CreateIndex(txn, oid, named); }).error().error.sqlstate,
            "42P07");
  named.if_not_exists = true;
  EXPECT_EQ(*Run(0, [&](Txn& txn) { return Cat(0).CreateIndex(txn, oid, named); }), *idx);
  // An index that enforces a constraint is dropped through the constraint only.
  auto refused = Run(0, [&](Txn& txn) { return Cat(0).DropIndex(txn, t->indexes[1].oid); });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().error.sqlstate, "2BP01");
  EXPECT_EQ(refused.error().error.message,
            "cannot drop index t_c_key because constraint t_c_key on table t requires it");
  ASSERT_TRUE(Run(0, [&](Txn& txn) { return Cat(0).DropIndex(txn, *idx); }));
  s = Snap(0);
  EXPECT_EQ(s->IndexByOid(*idx), nullptr);
  EXPECT_EQ(s->FindRelation(kPublicNamespace, "t_b_idx"), std::nullopt);
  // The remaining positions still line up with storage: t_c_key reports a duplicate.
  auto again = Run(0, [&](Txn& txn) {
    return Open(0, s, oid).Insert(txn, std::vector<Value>{Int(100), Text("b"), Text("c1")});
  });
  ASSERT_FALSE(again);
  EXPECT_EQ(s->TableByOid(oid)->IndexAt(again.error().index)->relname, "t_c_key");
  // Dropping the unique constraint drops its index and frees the key.
  ASSERT_TRUE(Run(0, [&](Txn& txn) { return Cat(0).DropConstraint(txn, oid, "t_c_key"); }));
  s = Snap(0);
  EXPECT_EQ(s->TableByOid(oid)->indexes.size(), 1u);
  EXPECT_TRUE(Run(0, [&](Txn& txn) {
    return Open(0, s, oid).Insert(txn, std::vector<Value>{Int(100), Text("b"), Text("c1")});
  }));
}

TEST_F(CatalogTest, AlterTableColumnsAndPrimaryKey) {
  Start(1);
  CreateTableDef def;
  def.relname = "h";
  def.columns = {Col("a", TypeId::kInt4), Col("b", TypeId::kText)};
  Oid oid = CreateT(0, def);
  auto insert = [&](std::vector<Value> row) {
    return Run(0, [&](Txn& t) { return Open(0, Snap(0), oid).Insert(t, row); });
  };
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(insert({Int(i), Text("v" + std::to_string(i))}));
  // ADD COLUMN: old rows read the missing value, new rows their own.
  auto attnum = Run(0, [&](Txn& t) {
    return Cat(0).AddColumn(t, oid, Col("c", TypeId::kInt8, -1, false, "42"),
                            Value::Int(TypeId::kInt8, 42));
  });
  ASSERT_TRUE(attnum);
  EXPECT_EQ(*attnum, 3);
  ASSERT_TRUE(insert({Int(4), Text("v4"), Value::Int(TypeId::kInt8, 7)}));
  auto dup_col = Run(0, [&](Txn& t) { return Cat(0).AddColumn(t, oid, Col("a", TypeId::kInt4)); });
  EXPECT_EQ(dup_col.error().error.message, "column \"a\" of relation \"h\" already exists");
  EXPECT_EQ(Snap(0)->TableByOid(oid)->schema_version, 2);
  // ADD PRIMARY KEY rewrites onto the key; every row survives with its values.
  auto pk = Run(0, [&](Txn& t) { return Cat(0).AddPrimaryKey(t, oid, Index({Key("a")})); });
  ASSERT_TRUE(pk) << pk.error().error.message;
  SnapshotPtr s = Snap(0);
  const TableDesc* t = s->TableByOid(oid);
  ASSERT_NE(t->PrimaryKey(), nullptr);
  EXPECT_EQ(t->PrimaryKey()->relname, "h_pkey");
  EXPECT_TRUE(t->rowid_sequence.addr.null());
  EXPECT_TRUE(t->columns[0].attnotnull);
  auto get = [&](int64_t a) {
    return Run(0, [&](Txn& txn) -> StorageResult<std::vector<Value>> {
      Table table = Open(0, Snap(0), oid);
      auto row = table.Get(txn, std::vector<Value>{Int(a)});
      if (!row) return std::unexpected(row.error());
      if (!*row) return std::vector<Value>{};
      return table.Columns(**row);
    });
  };
  auto row2 = get(2);
  ASSERT_TRUE(row2);
  ASSERT_EQ(row2->size(), 3u);
  EXPECT_EQ((*row2)[1].AsString(), "v2");
  EXPECT_EQ((*row2)[2].AsInt(), 42);
  EXPECT_EQ((*get(4))[2].AsInt(), 7);
  auto second_pk = Run(0, [&](Txn& txn) { return Cat(0).AddPrimaryKey(txn, oid, Index({Key("b")})); });
  EXPECT_EQ(second_pk.error().error.sqlstate, "42P16");
  // DROP COLUMN takes its indexes along and keeps row positions.
  ASSERT_TRUE(Run(0, [&](Txn& txn) { return Cat(0).CreateIndex(txn, oid, Index({Key("b")})); }));
  ASSERT_TRUE(Run(0, [&](Txn& txn) { return Cat(0).DropColumn(txn, oid, "b"); }));
  s = Snap(0);
  t = s->TableByOid(oid);
  EXPECT_EQ(t->FindColumn("b"), nullptr);
  EXPECT_TRUE(t->columns[1].attisdropped);
  EXPECT_EQ(t->columns[1].attname, "........pg.dropped.2........");
  EXPECT_EQ(t->columns[1].atttypid(), 0u);
  EXPECT_EQ(t->indexes.size(), 1u) << "h_b_idx went with b";
  EXPECT_EQ(s->FindRelation(kPublicNamespace, "h_b_idx"), std::nullopt);
  EXPECT_EQ((*get(3))[2].AsInt(), 42);
  auto gone = Run(0, [&](Txn& txn) { return Cat(0).DropColumn(txn, oid, "b"); });
  EXPECT_EQ(gone.error().error.sqlstate, "42703");
  // Dropping the primary key of a non-empty table is refused for now (the rewrite cannot take
  // hidden row ids in the DDL's own transaction); an empty table goes onto a hidden row id.
  auto unkeyed = Run(0, [&](Txn& txn) { return Cat(0).DropConstraint(txn, oid, "h_pkey"); });
  EXPECT_EQ(unkeyed.error().error.sqlstate, "0A000");
  EXPECT_NE(Snap(0)->TableByOid(oid)->PrimaryKey(), nullptr);
  CreateTableDef e = Sample("e");
  Oid e_oid = CreateT(0, e);
  ASSERT_TRUE(Run(0, [&](Txn& txn) { return Cat(0).DropConstraint(txn, e_oid, "e_pkey"); }));
  s = Snap(0);
  EXPECT_EQ(s->TableByOid(e_oid)->PrimaryKey(), nullptr);
  EXPECT_FALSE(s->TableByOid(e_oid)->rowid_sequence.addr.null());
  EXPECT_EQ(s->FindRelation(kPublicNamespace, "e_pkey"), std::nullopt);
  ASSERT_TRUE(Run(0, [&](Txn& txn) { return FillSample(txn, Open(0, Snap(0), e_oid), 3); }));
  ASSERT_TRUE(Run(0, [&](Txn& txn) {
    return Open(0, Snap(0), e_oid).Insert(txn, std::vector<Value>{Int(0), Text("b"), Text("c9")});
  })) << "no primary key: a repeated a is fine";
  // A primary key over a duplicate or a NULL fails and changes nothing.
  CreateTableDef n;
  n.relname = "n";
  n.columns = {Col("a", TypeId::kInt4), Col("b", TypeId::kInt4)};
  Oid n_oid = CreateT(0, n);
  ASSERT_TRUE(Run(0, [&](Txn& txn) -> StorageResult<void> {
    Table table = Open(0, Snap(0), n_oid);
    for (auto row : {std::vector<Value>{Int(1), Int(5)}, std::vector<Value>{Int(1), Value::Null(TypeId::kInt4)}}) {
      if (auto r = table.Insert(txn, row); !r) return std::unexpected(r.error());
    }
    return {};
  }));
  auto dup = Run(0, [&](Txn& txn) { return Cat(0).AddPrimaryKey(txn, n_oid, Index({Key("a")})); });
  EXPECT_EQ(dup.error().error.sqlstate, "23505");
  EXPECT_EQ(dup.error().error.message, "could not create unique index \"n_pkey\"");
  auto nulls = Run(0, [&](Txn& txn) { return Cat(0).AddPrimaryKey(txn, n_oid, Index({Key("b")})); });
  EXPECT_EQ(nulls.error().error.sqlstate, "23502");
  EXPECT_EQ(nulls.error().error.message, "column \"b\" of relation \"n\" contains null values");
  EXPECT_EQ(Snap(0)->TableByOid(n_oid)->PrimaryKey(), nullptr);
}

TEST_F(CatalogTest, SequencesRolesAndSettings) {
  Start(1);
  Oid table = CreateT(0, Sample());
  CreateSequenceDef owned;
  owned.relname = "t_a_seq";
  owned.owned_by = std::pair<Oid, int16_t>{table, 1};
  auto seq = Run(0, [&](Txn& t) { return Cat(0).CreateSequence(t, owned); });
  ASSERT_TRUE(seq);
  CreateSequenceDef loose;
  loose.relname = "loose";
  auto loose_oid = Run(0, [&](Txn& t) { return Cat(0).CreateSequence(t, loose); });
  ASSERT_TRUE(loose_oid);
  SnapshotPtr s = Snap(0);
  const SequenceDesc* d = s->FindSequence(kPublicNamespace, "t_a_seq");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->oid, *seq);
  EXPECT_EQ(s->FindRelation(kPublicNamespace, "t_a_seq")->relkind(), 'S');
  EXPECT_EQ(d->owned_by_table, table);
  EXPECT_EQ(*nodes_[0]->sequences->Next(d->object), 1);
  EXPECT_EQ(*nodes_[0]->sequences->Next(d->object), 2);
  CreateSequenceDef clash;
  clash.relname = "t";
  EXPECT_EQ(Run(0, [&](Txn& t) { return Cat(0).CreateSequence(t, clash); }).error().error.sqlstate,
            "42P07");
  // DROP COLUMN and DROP TABLE drop the sequences their columns own; DROP SEQUENCE frees the
  // object.
  CreateSequenceDef on_c;
  on_c.relname = "t_c_seq";
  on_c.owned_by = std::pair<Oid, int16_t>{table, 3};
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).CreateSequence(t, on_c); }));
  EXPECT_EQ(Snap(0)->sequences().size(), 3u);
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).DropColumn(t, table, "c"); }));
  EXPECT_EQ(Snap(0)->FindSequence(kPublicNamespace, "t_c_seq"), nullptr);
  EXPECT_NE(Snap(0)->FindSequence(kPublicNamespace, "t_a_seq"), nullptr);
  SequenceRef owned_object = d->object, loose_object = s->SequenceByOid(*loose_oid)->object;
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).DropTable(t, table); }));
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).DropSequence(t, *loose_oid); }));
  s = Snap(0);
  EXPECT_TRUE(s->tables().empty());
  EXPECT_TRUE(s->sequences().empty());
  for (SequenceRef ref : {owned_object, loose_object}) {
    auto t = *nodes_[0]->worker->Begin(ReadOnly());
    EXPECT_FALSE(Sequence::Read(*t, ref)) << "the sequence object was freed";
  }
  auto missing = Run(0, [&](Txn& t) { return Cat(0).DropTable(t, table); });
  EXPECT_EQ(missing.error().error.sqlstate, "42P01");

  // Roles and their settings.
  auto alice = Run(0, [&](Txn& t) { return Cat(0).CreateRole(t, RoleDef{"alice", false, true, "md5x"}); });
  ASSERT_TRUE(alice);
  EXPECT_GE(*alice, kFirstNormalOid);
  auto twice = Run(0, [&](Txn& t) { return Cat(0).CreateRole(t, RoleDef{"alice", false, true, ""}); });
  EXPECT_EQ(twice.error().error.sqlstate, "42710");
  EXPECT_EQ(twice.error().error.message, "role \"alice\" already exists");
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).SetDefault(t, 0, *alice, "work_mem", "64MB"); }));
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).SetDefault(t, 0, *alice, "work_mem", "1MB"); }));
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).SetDefault(t, 0, 0, "search_path", "public"); }));
  s = Snap(0);
  ASSERT_EQ(s->settings().size(), 2u);
  EXPECT_EQ(s->FindRole("alice")->rolpassword, "md5x");
  auto has = [](const SnapshotPtr& snap, Oid role, std::string value) {
    return std::ranges::any_of(snap->settings(), [&](const SettingDesc& x) {
      return x.setrole == role && x.value == value;
    });
  };
  EXPECT_TRUE(has(s, *alice, "1MB"));
  EXPECT_TRUE(has(s, 0, "public"));
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).SetDefault(t, 0, 0, "search_path", std::nullopt); }));
  EXPECT_FALSE(has(Snap(0), 0, "public"));
  ASSERT_TRUE(Run(0, [&](Txn& t) { return Cat(0).DropRole(t, "alice"); }));
  s = Snap(0);
  EXPECT_EQ(s->FindRole("alice"), nullptr);
  EXPECT_TRUE(s->settings().empty()) << "a dropped role's settings go with it";
  EXPECT_EQ(Run(0, [&](Txn& t) { return Cat(0).DropRole(t, "alice"); }).error().error.sqlstate,
            "42704");
  EXPECT_EQ(Run(0, [&](Txn& t) { return Cat(0).DropRole(t, "postgres"); }).error().error.sqlstate,
            "2BP01");
}

}  // namespace
}  // namespace farmdb::storage
