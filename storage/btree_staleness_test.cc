// Cross-machine staleness of the per-machine index caches: machine A warms its cache, machine B
// restructures the index heavily (thousands of inserts and erases: B-tree leaf and internal
// splits, a new root level; hash segment splits and directory doublings), and A's lookups and
// scans must stay exact against a model, through cached entries that B's work made stale. The
// stale path must really be taken (counted), and once the cache is warm again a lookup costs the
// reads the design promises: one leaf for the B-tree; segment and buckets, never the root, for
// the hash index. Also the hash index's property runs (index_test_util.h) with a directory cache
// per machine. Object reads are counted by txn::TxnCounters (local_reads + remote_reads of A's
// engine; only A runs transactions there). Seeded; FARMDB_SEED=<n> replays one seed.
#include <gtest/gtest.h>

#include "storage/btree.h"
#include "storage/hash_index.h"
#include "storage/index_test_util.h"

namespace farmdb::storage {
namespace {

constexpr int kA = 0, kB = 1;

uint64_t Reads(TestCluster& c, int m) {
  const auto& k = c.engine(m).counters();
  return k.local_reads.load() + k.remote_reads.load();
}

std::string Key(uint64_t i) { return "key" + std::to_string(100000 + i); }

// B's restructuring: `ops` inserts (3 in 4) and erases over `keys` keys, 25 per transaction,
// kept in `model`. Values are small so a hash entry stays inline.
template <typename Index>
void Restructure(Worker& b, const Index& ix, Model& model, std::mt19937_64& rng, int ops,
                 uint64_t keys) {
  for (int done = 0; done < ops;) {
    auto t = *b.Begin({});
    Model next = model;
    for (int i = 0; i < 25; ++i, ++done) {
      Op op{rng() % 4 ? Op::kInsert : Op::kErase, Key(rng() % keys),
            "v" + std::to_string(rng() % 100)};
      Outcome want = ApplyToModel(next, op, true);
      auto got = ApplyToIndex(ix, *t, op);
      ASSERT_TRUE(got) << Describe(got.error());
      ASSERT_EQ(*got, want);
    }
    ASSERT_TRUE(t->Commit());
    model = std::move(next);
  }
}

// A lookup in its own read-only transaction, checked against the model.
template <typename Index>
void CheckLookup(Worker& a, const Index& ix, const Model& model, const std::string& key,
                 uint64_t seed) {
  auto t = *a.Begin(ReadOnly());
  auto got = ApplyToIndex(ix, *t, Op{Op::kLookup, key, ""});
  ASSERT_TRUE(got) << "seed=" << seed << " " << Describe(got.error());
  Outcome want;
  for (auto it = model.lower_bound({key, ""}); it != model.end() && it->first == key; ++it) {
    want.values.push_back(it->second);
  }
  EXPECT_EQ(*got, want) << "seed=" << seed << " key " << key;
  ASSERT_TRUE(t->Commit());
}

template <typename Index>
void WarmUp(Worker& a, const Index& ix, const Model& model, uint64_t keys, uint64_t seed) {
  for (uint64_t i = 0; i < keys; ++i) CheckLookup(a, ix, model, Key(i), seed);
}

TEST(BTreeStalenessTest, StaysExactWhileAnotherMachineRestructures) {
  constexpr uint64_t kKeys = 2000;
  for (uint64_t seed : Seeds({1, 2})) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    TestCluster c(Machines(3), Patient());
    BTreeCache cache_a, cache_b;
    auto a = c.engine(kA).NewWorker();
    auto b = c.engine(kB).NewWorker();
    auto t = *b->Begin({});
    BTree at_b = *BTree::Create(*t, {.unique = true, .node_bytes = 512}, &cache_b);
    ASSERT_TRUE(t->Commit());
    BTree at_a = BTree::Open(at_b.root(), &cache_a);
    std::mt19937_64 rng(seed);
    Model model;
    uint64_t stale = 0, probes = 0;
    Restructure(*b, at_b, model, rng, 400, kKeys / 4);  // a small tree to start with
    for (int round = 0; round < 3; ++round) {
      WarmUp(*a, at_a, model, kKeys / 4, seed);
      Restructure(*b, at_b, model, rng, 1200, kKeys);
      for (int i = 0; i < 150; ++i, ++probes) {
        // A stale descent drops its path from the cache and re-reads it: the cached root is
        // then a newly decoded node.
        auto before = cache_a.Get(at_a.root());
        CheckLookup(*a, at_a, model, Key(rng() % kKeys), seed);
        stale += before != nullptr && cache_a.Get(at_a.root()) != before;
      }
      // Scans with random bounds both ways, each in one transaction.
      for (int i = 0; i < 10; ++i) {
        Op op{Op::kScan, Key(rng() % kKeys), Key(rng() % kKeys)};
        if (op.value < op.key) std::swap(op.key, op.value);
        op.lower_inclusive = rng() % 2, op.upper_inclusive = rng() % 2, op.backward = rng() % 2;
        auto st = *a->Begin(ReadOnly());
        auto got = ApplyToIndex(at_a, *st, op);
        ASSERT_TRUE(got) << Describe(got.error());
        Model copy = model;
        EXPECT_EQ(*got, ApplyToModel(copy, op, true)) << "scan " << op.key << ".." << op.value;
        ASSERT_TRUE(st->Commit());
      }
    }
    EXPECT_GT(stale, 0u) << "the stale-cache path was never taken";
    // Warm again: every lookup (present or absent key) reads exactly one object, its leaf.
    WarmUp(*a, at_a, model, kKeys, seed);
    uint64_t reads = Reads(c, kA);
    for (int i = 0; i < 200; ++i) CheckLookup(*a, at_a, model, Key(rng() % kKeys), seed);
    EXPECT_EQ(Reads(c, kA) - reads, 200u) << "warm lookups should read their leaf only";
    auto ct = *a->Begin(ReadOnly());
    EXPECT_EQ(*at_a.CheckInvariants(*ct), "");
    ct->Abort();
    std::cout << "[ seed " << seed << ": " << stale << " of " << probes
              << " lookups after B's restructuring took the stale path ]\n";
    a->FlushTruncations(), b->FlushTruncations();
  }
}

TEST(HashDirectoryCacheTest, StaysExactWhileAnotherMachineSplitsSegments) {
  constexpr uint64_t kKeys = 2000;
  for (uint64_t seed : Seeds({1, 2})) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    TestCluster c(Machines(3), Patient());
    HashDirectoryCache cache_a, cache_b;
    auto a = c.engine(kA).NewWorker();
    auto b = c.engine(kB).NewWorker();
    auto t = *b->Begin({});
    HashIndex at_b = *HashIndex::Create(*t, {.unique = true, .buckets_per_segment = 4}, &cache_b);
    ASSERT_TRUE(t->Commit());
    HashIndex at_a = HashIndex::Open(at_b.root(), &cache_a);
    HashIndex uncached = HashIndex::Open(at_b.root());
    std::mt19937_64 rng(seed);
    Model model;
    Restructure(*b, at_b, model, rng, 200, kKeys / 10);
    for (int round = 0; round < 3; ++round) {
      WarmUp(*a, at_a, model, kKeys / 10, seed);
      Restructure(*b, at_b, model, rng, 1200, kKeys);
      for (int i = 0; i < 150; ++i) CheckLookup(*a, at_a, model, Key(rng() % kKeys), seed);
    }
    auto s = cache_a.stats();
    EXPECT_GT(s.stale, 0u) << "the stale-directory path was never taken";
    // Warm: the same lookups cost exactly one read fewer each with the cache (no root read),
    // and none of them reads the root.
    WarmUp(*a, at_a, model, kKeys, seed);
    const HashDirectoryCache::Stats warm = cache_a.stats();
    std::vector<std::string> probes;
    for (int i = 0; i < 200; ++i) probes.push_back(Key(rng() % kKeys));
    uint64_t r0 = Reads(c, kA);
    for (const auto& k : probes) CheckLookup(*a, at_a, model, k, seed);
    uint64_t r1 = Reads(c, kA);
    for (const auto& k : probes) CheckLookup(*a, uncached, model, k, seed);
    uint64_t r2 = Reads(c, kA);
    EXPECT_EQ(cache_a.stats().misses, warm.misses);
    EXPECT_EQ(cache_a.stats().stale, warm.stale);
    EXPECT_EQ((r2 - r1) - (r1 - r0), probes.size()) << "with cache " << r1 - r0 << " without "
                                                    << r2 - r1;
    auto ct = *a->Begin(ReadOnly());
    EXPECT_EQ(*at_a.CheckInvariants(*ct), "");
    ct->Abort();
    std::cout << "[ seed " << seed << ": directory cache misses " << s.misses
              << " stale " << s.stale << "; warm reads per lookup " << (r1 - r0) / 200.0
              << " cached, " << (r2 - r1) / 200.0 << " uncached ]\n";
    a->FlushTruncations(), b->FlushTruncations();
  }
}

// The property runs of hash_index_test.cc, with every machine's handle using its own directory
// cache: splits by one machine make the others' caches stale mid-run.
struct Shape {
  int machines;
  bool unique;
  uint32_t buckets_per_segment;
  uint32_t max_global_depth;
};

class HashDirectoryCachePropertyTest : public ::testing::TestWithParam<Shape> {
 protected:
  Bench<HashIndex> BenchFor(uint32_t keys) {
    const Shape s = GetParam();
    for (int m = 0; m < s.machines; ++m) caches_.push_back(std::make_unique<HashDirectoryCache>());
    Bench<HashIndex> b;
    b.machines = s.machines;
    b.unique = s.unique;
    b.mix = {.keys = keys, .large_values = true, .scans = false};
    HashIndexOptions o{s.unique, s.buckets_per_segment, s.max_global_depth};
    b.create = [this, o](Txn& t) { return HashIndex::Create(t, o, caches_[0].get()); };
    b.open = [this](HashIndex ix, int m) { return HashIndex::Open(ix.root(), caches_[m].get()); };
    return b;
  }
  std::vector<std::unique_ptr<HashDirectoryCache>> caches_;
};

TEST_P(HashDirectoryCachePropertyTest, MatchesModelSingleThreaded) {
  for (uint64_t seed : Seeds({3})) {
    RunSingleThreaded(BenchFor(GetParam().unique ? 400 : 60), seed, 250);
  }
  uint64_t stale = 0;
  for (const auto& cache : caches_) stale += cache->stats().stale;
  if (GetParam().machines > 1) {
    EXPECT_GT(stale, 0u);
  }
}

TEST_P(HashDirectoryCachePropertyTest, CommittedEffectsMatchModelConcurrently) {
  for (uint64_t seed : Seeds({8})) RunConcurrent(BenchFor(24), seed, 60);
}

INSTANTIATE_TEST_SUITE_P(Shapes, HashDirectoryCachePropertyTest,
                         ::testing::Values(Shape{1, true, 2, kMaxGlobalDepth},
                                           Shape{3, true, 2, kMaxGlobalDepth},
                                           Shape{3, false, 4, 2}),
                         [](const auto& info) {
                           return std::to_string(info.param.machines) + "machines_" +
                                  (info.param.unique ? "unique" : "nonunique") + "_depth" +
                                  std::to_string(info.param.max_global_depth);
                         });

}  // namespace
}  // namespace farmdb::storage
