// Table: behaviour of each operation (unique violations name their index and leave the Txn
// usable, NULLS DISTINCT, in-place vs moving updates, column-prefix scan bounds, hidden row ids,
// CREATE INDEX on a filled table, DROP INDEX / TRUNCATE / DROP free their objects, ADD COLUMN
// defaults). Property runs against a model: table_model_test.cc.
#include "storage/table.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

#include "storage/index_test_util.h"

namespace farmdb::storage {
namespace {

using Code = StorageError::Code;

Value I4(int64_t v) { return Value::Int(TypeId::kInt4, v); }
Value I8(int64_t v) { return Value::Int(TypeId::kInt8, v); }
Value Txt(std::string s) { return Value::Str(TypeId::kText, std::move(s)); }
Value Null8() { return Value::Null(TypeId::kInt8); }

// id int4 primary key, name text, c int8; index 1: name (non-unique B-tree), 2: c (unique
// B-tree), 3: (name, c) unique hash.
RowSchema Schema() { return {1, {TypeId::kInt4, TypeId::kText, TypeId::kInt8}}; }
std::vector<IndexSpec> Secondary() {
  return {{IndexKind::kBTree, false, {{1, {TypeId::kText}}}},
          {IndexKind::kBTree, true, {{2, {TypeId::kInt8}}}},
          {IndexKind::kHash, true, {{1, {TypeId::kText}}, {2, {TypeId::kInt8}}}}};
}

struct Fixture {
  explicit Fixture(int machines = 1) : cluster(Machines(machines), Patient()) {
    for (int m = 0; m < machines; ++m) {
      workers.push_back(cluster.engine(m).NewWorker());
      sequences.push_back(std::make_unique<SequenceCache>(cluster.engine(m)));
    }
  }
  std::unique_ptr<Txn> Begin(int m = 0) { return *workers[m]->Begin({}); }
  Table Open(TableDescriptor d, int m = 0) {
    return Table(std::make_shared<const TableDescriptor>(std::move(d)),
                 {&btree[m], sequences[m].get(), &hash[m]});
  }
  TableDescriptor Create(RowSchema schema, IndexSpec primary, std::vector<IndexSpec> secondary) {
    auto t = Begin();
    auto d = Table::Create(*t, std::move(schema), std::move(primary), std::move(secondary));
    EXPECT_TRUE(d);
    EXPECT_TRUE(t->Commit());
    return *d;
  }

  TestCluster cluster;
  std::vector<std::unique_ptr<Worker>> workers;
  BTreeCache btree[3];
  HashDirectoryCache hash[3];
  std::vector<std::unique_ptr<SequenceCache>> sequences;
};

std::vector<Value> Row(int64_t id, std::string name, Value c) {
  return {I4(id), Txt(std::move(name)), std::move(c)};
}

// The ids of the rows a scan yields, in scan order.
std::vector<int64_t> Ids(const Table& table, Txn& t, const IndexScan& scan) {
  std::vector<int64_t> ids;
  auto it = table.Scan(t, scan);
  EXPECT_TRUE(it) << Describe(it.error());
  if (!it) return ids;
  for (;;) {
    auto more = it->Next();
    EXPECT_TRUE(more);
    if (!more || !*more) return ids;
    ids.push_back(table.Column(it->row(), 0).AsInt());
  }
}

IndexScan Eq(const Table& table, uint32_t index, std::vector<Value> key) {
  std::string k = table.IndexKey(index, key);
  return {index, KeyBound{k, true}, KeyBound{k, true}};
}

std::optional<std::string> NameOf(const Table& table, Txn& t, int64_t id) {
  auto row = table.Get(t, std::vector{I4(id)});
  EXPECT_TRUE(row);
  if (!row || !*row) return std::nullopt;
  return table.Column(**row, 1).AsString();
}

class TableBasics : public ::testing::TestWithParam<IndexKind> {};

TEST_P(TableBasics, InsertGetUpdateDelete) {
  Fixture f;
  Table table = f.Open(f.Create(Schema(), {GetParam(), true, {{0, {TypeId::kInt4}}}}, Secondary()));
  auto t = f.Begin();
  for (int64_t id : {1, 2, 3}) {
    ASSERT_TRUE(table.Insert(*t, Row(id, "n" + std::to_string(id), I8(id * 10))));
  }
  // Unique violations name their index and take back the row: the Txn goes on and commits.
  auto dup = table.Insert(*t, Row(2, "other", I8(99)));
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, Code::kDuplicateKey);
  EXPECT_EQ(dup.error().index, 0u);
  dup = table.Insert(*t, Row(4, "other", I8(30)));
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().index, 2u);
  // NULLS DISTINCT: any number of NULL keys in unique indexes 2 and 3.
  ASSERT_TRUE(table.Insert(*t, Row(5, "same", Null8())));
  ASSERT_TRUE(table.Insert(*t, Row(6, "same", Null8())));
  ASSERT_TRUE(t->Commit());

  t = f.Begin();
  EXPECT_EQ(NameOf(table, *t, 2), "n2");
  EXPECT_EQ(NameOf(table, *t, 4), std::nullopt);
  EXPECT_EQ(Ids(table, *t, Eq(table, 1, {Txt("other")})), std::vector<int64_t>{});
  // Equal keys of a non-unique B-tree index come in Addr order: compare as sets.
  auto same = Ids(table, *t, Eq(table, 1, {Txt("same")}));
  std::ranges::sort(same);
  EXPECT_EQ(same, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(Ids(table, *t, Eq(table, 2, {I8(30)})), std::vector<int64_t>{3});
  EXPECT_EQ(Ids(table, *t, Eq(table, 3, {Txt("n1"), I8(10)})), std::vector<int64_t>{1});

  // In place: the tuple fits its object, the Addr stays.
  auto row = *table.Get(*t, std::vector{I4(1)});
  Addr first = row->addr();
  auto a = table.Update(*t, *row, Row(1, "m1", I8(10)));
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, first);
  // Outgrowing the object moves the row; every index follows.
  row = *table.Get(*t, std::vector{I4(1)});
  std::string big(400, 'b');  // B-tree entries stay under node_bytes / 8
  a = table.Update(*t, *row, Row(1, big, I8(11)));
  ASSERT_TRUE(a) << Describe(a.error());
  EXPECT_NE(*a, first);
  EXPECT_EQ(NameOf(table, *t, 1), big);
  EXPECT_EQ(Ids(table, *t, Eq(table, 1, {Txt(big)})), std::vector<int64_t>{1});
  EXPECT_EQ(Ids(table, *t, Eq(table, 2, {I8(11)})), std::vector<int64_t>{1});
  EXPECT_EQ(Ids(table, *t, Eq(table, 2, {I8(10)})), std::vector<int64_t>{});
  EXPECT_EQ(Ids(table, *t, Eq(table, 3, {Txt(big), I8(11)})), std::vector<int64_t>{1});
  // A new primary key.
  row = *table.Get(*t, std::vector{I4(2)});
  ASSERT_TRUE(table.Update(*t, *row, Row(20, "n2", I8(20))));
  EXPECT_EQ(NameOf(table, *t, 2), std::nullopt);
  EXPECT_EQ(NameOf(table, *t, 20), "n2");
  ASSERT_TRUE(t->Commit());

  t = f.Begin();
  EXPECT_FALSE(t->Read(first)) << "the moved row's old object is freed";
  row = *table.Get(*t, std::vector{I4(3)});
  auto clash = table.Update(*t, *row, Row(3, "n3", I8(20)));
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, Code::kDuplicateKey);
  EXPECT_EQ(clash.error().index, 2u);
  t->Abort();

  t = f.Begin();
  row = *table.Get(*t, std::vector{I4(3)});
  Addr gone = row->addr();
  ASSERT_TRUE(table.Delete(*t, *row));
  EXPECT_EQ(NameOf(table, *t, 3), std::nullopt);
  EXPECT_EQ(Ids(table, *t, Eq(table, 1, {Txt("n3")})), std::vector<int64_t>{});
  EXPECT_EQ(Ids(table, *t, Eq(table, 2, {I8(30)})), std::vector<int64_t>{});
  EXPECT_EQ(Ids(table, *t, Eq(table, 3, {Txt("n3"), I8(30)})), std::vector<int64_t>{});
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  EXPECT_FALSE(t->Read(gone));
  auto by_name = Ids(table, *t, {.index = 1});  // name order: "bbb..." < "n2" < "same" (twice)
  ASSERT_EQ(by_name.size(), 4u);
  std::sort(by_name.begin() + 2, by_name.end());
  EXPECT_EQ(by_name, (std::vector<int64_t>{1, 20, 5, 6}));
  // Hash indexes answer equality only.
  auto range = table.Scan(*t, {3, KeyBound{"a", true}, std::nullopt});
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().code, Code::kInvalidArgument);
  // One object holds a row: bigger tuples are refused.
  auto huge = table.Insert(*t, Row(7, std::string(20000, 'h'), I8(7)));
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code, Code::kTooLarge);
  ASSERT_TRUE(t->Commit());
}

INSTANTIATE_TEST_SUITE_P(Primary, TableBasics, ::testing::Values(IndexKind::kBTree, IndexKind::kHash));

TEST(Table, ScanBoundsAreColumnPrefixes) {
  Fixture f;
  // Primary key (a int4, b text DESC), and a non-unique index on (b) whose entries carry the
  // Addr suffix: bounds must treat both alike.
  RowSchema schema{1, {TypeId::kInt4, TypeId::kText, TypeId::kInt4}};
  Table table = f.Open(f.Create(
      schema, {IndexKind::kBTree, true, {{0, {TypeId::kInt4}}, {1, {TypeId::kText, true, true}}}},
      {{IndexKind::kBTree, false, {{1, {TypeId::kText}}}}}));
  auto t = f.Begin();
  int id = 0;
  for (int a : {1, 2, 3}) {
    for (std::string b : {"x", "y", "z"}) ASSERT_TRUE(table.Insert(*t, std::vector<Value>{I4(a), Txt(b), I4(id++)}));
  }
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  auto key = [&](uint32_t ix, std::vector<Value> v) { return table.IndexKey(ix, v); };
  using V = std::vector<int64_t>;
  // Ids: (1,x)=0 (1,y)=1 (1,z)=2 (2,x)=3 ... ; b descends within a.
  auto ids = [&](IndexScan s) {
    std::vector<int64_t> out;
    auto it = table.Scan(*t, s);
    EXPECT_TRUE(it);
    for (;;) {
      auto more = it ? it->Next() : StorageResult<bool>(false);
      EXPECT_TRUE(more);
      if (!more || !*more) return out;
      out.push_back(table.Column(it->row(), 2).AsInt());
    }
  };
  EXPECT_EQ(ids({0, KeyBound{key(0, {I4(2)}), true}, KeyBound{key(0, {I4(2)}), true}}), (V{5, 4, 3}));
  EXPECT_EQ(ids({0, KeyBound{key(0, {I4(1)}), false}, KeyBound{key(0, {I4(3)}), false}}), (V{5, 4, 3}));
  EXPECT_EQ(ids({0, KeyBound{key(0, {I4(2)}), false}, std::nullopt}), (V{8, 7, 6}));
  EXPECT_EQ(ids({0, std::nullopt, KeyBound{key(0, {I4(1)}), true}, ScanDirection::kBackward}),
            (V{0, 1, 2}));
  EXPECT_EQ(ids({0, KeyBound{key(0, {I4(2), Txt("y")}), true}, KeyBound{key(0, {I4(2)}), true}}),
            (V{4, 3}));
  EXPECT_EQ(ids({0, KeyBound{key(0, {I4(2), Txt("y")}), false}, KeyBound{key(0, {I4(2), Txt("x")}), true}}),
            (V{3}));
  // The suffixed index: "b > x" and "b <= y" exclude / include every row with that b.
  auto sorted = [](V v) { std::ranges::sort(v); return v; };
  EXPECT_EQ(sorted(ids({1, KeyBound{key(1, {Txt("x")}), false}, KeyBound{key(1, {Txt("y")}), true}})),
            (V{1, 4, 7}));
  EXPECT_EQ(sorted(ids({1, KeyBound{key(1, {Txt("y")}), true}, KeyBound{key(1, {Txt("z")}), false}})),
            (V{1, 4, 7}));
  EXPECT_EQ(ids({1, KeyBound{key(1, {Txt("z")}), false}, std::nullopt}), V{});
  ASSERT_TRUE(t->Commit());
}

TEST(Table, HiddenRowIdConcurrentInsertsOnThreeMachines) {
  Fixture f(3);
  TableDescriptor d = f.Create({1, {TypeId::kText}}, {}, {});
  constexpr int kThreads = 3, kRows = 60;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto w = f.cluster.engine(i).NewWorker();
      Table table = f.Open(d, i);
      for (int n = 0; n < kRows; ++n) {
        for (;;) {  // identical rows: only hidden row ids tell them apart
          auto t = *w->Begin({});
          auto r = table.Insert(*t, std::vector<Value>{Txt("same")});
          if (!r && r.error().IsRetryable()) continue;
          if (!r) {
            ++failures;
            break;
          }
          if (t->Commit()) break;
        }
      }
      w->FlushTruncations();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, 0);
  Table table = f.Open(d);
  auto t = f.Begin();
  auto all = table.Scan(*t, {});
  ASSERT_TRUE(all);
  int rows = 0;
  while (*all->Next()) ++rows;
  EXPECT_EQ(rows, kThreads * kRows);
  EXPECT_EQ(table.Get(*t, std::vector{I8(1)}).error().code, Code::kInvalidArgument);
  // Update and delete find their entry by the stored row id.
  all = table.Scan(*t, {});
  ASSERT_TRUE(*all->Next());
  Addr moved = *table.Update(*t, all->row(), std::vector<Value>{Txt(std::string(500, 'm'))});
  auto row = table.Read(*t, moved);
  ASSERT_TRUE(row);
  ASSERT_TRUE(table.Delete(*t, *row));
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  all = table.Scan(*t, {});
  rows = 0;
  while (*all->Next()) ++rows;
  EXPECT_EQ(rows, kThreads * kRows - 1);
  ASSERT_TRUE(table.Drop(*t));
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  EXPECT_FALSE(Sequence::Read(*t, d.row_id_sequence)) << "the row id sequence went with the table";
  EXPECT_FALSE(t->Read(d.primary.root));
  t->Abort();
  for (auto& w : f.workers) w->FlushTruncations();
  for (auto& s : f.sequences) s->FlushTruncations();
  EXPECT_EQ(f.cluster.CheckReplicas(), "");
}

// CREATE TABLE without a primary key and INSERT in one transaction: the row id sequence is not
// committed yet, so its ids come from the creating Txn; later inserts continue after them.
TEST(Table, HiddenRowIdsInTheCreatingTransaction) {
  Fixture f;
  auto t = f.Begin();
  auto d = Table::Create(*t, {1, {TypeId::kInt4}}, {}, {});
  ASSERT_TRUE(d);
  Table table = f.Open(*d);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(table.Insert(*t, std::vector{I4(i)})) << i;
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  for (int i = 3; i < 6; ++i) ASSERT_TRUE(table.Insert(*t, std::vector{I4(i)})) << i;
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  std::vector<int64_t> seen;
  auto it = table.Scan(*t, {});
  ASSERT_TRUE(it);
  while (*it->Next()) seen.push_back(table.Column(it->row(), 0).AsInt());
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5})) << "row id order is insertion order";
  ASSERT_TRUE(t->Commit());
}

TEST(Table, AddIndexDropIndexTruncate) {
  Fixture f;
  TableDescriptor d = f.Create(Schema(), {IndexKind::kHash, true, {{0, {TypeId::kInt4}}}}, {});
  Table table = f.Open(d);
  auto t = f.Begin();
  for (int64_t id = 0; id < 200; ++id) {
    ASSERT_TRUE(table.Insert(*t, Row(id, "n" + std::to_string(id % 7), id % 3 ? I8(id) : Null8())));
  }
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  auto by_name = table.AddIndex(*t, {IndexKind::kBTree, false, {{1, {TypeId::kText}}}});
  ASSERT_TRUE(by_name);
  auto by_c = table.AddIndex(*t, {IndexKind::kHash, true, {{2, {TypeId::kInt8}}}});
  ASSERT_TRUE(by_c);
  // Two rows share each name: a unique index on it cannot be built.
  auto unique_name = table.AddIndex(*t, {IndexKind::kBTree, true, {{1, {TypeId::kText}}}});
  ASSERT_FALSE(unique_name);
  EXPECT_EQ(unique_name.error().code, Code::kDuplicateKey);
  EXPECT_EQ(unique_name.error().index, 1u);
  t->Abort();  // the failed build leaves partial writes: abort and build the good ones again
  t = f.Begin();
  by_name = table.AddIndex(*t, {IndexKind::kBTree, false, {{1, {TypeId::kText}}}});
  by_c = table.AddIndex(*t, {IndexKind::kHash, true, {{2, {TypeId::kInt8}}}});
  ASSERT_TRUE(by_name && by_c);
  ASSERT_TRUE(t->Commit());
  d.secondary = {*by_name, *by_c};
  table = f.Open(d);
  t = f.Begin();
  EXPECT_EQ(Ids(table, *t, Eq(table, 1, {Txt("n3")})).size(), 29u);
  EXPECT_EQ(Ids(table, *t, Eq(table, 2, {I8(100)})), std::vector<int64_t>{100});
  EXPECT_EQ(Ids(table, *t, Eq(table, 2, {Null8()})), std::vector<int64_t>{}) << "NULL = NULL";
  ASSERT_TRUE(table.DropIndex(*t, 1));
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  EXPECT_FALSE(t->Read(by_name->root)) << "DROP INDEX frees the index objects";
  d.secondary.erase(d.secondary.begin());
  table = f.Open(d);
  auto truncated = table.Truncate(*t);
  ASSERT_TRUE(truncated);
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  EXPECT_FALSE(t->Read(d.primary.root));
  EXPECT_FALSE(t->Read(by_c->root));
  table = f.Open(*truncated);
  EXPECT_EQ(NameOf(table, *t, 100), std::nullopt);
  ASSERT_TRUE(table.Insert(*t, Row(100, "again", I8(100))));
  EXPECT_EQ(Ids(table, *t, Eq(table, 1, {I8(100)})), std::vector<int64_t>{100});
  ASSERT_TRUE(t->Commit());
}

// TRUNCATE frees the hash index's root and segments and creates new ones, which may land at the
// freed addresses while the machine's directory cache still holds the old directory under that
// root address (hash_index.h "Directory cache"). Lookups must see only the new index's rows.
TEST(Table, HashLookupsStayRightWhenATruncatedIndexsRootAddressIsReused) {
  Fixture f;
  TableDescriptor d = f.Create(Schema(), {IndexKind::kHash, true, {{0, {TypeId::kInt4}}}}, {});
  std::set<Addr> freed_roots;
  bool reused = false;
  for (int64_t round = 0; round < 50 && !reused; ++round) {
    Table table = f.Open(d);
    auto t = f.Begin();
    for (int64_t id = round * 40; id < round * 40 + 40; ++id) {
      ASSERT_TRUE(table.Insert(*t, Row(id, "r" + std::to_string(round), I8(id))));
    }
    ASSERT_TRUE(t->Commit());
    t = f.Begin();
    for (int64_t id = 0; id < round * 40 + 40; ++id) {
      auto want = id >= round * 40 ? std::optional("r" + std::to_string(round)) : std::nullopt;
      ASSERT_EQ(NameOf(table, *t, id), want) << "round " << round << " id " << id;
    }
    auto truncated = table.Truncate(*t);
    ASSERT_TRUE(truncated);
    ASSERT_TRUE(t->Commit());
    freed_roots.insert(d.primary.root);
    d = *truncated;
    reused = freed_roots.contains(d.primary.root);
  }
  EXPECT_TRUE(reused) << "no truncation reused a freed root address; the test checked nothing";
  Table table = f.Open(d);
  auto t = f.Begin();
  ASSERT_TRUE(table.Insert(*t, Row(7, "after", I8(7))));
  ASSERT_TRUE(t->Commit());
  t = f.Begin();
  EXPECT_EQ(NameOf(table, *t, 7), std::optional<std::string>("after"));
  EXPECT_EQ(NameOf(table, *t, 8), std::nullopt);
  ASSERT_TRUE(t->Commit());
}

TEST(Table, RowsOlderThanAColumnReadItsDefault) {
  Fixture f;
  TableDescriptor d = f.Create({1, {TypeId::kInt4, TypeId::kText}},
                               {IndexKind::kBTree, true, {{0, {TypeId::kInt4}}}}, {});
  auto t = f.Begin();
  ASSERT_TRUE(f.Open(d).Insert(*t, std::vector<Value>{I4(1), Txt("old")}));
  ASSERT_TRUE(t->Commit());
  // ALTER TABLE ADD COLUMN c int8 DEFAULT 7, then an index on it.
  d.schema = {2, {TypeId::kInt4, TypeId::kText, TypeId::kInt8}};
  d.missing = {Value(), Value(), I8(7)};
  Table table = f.Open(d);
  t = f.Begin();
  ASSERT_TRUE(table.Insert(*t, std::vector<Value>{I4(2), Txt("new"), I8(8)}));
  auto row = *table.Get(*t, std::vector{I4(1)});
  EXPECT_EQ(row->view().column_count(), 2);
  EXPECT_EQ(table.Column(*row, 2).AsInt(), 7);
  auto ix = table.AddIndex(*t, {IndexKind::kBTree, true, {{2, {TypeId::kInt8}}}});
  ASSERT_TRUE(ix);
  d.secondary.push_back(*ix);
  table = f.Open(d);
  EXPECT_EQ(Ids(table, *t, Eq(table, 1, {I8(7)})), std::vector<int64_t>{1});
  // Deleting the old row finds its entry under the default.
  row = *table.Get(*t, std::vector{I4(1)});
  ASSERT_TRUE(table.Delete(*t, *row));
  EXPECT_EQ(Ids(table, *t, Eq(table, 1, {I8(7)})), std::vector<int64_t>{});
  ASSERT_TRUE(t->Commit());
}

}  // namespace
}  // namespace farmdb::storage
