// The FaRMv2 §2 anomaly, as a property: "they inserted a key into a B-tree, looked up the same key
// in the same transaction, and it was not there". In FaRMv1 this happened when a concurrent
// transaction split the key's leaf (moving the key to a new leaf) and deleted it, and the
// machine's cache of internal nodes lost part of the path meanwhile, so the lookup re-read
// internal nodes at a newer state than the transaction's own writes. With opacity every read is
// at R (or the transaction's own write) and the leaf's fences prove it covers the key.
//
// Actors share one tree of small nodes (512 bytes: a leaf holds about 9 items, so splits are
// constant): writers insert into and erase from a growing key space (splitting leaves around
// everyone's keys and deleting keys the others insert), long read-only "old readers" walk the
// tree at an old R (their descents through stale paths put old internal nodes back in the cache),
// and evictions drop internal nodes, or all of them, from a machine's cache at random moments.
// Every transaction, committed or not, must read its own writes: after it inserted or erased a
// key, lookups and point scans of that key (both directions) see exactly that. The committed
// transactions, replayed in serialisation order, must reproduce every result they saw, and the
// final tree equals the replayed model. Runs on 1 and 3 machines, interleaved on one thread
// (seeded, replayable with FARMDB_SEED) and with one thread per actor.
//
// Teeth (checked by hand on a copy of btree.cc linked into this test, not committed): let
// BTree::Insert trust the cached path to its leaf, i.e. skip the fence check in Descend for the
// leaf of Insert's first descent (FaRMv1's position: a cached parent plus an unchecked leaf):
//     if (!node || (!(trust_leaf && node->leaf()) && (node->low != low || node->high != high ||
//                                                     !target.Covers(*node)))) {
// Every test then fails in its first seed, on 1 and 3 machines: a checker's insert right after
// its own erase of the key reports a duplicate (the insert looked in a leaf that is not the
// key's), or the replayed log disagrees with what committed transactions saw. (Skipping the
// leaf check for every descent instead makes range scans step from a wrong leaf to itself
// forever: a hang, not a failure.)
#include <gtest/gtest.h>

#include <map>

#include "storage/btree.h"
#include "storage/index_test_util.h"

namespace farmdb::storage {
namespace {

constexpr size_t kNodeBytes = 512;
constexpr uint32_t kKeySpace = 1500;

struct Committed {
  txn::Timestamp ts = 0;
  bool read_only = false;
  std::vector<Op> ops;
  std::vector<Outcome> outcomes;
};

// What every actor shares: the cluster, the tree, one cache per machine, the committed log.
struct World {
  World(int machines, uint64_t seed) : cluster(Machines(machines), Patient()), seed(seed) {
    for (int m = 0; m < machines; ++m) caches.push_back(std::make_unique<BTreeCache>());
    auto w = cluster.engine(0).NewWorker();
    auto t = *w->Begin({});
    tree = *BTree::Create(*t, {.unique = true, .node_bytes = kNodeBytes}, caches[0].get());
    EXPECT_TRUE(t->Commit());
  }
  TestCluster cluster;
  uint64_t seed;
  BTree tree = BTree::Open({}, nullptr);
  std::vector<std::unique_ptr<BTreeCache>> caches;
  std::mutex mu;
  std::vector<Committed> log;
  std::atomic<uint64_t> own_checks{0};  // lookups/scans of a key the transaction had written
  std::atomic<uint64_t> evictions{0};
  std::atomic<bool> failed{false};
};

// Addresses of the tree's internal nodes, read in a fresh read-only transaction.
std::vector<Addr> InternalNodes(Worker& w, const BTree& tree) {
  std::vector<Addr> out;
  auto t = w.Begin(ReadOnly());
  if (!t) return out;
  std::vector<Addr> todo{tree.root()};
  while (!todo.empty()) {
    Addr a = todo.back();
    todo.pop_back();
    auto bytes = (*t)->Read(a);
    if (!bytes) return out;  // aborted (e.g. a head stayed locked): evict what we have
    auto n = NodeView::Open(*bytes);
    if (!n || n->leaf()) continue;
    out.push_back(a);
    for (size_t i = 0; n->level() > 1 && i < n->count(); ++i) todo.push_back(n->child(i));
  }
  return out;
}

std::string Value(int actor, uint64_t n) {
  std::string v = "a" + std::to_string(actor) + "-" + std::to_string(n);
  return v + std::string(40 - v.size(), '.');
}

class Actor {
 public:
  enum Role { kChecker, kWriter, kOldReader };
  Actor(World& world, int id, Role role, int machine)
      : world_(world), id_(id), role_(role), machine_(machine),
        worker_(world.cluster.engine(machine).NewWorker()), rng_(world.seed * 977 + id),
        tree_(BTree::Open(world.tree.root(), world.caches[machine].get())) {}

  // One action: begin a transaction, run an operation (or two) in it, commit or abort it, or
  // evict cached nodes.
  void Step() {
    if (rng_() % 12 == 0) return Evict();
    if (!t_) return Begin();
    size_t limit = role_ == kOldReader ? 60 : 10;
    if (ops_.size() >= limit || rng_() % 16 == 0) return Finish();
    for (const Op& op : NextOps()) {
      if (!Run(op)) return;
    }
  }
  void Drop() {
    if (t_) t_->Abort();
    t_.reset();
    ops_.clear(), outcomes_.clear(), own_.clear();
  }

 private:
  void Begin() {
    auto t = worker_->Begin(role_ == kOldReader ? ReadOnly() : txn::TxnOptions{});
    if (t) t_ = std::move(*t);
  }

  std::string RandomKey() { return "k" + std::to_string(10000 + rng_() % kKeySpace); }

  std::vector<Op> NextOps() {
    Op op;
    op.key = RandomKey();
    op.value = Value(id_, serial_++);
    uint32_t r = rng_() % 100;
    switch (role_) {
      case kOldReader:
        op.kind = Op::kLookup;
        return {op};
      case kWriter:
        op.kind = r < 70 ? Op::kInsert : Op::kErase;
        return {op};
      case kChecker:
        // Re-read a key this transaction wrote, or (re)write one: erase it, then insert it, so
        // it is present in the transaction's own view whoever else inserts or erases it.
        if (!own_.empty() && r < 60) {
          op.key = std::next(own_.begin(), rng_() % own_.size())->first;
          op.kind = r < 30 ? Op::kLookup : Op::kScan;
          op.value = op.key;  // a point scan [key, key]
          op.backward = r % 2;
          return {op};
        }
        return {Op{Op::kErase, op.key, ""}, Op{Op::kInsert, op.key, op.value}};
    }
    return {};
  }

  // Runs `op` in the transaction, checks read-your-writes, logs it. False once the transaction
  // is gone (a conflict: retried as a fresh transaction by later steps).
  bool Run(const Op& op) {
    auto got = ApplyToIndex(tree_, *t_, op);
    if (!got) {
      if (!got.error().IsRetryable()) Fail(Describe(got.error()));
      Drop();
      return false;
    }
    CheckOwnWrites(op, *got);
    ops_.push_back(op);
    outcomes_.push_back(std::move(*got));
    return true;
  }

  // The state of a key this transaction wrote is known exactly, whatever others commit.
  void CheckOwnWrites(const Op& op, const Outcome& got) {
    auto it = own_.find(op.key);
    switch (op.kind) {
      case Op::kErase:
      case Op::kEraseValue:
        if (it != own_.end() && got.erased != it->second.has_value()) {
          Fail("erase of own key " + op.key + " erased " + std::to_string(got.erased));
        }
        own_[op.key] = std::nullopt;
        return;
      case Op::kInsert:
        if (it != own_.end() && got.duplicate != it->second.has_value()) {
          Fail("insert of own key " + op.key + " duplicate=" + std::to_string(got.duplicate));
        }
        if (!got.duplicate) own_[op.key] = op.value;
        return;
      case Op::kLookup:
      case Op::kScan:
        break;
    }
    if (it == own_.end()) return;
    std::vector<std::string> want;
    if (it->second) {
      want.push_back(op.kind == Op::kScan ? op.key + '\0' + *it->second : *it->second);
    }
    world_.own_checks.fetch_add(1, std::memory_order_relaxed);
    if (got.values != want) {
      Fail("own write not visible: actor " + std::to_string(id_) + " key " + op.key + " op " +
           std::to_string(op.kind) + " got " + std::to_string(got.values.size()) +
           " values, want " + std::to_string(want.size()));
    }
  }

  void Finish() {
    if (rng_() % 10 == 0 && role_ != kOldReader) return Drop();
    auto info = t_->Commit();
    if (info) {
      Committed rec{info->write_ts ? info->write_ts : info->read_ts, info->write_ts == 0,
                    std::move(ops_), std::move(outcomes_)};
      std::lock_guard lock(world_.mu);
      world_.log.push_back(std::move(rec));
    }
    t_.reset();
    ops_.clear(), outcomes_.clear(), own_.clear();
  }

  // Drops internal nodes from a random machine's cache: one, a random half, or all of them.
  void Evict() {
    auto nodes = InternalNodes(*worker_, world_.tree);
    if (nodes.empty()) return;
    BTreeCache& cache = *world_.caches[rng_() % world_.caches.size()];
    uint32_t how = rng_() % 3;
    size_t one = rng_() % nodes.size();
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (how == 2 || (how == 1 && rng_() % 2) || (how == 0 && i == one)) cache.Erase(nodes[i]);
    }
    world_.evictions.fetch_add(1, std::memory_order_relaxed);
  }

  void Fail(const std::string& what) {
    ADD_FAILURE() << "seed=" << world_.seed << " " << what;
    world_.failed = true;
  }

  World& world_;
  int id_;
  Role role_;
  int machine_;
  std::unique_ptr<Worker> worker_;
  std::mt19937_64 rng_;
  BTree tree_;
  std::unique_ptr<Txn> t_;
  std::vector<Op> ops_;
  std::vector<Outcome> outcomes_;
  std::map<std::string, std::optional<std::string>> own_;
  uint64_t serial_ = 0;
};

// Replays the committed transactions in serialisation order (writers at W, read-only ones at R
// after writers with W <= R): every result they saw must come out again, and the final tree
// must equal the model.
void CheckLog(World& world) {
  std::ranges::sort(world.log, [](const Committed& a, const Committed& b) {
    return std::pair(a.ts, a.read_only) < std::pair(b.ts, b.read_only);
  });
  Model model;
  for (size_t k = 0; k < world.log.size(); ++k) {
    const Committed& c = world.log[k];
    for (size_t i = 0; i < c.ops.size(); ++i) {
      Outcome want = ApplyToModel(model, c.ops[i], true);
      ASSERT_EQ(c.outcomes[i], want) << "seed=" << world.seed << " committed txn " << k << " op "
                                     << i << " got " << Show(c.outcomes[i]) << " want "
                                     << Show(want);
    }
  }
  auto w = world.cluster.engine(0).NewWorker();
  CheckAll(*w, world.tree, model, world.seed);
  w->FlushTruncations();
}

// Actor roles and machines: checkers everywhere, writers on every machine, one old reader on
// the first machine (with the first checker, whose cache it keeps making stale).
std::vector<std::unique_ptr<Actor>> Cast(World& world, int machines) {
  std::vector<std::unique_ptr<Actor>> actors;
  const Actor::Role roles[] = {Actor::kChecker, Actor::kWriter, Actor::kOldReader,
                               Actor::kChecker, Actor::kWriter};
  for (int i = 0; i < 5; ++i) {
    actors.push_back(std::make_unique<Actor>(world, i, roles[i], i % machines));
  }
  return actors;
}

void Summarise(World& world, int machines, uint64_t min_checks) {
  size_t writers = std::ranges::count(world.log, false, &Committed::read_only);
  EXPECT_GE(world.own_checks.load(), min_checks) << "seed=" << world.seed;
  EXPECT_GT(writers, 50u) << "seed=" << world.seed;
  EXPECT_GT(world.evictions.load(), 10u) << "seed=" << world.seed;
  auto w = world.cluster.engine(0).NewWorker();
  auto t = *w->Begin(ReadOnly());
  auto root_bytes = *t->Read(world.tree.root());
  auto root = NodeView::Open(root_bytes);
  ASSERT_TRUE(root);
  EXPECT_GE(root->level(), 2u) << "the tree grew to at least three levels";
  t->Abort();
  std::cout << "[ seed " << world.seed << " on " << machines << " machines: "
            << world.own_checks.load() << " own-write checks, " << world.log.size()
            << " commits, " << world.evictions.load() << " evictions ]\n";
}

class BTreeAnomalyTest : public ::testing::TestWithParam<int> {};

// One thread interleaves the actors' steps in a seeded order: replayable with FARMDB_SEED.
TEST_P(BTreeAnomalyTest, OwnInsertsStayVisibleInterleaved) {
  const int machines = GetParam();
  for (uint64_t seed : Seeds({1, 2, 3, 4})) {
    World world(machines, seed);
    auto actors = Cast(world, machines);
    std::mt19937_64 rng(seed);
    for (int step = 0; step < 6000 && !world.failed; ++step) actors[rng() % actors.size()]->Step();
    for (auto& a : actors) a->Drop();
    ASSERT_FALSE(world.failed);
    CheckLog(world);
    Summarise(world, machines, 500);
  }
}

// One thread per actor: real concurrency (the interleaving is not replayable; the seeds are).
TEST_P(BTreeAnomalyTest, OwnInsertsStayVisibleConcurrently) {
  const int machines = GetParam();
  for (uint64_t seed : Seeds({11, 12})) {
    World world(machines, seed);
    auto actors = Cast(world, machines);
    std::vector<std::thread> threads;
    for (auto& a : actors) {
      threads.emplace_back([&world, actor = a.get()] {
        for (int step = 0; step < 1200 && !world.failed; ++step) actor->Step();
        actor->Drop();
      });
    }
    for (auto& t : threads) t.join();
    actors.clear();
    ASSERT_FALSE(world.failed);
    CheckLog(world);
    Summarise(world, machines, 100);
  }
}

INSTANTIATE_TEST_SUITE_P(Machines, BTreeAnomalyTest, ::testing::Values(1, 3),
                         [](const auto& info) { return std::to_string(info.param) + "machines"; });

}  // namespace
}  // namespace farmdb::storage
