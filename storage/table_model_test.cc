// Table property runs against an in-memory model (a std::map from primary key to row; the
// secondary indexes are implied by it): long seeded sequences of inserts, point reads, updates
// (in place, moving, changing keys; half of them naming only the columns they change), deletes, range scans of a two-column B-tree index with
// column-prefix bounds in both directions, primary range scans and hash equality lookups, with
// unique violations in three indexes. Single-threaded (caller aborts, coordinators alternating
// across machines, whole-table checks and index invariants every 25 transactions) and concurrent
// (3 workers, small key space, retries; committed transactions replayed in serialisation order
// must reproduce every result they saw), each on 1 and 3 machines with B-tree and hash primary
// indexes. Failures print the seed; FARMDB_SEED=<n> replays one.
#include <gtest/gtest.h>

#include "storage/index_test_util.h"
#include "storage/table.h"

namespace farmdb::storage {
namespace {

// Columns: k int8 (primary key), a int4 NULL, b text, c int8 NULL. Indexes: 1 (a, b DESC)
// non-unique B-tree; 2 (c) unique B-tree; 3 (b) non-unique hash; 4 (a, c) unique hash.
struct R {
  int64_t k = 0;
  std::optional<int64_t> a;
  std::string b;
  std::optional<int64_t> c;
  friend bool operator==(const R&, const R&) = default;
};
using TableModel = std::map<int64_t, R>;

std::vector<Value> ValuesOf(const R& r) {
  auto opt = [](TypeId t, std::optional<int64_t> v) { return v ? Value::Int(t, *v) : Value::Null(t); };
  return {Value::Int(TypeId::kInt8, r.k), opt(TypeId::kInt4, r.a), Value::Str(TypeId::kText, r.b),
          opt(TypeId::kInt8, r.c)};
}

R RowOf(const std::vector<Value>& v) {
  auto opt = [](const Value& x) { return x.IsNull() ? std::nullopt : std::optional(x.AsInt()); };
  return {v[0].AsInt(), opt(v[1]), v[2].AsString(), opt(v[3])};
}

int Compare(int64_t x, int64_t y) { return x < y ? -1 : x > y ? 1 : 0; }

// Index 1's order: a ascending with NULLs last, then b descending.
int CompareA(const std::optional<int64_t>& a, int64_t bound) {
  return a ? Compare(*a, bound) : 1;
}
bool IndexOneLess(const R& x, const R& y) {
  if (x.a != y.a) return !y.a ? bool(x.a) : x.a && *x.a < *y.a;
  return x.b > y.b;
}
bool CanonicalLess(const R& x, const R& y) {
  if (IndexOneLess(x, y) || IndexOneLess(y, x)) return IndexOneLess(x, y);
  return x.k < y.k;
}

struct Op {
  enum Kind { kInsert, kGet, kUpdate, kDelete, kScanA, kScanK, kHashB, kHashAC } kind = kGet;
  R row{};         // kInsert, kUpdate (new values), kHashB (b), kHashAC (a, c)
  int64_t k = 0;   // kGet, kUpdate, kDelete
  int64_t lo = 0, hi = 0;
  bool has_lo = true, has_hi = true, lo_incl = true, hi_incl = true, backward = false;
  // kUpdate: names the columns it changes and passes NULLs for the others, as SQL's UPDATE does
  // for columns it did not decode (Table::Update must keep their stored bytes).
  bool changed_only = false;
};

struct Outcome {
  std::string status;  // "ok", "missing", "dup <index>"
  std::vector<R> rows;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

std::string Show(const Outcome& o) {
  std::string s = o.status + " [";
  for (const R& r : o.rows) s += std::to_string(r.k) + " ";
  return s + "]";
}

struct Mix {
  int64_t keys = 40;
  bool primary_scans = true;  // B-tree primary only
};

R RandomRow(std::mt19937_64& rng, const Mix& mix) {
  static const std::string kB[] = {"", "p", std::string("q\0r", 3), "qq", std::string(100, 'L'),
                                   std::string(300, 'M')};
  R r;
  r.k = rng() % mix.keys;
  if (rng() % 5) r.a = rng() % 5;
  r.b = kB[rng() % std::size(kB)];
  if (rng() % 10 >= 3) r.c = rng() % (mix.keys / 2);
  return r;
}

Op RandomOp(std::mt19937_64& rng, const Mix& mix) {
  Op op;
  int r = rng() % 100;
  op.kind = r < 30 ? Op::kInsert : r < 45 ? Op::kGet : r < 65 ? Op::kUpdate : r < 75 ? Op::kDelete
          : r < 85 ? Op::kScanA : r < 90 ? Op::kScanK : r < 95 ? Op::kHashB : Op::kHashAC;
  if (op.kind == Op::kScanK && !mix.primary_scans) op.kind = Op::kScanA;
  op.row = RandomRow(rng, mix);
  op.k = rng() % mix.keys;
  if (op.kind == Op::kUpdate && rng() % 2) op.row.k = op.k;  // most updates keep the key
  if (op.kind == Op::kHashAC && (!op.row.a || !op.row.c)) op.row.a = 1, op.row.c = 1;
  int64_t span = op.kind == Op::kScanA ? 5 : mix.keys;
  op.lo = rng() % span, op.hi = rng() % span;
  if (op.lo > op.hi) std::swap(op.lo, op.hi);
  op.has_lo = rng() % 4, op.has_hi = rng() % 4;
  op.lo_incl = rng() % 2, op.hi_incl = rng() % 2, op.backward = rng() % 2;
  op.changed_only = rng() % 2;
  return op;
}

// The first index position a row would violate (primary first, as Table checks them), or -1.
int DupPos(const TableModel& m, const R& r, std::optional<int64_t> self) {
  auto other = [&](const auto& kv) { return !self || kv.first != *self; };
  if (m.count(r.k) && r.k != self) return 0;
  for (const auto& kv : m) {
    if (other(kv) && r.c && kv.second.c == r.c) return 2;
  }
  for (const auto& kv : m) {
    if (other(kv) && r.a && r.c && kv.second.a == r.a && kv.second.c == r.c) return 4;
  }
  return -1;
}

bool InBounds(const Op& op, int cmp_lo, int cmp_hi) {
  return (!op.has_lo || (op.lo_incl ? cmp_lo >= 0 : cmp_lo > 0)) &&
         (!op.has_hi || (op.hi_incl ? cmp_hi <= 0 : cmp_hi < 0));
}

Outcome ApplyToModel(TableModel& m, const Op& op) {
  Outcome out{"ok", {}};
  auto matching = [&](auto pred) {
    for (const auto& [k, r] : m) {
      if (pred(r)) out.rows.push_back(r);
    }
  };
  switch (op.kind) {
    case Op::kInsert:
      if (int d = DupPos(m, op.row, std::nullopt); d >= 0) return {"dup " + std::to_string(d), {}};
      m[op.row.k] = op.row;
      break;
    case Op::kGet:
      if (m.count(op.k)) out.rows.push_back(m[op.k]);
      break;
    case Op::kUpdate:
    case Op::kDelete:
      if (!m.count(op.k)) return {"missing", {}};
      if (op.kind == Op::kDelete) {
        m.erase(op.k);
      } else if (int d = DupPos(m, op.row, op.k); d >= 0) {
        return {"dup " + std::to_string(d), {}};
      } else {
        m.erase(op.k);
        m[op.row.k] = op.row;
      }
      break;
    case Op::kScanA:
      matching([&](const R& r) { return InBounds(op, CompareA(r.a, op.lo), CompareA(r.a, op.hi)); });
      std::ranges::sort(out.rows, CanonicalLess);
      break;
    case Op::kScanK:
      matching([&](const R& r) { return InBounds(op, Compare(r.k, op.lo), Compare(r.k, op.hi)); });
      if (op.backward) std::ranges::reverse(out.rows);
      break;
    case Op::kHashB:
      matching([&](const R& r) { return r.b == op.row.b; });
      break;
    case Op::kHashAC:
      matching([&](const R& r) { return r.a == op.row.a && r.c == op.row.c; });
      break;
  }
  return out;
}

StorageResult<std::vector<R>> ScanRows(const Table& table, Txn& t, const IndexScan& scan) {
  auto it = table.Scan(t, scan);
  if (!it) return std::unexpected(it.error());
  std::vector<R> rows;
  for (;;) {
    auto more = it->Next();
    if (!more) return std::unexpected(more.error());
    if (!*more) return rows;
    rows.push_back(RowOf(table.Columns(it->row())));
  }
}

std::optional<KeyBound> Bound(const Table& table, uint32_t ix, bool has, int64_t v, bool incl) {
  if (!has) return std::nullopt;
  Value key = Value::Int(ix == 0 ? TypeId::kInt8 : TypeId::kInt4, v);
  return KeyBound{table.IndexKey(ix, std::span(&key, 1)), incl};
}

StorageResult<Outcome> ApplyToTable(const Table& table, Txn& t, const Op& op) {
  Outcome out{"ok", {}};
  auto status = [&](StorageResult<void> r) -> StorageResult<Outcome> {
    if (!r && r.error().code == StorageError::Code::kDuplicateKey) {
      return Outcome{"dup " + std::to_string(r.error().index), {}};
    }
    if (!r) return std::unexpected(r.error());
    return out;
  };
  auto eq = [&](uint32_t ix, std::vector<Value> key) -> StorageResult<Outcome> {
    std::string k = table.IndexKey(ix, key);
    auto rows = ScanRows(table, t, {ix, KeyBound{k, true}, KeyBound{k, true}});
    if (!rows) return std::unexpected(rows.error());
    out.rows = std::move(*rows);
    std::ranges::sort(out.rows, {}, &R::k);
    return out;
  };
  std::vector<Value> values = ValuesOf(op.row);
  switch (op.kind) {
    case Op::kInsert: {
      auto r = table.Insert(t, values);
      return status(r ? StorageResult<void>() : std::unexpected(r.error()));
    }
    case Op::kGet:
    case Op::kUpdate:
    case Op::kDelete: {
      Value key = Value::Int(TypeId::kInt8, op.k);
      auto row = table.Get(t, std::span(&key, 1));
      if (!row) return std::unexpected(row.error());
      if (op.kind == Op::kGet) {
        if (*row) out.rows.push_back(RowOf(table.Columns(**row)));
        return out;
      }
      if (!*row) return Outcome{"missing", {}};
      if (op.kind == Op::kDelete) return status(table.Delete(t, **row));
      std::vector<bool> changed;
      if (op.changed_only) {
        R old = RowOf(table.Columns(**row));
        changed = {old.k != op.row.k, old.a != op.row.a, old.b != op.row.b, old.c != op.row.c};
        for (size_t i = 0; i < values.size(); ++i) {
          if (!changed[i]) values[i] = Value::Null(values[i].type);
        }
      }
      auto r = table.Update(t, **row, values, changed);
      return status(r ? StorageResult<void>() : std::unexpected(r.error()));
    }
    case Op::kScanA:
    case Op::kScanK: {
      uint32_t ix = op.kind == Op::kScanA ? 1 : 0;
      auto dir = op.backward ? ScanDirection::kBackward : ScanDirection::kForward;
      auto rows = ScanRows(table, t, {ix, Bound(table, ix, op.has_lo, op.lo, op.lo_incl),
                                      Bound(table, ix, op.has_hi, op.hi, op.hi_incl), dir});
      if (!rows) return std::unexpected(rows.error());
      out.rows = std::move(*rows);
      if (ix == 1) {
        // Index order (up to the Addr order among equal keys), then canonical for comparison.
        std::vector<R> in_order = out.rows;
        if (op.backward) std::ranges::reverse(in_order);
        if (!std::ranges::is_sorted(in_order, IndexOneLess)) out.status = "misordered";
        std::ranges::sort(out.rows, CanonicalLess);
      }
      return out;
    }
    case Op::kHashB:
      return eq(3, {values[2]});
    case Op::kHashAC:
      return eq(4, {values[1], values[3]});
  }
  return out;
}

struct Setup {
  int machines = 1;
  IndexKind primary = IndexKind::kBTree;
};

struct Cluster {
  explicit Cluster(const Setup& s, txn::EngineOptions e) : test(Machines(s.machines), e) {
    for (int m = 0; m < s.machines; ++m) {
      sequences.push_back(std::make_unique<SequenceCache>(test.engine(m)));
    }
    auto w = test.engine(0).NewWorker();
    auto t = *w->Begin({});
    auto d = Table::Create(
        *t, {1, {TypeId::kInt8, TypeId::kInt4, TypeId::kText, TypeId::kInt8}},
        {s.primary, true, {{0, {TypeId::kInt8}}}},
        {{IndexKind::kBTree, false, {{1, {TypeId::kInt4}}, {2, {TypeId::kText, true, true}}}},
         {IndexKind::kBTree, true, {{3, {TypeId::kInt8}}}},
         {IndexKind::kHash, false, {{2, {TypeId::kText}}}},
         {IndexKind::kHash, true, {{1, {TypeId::kInt4}}, {3, {TypeId::kInt8}}}}});
    EXPECT_TRUE(d);
    EXPECT_TRUE(t->Commit());
    descriptor = std::make_shared<const TableDescriptor>(*d);
  }
  // With each machine's caches, as the server opens tables.
  Table Open(int m) { return Table(descriptor, {&btree[m], sequences[m].get(), &hash[m]}); }

  TestCluster test;
  BTreeCache btree[3];
  HashDirectoryCache hash[3];
  std::vector<std::unique_ptr<SequenceCache>> sequences;
  std::shared_ptr<const TableDescriptor> descriptor;
};

// Every row through every index, and each index structure's invariants, in one transaction.
void CheckTable(Cluster& c, Worker& w, const TableModel& m, const Mix& mix, uint64_t seed) {
  SCOPED_TRACE("full check");
  Table table = c.Open(0);
  auto t = *w.Begin(ReadOnly());
  std::vector<R> want;
  for (const auto& [k, r] : m) want.push_back(r);
  for (int64_t k = 0; k < mix.keys; ++k) {
    auto got = ApplyToTable(table, *t, {.kind = Op::kGet, .k = k});
    ASSERT_TRUE(got);
    Outcome expect{"ok", {}};
    if (m.count(k)) expect.rows.push_back(m.at(k));
    ASSERT_EQ(*got, expect) << "seed=" << seed << " k=" << k;
  }
  auto by_a = ApplyToTable(table, *t, {.kind = Op::kScanA, .has_lo = false, .has_hi = false});
  ASSERT_TRUE(by_a);
  std::vector<R> canonical = want;
  std::ranges::sort(canonical, CanonicalLess);
  EXPECT_EQ(*by_a, (Outcome{"ok", canonical})) << "seed=" << seed;
  auto by_c = ScanRows(table, *t, {.index = 2});
  ASSERT_TRUE(by_c);
  std::ranges::sort(*by_c, {}, &R::k);
  EXPECT_EQ(*by_c, want) << "seed=" << seed;
  for (const R& r : want) {
    auto b = ApplyToTable(table, *t, {.kind = Op::kHashB, .row = r});
    TableModel copy = m;
    ASSERT_TRUE(b);
    EXPECT_EQ(*b, ApplyToModel(copy, {.kind = Op::kHashB, .row = r})) << "seed=" << seed;
  }
  const TableDescriptor& d = *c.descriptor;
  std::vector<const IndexDescriptor*> all{&d.primary};
  for (const auto& s : d.secondary) all.push_back(&s);
  for (const IndexDescriptor* ix : all) {
    auto check = ix->spec.kind == IndexKind::kHash ? HashIndex::Open(ix->root).CheckInvariants(*t)
                                                   : BTree::Open(ix->root, nullptr).CheckInvariants(*t);
    ASSERT_TRUE(check);
    EXPECT_EQ(*check, "") << "seed=" << seed;
  }
  ASSERT_TRUE(t->Commit());
}

class TableModelTest : public ::testing::TestWithParam<Setup> {
 protected:
  Mix MixFor(int64_t keys) const { return {keys, GetParam().primary == IndexKind::kBTree}; }
};

TEST_P(TableModelTest, SingleThreaded) {
  Mix mix = MixFor(40);
  for (uint64_t seed : Seeds({1, 2, 3})) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    Cluster c(GetParam(), Patient());
    std::vector<std::unique_ptr<Worker>> workers;
    for (int m = 0; m < GetParam().machines; ++m) workers.push_back(c.test.engine(m).NewWorker());
    std::mt19937_64 rng(seed);
    TableModel model;
    for (int n = 0; n < 300; ++n) {
      int m = n % GetParam().machines;
      Table table = c.Open(m);
      auto t = *workers[m]->Begin({});
      TableModel next = model;
      bool abort = rng() % 10 == 0;
      for (int i = 0, ops = 1 + rng() % 5; i < ops && !abort; ++i) {
        Op op = RandomOp(rng, mix);
        Outcome want = ApplyToModel(next, op);
        auto got = ApplyToTable(table, *t, op);
        ASSERT_TRUE(got) << "seed=" << seed << " txn " << n << " " << Describe(got.error());
        ASSERT_EQ(*got, want) << "seed=" << seed << " txn " << n << " op " << i << " kind "
                              << op.kind << " got " << Show(*got) << " want " << Show(want);
        // A failed UPDATE leaves partial writes (table.h): the statement's Txn aborts.
        abort = op.kind == Op::kUpdate && want.status.starts_with("dup");
      }
      if (abort) {
        t->Abort();
      } else {
        auto r = t->Commit();
        ASSERT_TRUE(r) << "seed=" << seed << " " << txn::AbortReasonName(r.error().reason);
        model = std::move(next);
      }
      if (n % 25 == 24) CheckTable(c, *workers[m], model, mix, seed);
    }
    for (auto& w : workers) w->FlushTruncations();
    EXPECT_EQ(c.test.CheckReplicas(), "") << "seed=" << seed;
  }
}

TEST_P(TableModelTest, ConcurrentWithRetries) {
  Mix mix = MixFor(12);
  for (uint64_t seed : Seeds({11, 12})) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    struct Committed {
      txn::Timestamp ts = 0;
      bool read_only = false;
      std::vector<Op> ops;
      std::vector<Outcome> outcomes;
    };
    Cluster c(GetParam(), txn::EngineOptions{});
    std::mutex mu;
    std::vector<Committed> log;
    std::atomic<bool> failed{false};
    constexpr int kThreads = 3, kTxns = 40;
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        int m = i % GetParam().machines;
        auto w = c.test.engine(m).NewWorker();
        Table table = c.Open(m);
        std::mt19937_64 rng(seed * 1000 + i);
        for (int n = 0; n < kTxns && !failed; ++n) {
          std::vector<Op> ops(1 + rng() % 3);
          for (Op& op : ops) op = RandomOp(rng, mix);
          bool user_abort = rng() % 10 == 0;
          while (!failed) {
            auto t = *w->Begin({});
            Committed rec{0, false, ops, {}};
            bool retry = false, abort = user_abort;
            for (const Op& op : ops) {
              auto got = ApplyToTable(table, *t, op);
              if (!got && got.error().IsRetryable()) {
                retry = true;
                break;
              }
              if (!got) {
                ADD_FAILURE() << "seed=" << seed << " " << Describe(got.error());
                failed = true;
                break;
              }
              abort |= op.kind == Op::kUpdate && got->status.starts_with("dup");
              rec.outcomes.push_back(std::move(*got));
              if (abort) break;
            }
            if (failed) break;
            if (retry) continue;
            if (abort) {
              t->Abort();
              break;
            }
            auto info = t->Commit();
            if (!info) continue;
            rec.read_only = info->write_ts == 0;
            rec.ts = rec.read_only ? info->read_ts : info->write_ts;
            std::lock_guard lock(mu);
            log.push_back(std::move(rec));
            break;
          }
        }
        w->FlushTruncations();
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_FALSE(failed);
    std::ranges::sort(log, [](const Committed& a, const Committed& b) {
      return std::pair(a.ts, a.read_only) < std::pair(b.ts, b.read_only);
    });
    TableModel model;
    for (size_t k = 0; k < log.size(); ++k) {
      for (size_t i = 0; i < log[k].ops.size(); ++i) {
        Outcome want = ApplyToModel(model, log[k].ops[i]);
        ASSERT_EQ(log[k].outcomes[i], want) << "seed=" << seed << " committed txn " << k << " op "
                                            << i << " got " << Show(log[k].outcomes[i])
                                            << " want " << Show(want);
      }
    }
    EXPECT_GT(log.size(), size_t{kTxns});
    auto w = c.test.engine(0).NewWorker();
    CheckTable(c, *w, model, mix, seed);
    w->FlushTruncations();
    EXPECT_EQ(c.test.CheckReplicas(), "") << "seed=" << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Setups, TableModelTest,
    ::testing::Values(Setup{1, IndexKind::kBTree}, Setup{3, IndexKind::kBTree},
                      Setup{1, IndexKind::kHash}, Setup{3, IndexKind::kHash}),
    [](const auto& info) {
      return std::to_string(info.param.machines) + "Machines" +
             (info.param.primary == IndexKind::kHash ? "HashPrimary" : "BTreePrimary");
    });

}  // namespace
}  // namespace farmdb::storage
