#include "storage/btree.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <thread>

#include "storage/index_test_util.h"

namespace farmdb::storage {
namespace {

TEST(BTreeNodeTest, BuildInsertEraseAndCompact) {
  const size_t capacity = 200;
  NodeEntry entries[] = {{{"a", ""}, Addr{10}}, {{"c", "1"}, Addr{11}}};
  auto n = NodeBuffer::Build(Addr{9}, 1, false, capacity, {"a", ""}, ItemView{"m", "x"}, entries);
  ASSERT_TRUE(n);
  auto v = NodeView::Open(n->bytes());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->tree(), Addr{9});
  EXPECT_EQ(v->level(), 1u);
  EXPECT_FALSE(v->unique());
  EXPECT_EQ(v->capacity(), capacity);
  ASSERT_EQ(v->count(), 2u);
  EXPECT_EQ(v->item(1), (ItemView{"c", "1"}));
  EXPECT_EQ(v->child(0), Addr{10});
  EXPECT_EQ(v->child(1), Addr{11});
  EXPECT_EQ(v->low(), (ItemView{"a", ""}));
  EXPECT_EQ(v->high(), (ItemView{"m", "x"}));
  EXPECT_EQ(v->LowerBound({"b", ""}), 1u);
  EXPECT_EQ(v->LowerBound({"c", "0"}), 1u);
  EXPECT_EQ(v->LowerBound({"c", "2"}), 2u);
  // Inserts in the middle keep the order; erases leave garbage that a later insert compacts.
  ASSERT_TRUE(n->Insert(1, {{"b", "22"}, Addr{12}}));
  EXPECT_EQ(n->view().item(1), (ItemView{"b", "22"}));
  EXPECT_EQ(n->view().child(1), Addr{12});
  EXPECT_EQ(n->view().child(2), Addr{11});
  const std::string big(40, 'z');
  int inserted = 0;
  while (n->Insert(n->view().count(), {{"d" + std::to_string(inserted), big}, Addr{13}})) ++inserted;
  EXPECT_GT(inserted, 0);
  EXPECT_LE(n->view().LiveBytes(), capacity);
  size_t before = n->view().count();
  n->Erase(1);
  EXPECT_EQ(n->view().count(), before - 1);
  EXPECT_EQ(n->view().item(1), (ItemView{"c", "1"}));
  // The erased record's room is reused only by compacting; the last insert did not fit before.
  n->Erase(n->view().count() - 1);
  ASSERT_TRUE(n->Insert(n->view().count(), {{"e", big}, Addr{14}}));
  EXPECT_EQ(n->view().item(n->view().count() - 1), (ItemView{"e", big}));
  EXPECT_EQ(n->view().item(0), (ItemView{"a", ""}));
  EXPECT_TRUE(NodeView::Open(n->bytes()));
  // Entries that cannot fit are refused, and so is anything that is not a node.
  NodeEntry huge[] = {{{"k", std::string(capacity, 'v')}, Addr{1}}};
  EXPECT_FALSE(NodeBuffer::Build(Addr{9}, 0, true, capacity, {}, std::nullopt, huge));
  auto blob = EncodeBlob("k", "v");
  EXPECT_FALSE(NodeView::Open(blob));
  // A slot pointing outside the node is corruption, found when the node is opened.
  txn::RawBytes bad(n->bytes().begin(), n->bytes().end());
  bad[kBTreeHeaderBytes] = std::byte{0xff};
  bad[kBTreeHeaderBytes + 1] = std::byte{0xff};
  EXPECT_FALSE(NodeView::Open(bad));
  // memcmp order: 0xff sorts after 'z'; non-unique trees break key ties by value.
  EXPECT_TRUE(CompareItems({"z", ""}, {"\xff", ""}, true) < 0);
  EXPECT_TRUE(CompareItems({"k", "a"}, {"k", "b"}, true) == 0);
  EXPECT_TRUE(CompareItems({"k", "a"}, {"k", "b"}, false) < 0);
}

TEST(BTreeTest, SplitsScansBothWaysAndUsesTheCache) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  BTreeCache cache;
  auto t = *w->Begin({});
  EXPECT_EQ(BTree::Create(*t, {.node_bytes = 100}, &cache).error().code,
            StorageError::Code::kInvalidArgument);
  BTree tree = *BTree::Create(*t, {.unique = true, .node_bytes = 512}, &cache);
  ASSERT_TRUE(t->Commit());
  auto key = [](int i) { return "key" + std::to_string(1000 + i); };
  auto value = [](int i) { return std::string(40, 'v') + std::to_string(i); };
  for (int batch = 0; batch < 10; ++batch) {
    t = *w->Begin({});
    for (int i = batch; i < 300; i += 10) ASSERT_TRUE(tree.Insert(*t, key(i), value(i)));
    ASSERT_TRUE(t->Commit());
  }
  t = *w->Begin({});
  EXPECT_EQ(tree.Insert(*t, key(5), "again").error().code, StorageError::Code::kDuplicateKey);
  EXPECT_EQ(tree.Insert(*t, "big", std::string(100, 'x')).error().code,
            StorageError::Code::kTooLarge);
  EXPECT_EQ(*tree.CheckInvariants(*t), "");
  auto root_bytes = *t->Read(tree.root());
  auto root = NodeView::Open(root_bytes);
  ASSERT_TRUE(root);
  EXPECT_GE(root->level(), 2u) << "300 items in 512-byte nodes need at least three levels";
  auto scan = [&](std::optional<KeyBound> lo, std::optional<KeyBound> hi, ScanDirection d) {
    std::vector<std::string> got;
    auto it = *tree.Scan(*t, lo, hi, d);
    while (*it->Next()) got.emplace_back(it->key().substr(4));
    return got;
  };
  auto fwd = scan(KeyBound{key(100), false}, KeyBound{key(110), true}, ScanDirection::kForward);
  EXPECT_EQ(fwd, (std::vector<std::string>{"101", "102", "103", "104", "105", "106", "107", "108",
                                           "109", "110"}));
  // Forward with an exclusive lower bound and none above runs to the end.
  EXPECT_EQ(scan(KeyBound{key(296), false}, std::nullopt, ScanDirection::kForward),
            (std::vector<std::string>{"297", "298", "299"}));
  auto back = scan(std::nullopt, KeyBound{key(3), false}, ScanDirection::kBackward);
  EXPECT_EQ(back, (std::vector<std::string>{"002", "001", "000"}));
  EXPECT_EQ(scan(std::nullopt, std::nullopt, ScanDirection::kBackward).size(), 300u);
  ASSERT_TRUE(t->Commit());
  EXPECT_GT(cache.size(), 0u);
  // A fresh cache-backed handle on a tree whose cached nodes are all stale still finds keys:
  // poison the cache with a wrong node for the root and look up through it.
  NodeEntry first[] = {{root->item(0), root->child(0)}};
  auto bogus = NodeBuffer::Build(tree.root(), root->level(), true, root->capacity(), root->low(), root->high(), first);
  ASSERT_TRUE(bogus);
  cache.Put(tree.root(), CachedNode::Copy(bogus->view()));
  t = *w->Begin({});
  auto found = tree.Lookup(*t, key(299));
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, std::vector<std::string>{value(299)});
  ASSERT_TRUE(t->Commit());
}

// Keys appended group by group, as TPC-C's new_order (w, d, o) grows district by district. Splits
// end leaves where the group changes and cut separators to the group prefix, so a transaction
// that scans from one group's prefix reads none of the previous group's leaf: another
// transaction appending to that group does not fail its validation (it did when the scan
// descended into the leaf before, which holds the prefix's position).
TEST(BTreeTest, ScansFromAGroupPrefixDoNotConflictWithAppendsToThePreviousGroup) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  BTree tree = [&] {
    auto t = *w->Begin({});
    BTree created = *BTree::Create(*t, {.unique = true, .node_bytes = 512}, nullptr);
    EXPECT_TRUE(t->Commit());
    return created;
  }();
  auto key = [](int group, int seq) { return fmt::format("g{:02}{:04}", group, seq); };
  for (int group = 0; group < 10; ++group) {
    auto t = *w->Begin({});
    for (int seq = 0; seq < 60; ++seq) ASSERT_TRUE(tree.Insert(*t, key(group, seq), std::string(20, 'v')));
    ASSERT_TRUE(t->Commit());
  }
  for (int group = 1; group < 10; ++group) {
    auto scanner = *w->Begin({});
    auto it = *tree.Scan(*scanner, KeyBound{fmt::format("g{:02}", group), true}, std::nullopt,
                         ScanDirection::kForward);
    ASSERT_TRUE(*it->Next());
    EXPECT_EQ(it->key(), key(group, 0));
    auto other = c.engine(0).NewWorker();
    auto appender = *other->Begin({});
    ASSERT_TRUE(tree.Insert(*appender, key(group - 1, 9000), "appended"));
    ASSERT_TRUE(appender->Commit());
    // A write makes the scanner validate its reads at commit.
    ASSERT_TRUE(tree.Insert(*scanner, fmt::format("a{}", group), "scanner"));
    EXPECT_TRUE(scanner->Commit()) << "group " << group;
  }
  auto t = *w->Begin({});
  EXPECT_EQ(*tree.CheckInvariants(*t), "");
  ASSERT_TRUE(t->Commit());
}

// READ COMMITTED: a transaction inserts into a leaf, takes a fresh R for its next statement, and
// meanwhile another transaction's commit split that leaf. The next descent reads the parent at
// the new R and then the leaf from the first transaction's write set: its older copy, whose high
// fence the parent no longer gives it. That write could not commit (LOCK checks the version it
// read), so the descent aborts the transaction retryably instead of calling the tree broken
// (an internal error, XX000, reached clients before: issue 42).
TEST(BTreeTest, ADescentAfterAReadRefreshThatMeetsItsOwnOutdatedLeafAbortsRetryably) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  auto other = c.engine(0).NewWorker();
  BTree tree = [&] {
    auto t = *w->Begin({});
    BTree created = *BTree::Create(*t, {.unique = true, .node_bytes = 512}, nullptr);
    EXPECT_TRUE(t->Commit());
    return created;
  }();
  auto key = [](int i) { return fmt::format("k{:05}", i); };
  {
    auto t = *w->Begin({});
    for (int i = 0; i < 400; i += 4) ASSERT_TRUE(tree.Insert(*t, key(i), std::string(20, 'v')));
    ASSERT_TRUE(t->Commit());
  }
  txn::TxnOptions read_committed;
  read_committed.isolation = txn::Isolation::kSnapshot;
  auto t = *w->Begin(read_committed);
  ASSERT_TRUE(tree.Insert(*t, key(201), "first statement"));
  {
    // Fill the leaf of key 201 until it splits.
    auto u = *other->Begin({});
    for (int i = 202; i < 260; ++i) {
      if (i % 4 == 0 || i == 205) continue;
      ASSERT_TRUE(tree.Insert(*u, key(i), std::string(20, 'w')));
    }
    ASSERT_TRUE(u->Commit());
  }
  ASSERT_TRUE(t->RefreshReadTimestamp());
  auto second = tree.Insert(*t, key(205), "second statement");  // in the leaf of 201
  ASSERT_FALSE(second) << "the descent went through its own outdated leaf unnoticed";
  EXPECT_EQ(second.error().code, StorageError::Code::kTxn);
  EXPECT_TRUE(second.error().IsRetryable());
  EXPECT_EQ(second.error().txn.reason, txn::AbortReason::kLockConflict);
  auto check = *w->Begin({});
  EXPECT_EQ(*tree.CheckInvariants(*check), "");
  EXPECT_TRUE(tree.Lookup(*check, key(201)).value().empty()) << "the aborted insert is not there";
  ASSERT_TRUE(check->Commit());
}

// Queue-like erases (TPC-C's new_order: inserts at one end, deletes at the other) empty one leaf
// after another. Each emptied leaf is unlinked, so finding the least key costs one descent
// however many keys were erased before it, and erasing everything collapses the tree to an
// empty root leaf that takes inserts again. Keys are fixed-width, so a moved fence always fits
// and no empty leaf may stay behind. Erases alternate across three machines, each with its own
// cache, so descents also run into cached parents of freed nodes.
enum class EraseOrder { kAscending, kDescending, kRandom };

class BTreeUnlinkTest : public ::testing::TestWithParam<EraseOrder> {};

TEST_P(BTreeUnlinkTest, ErasedLeavesAreUnlinkedAndTheTreeCollapses) {
  TestCluster c(Machines(3), Patient());
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::unique_ptr<BTreeCache>> caches;
  for (int m = 0; m < 3; ++m) {
    workers.push_back(c.engine(m).NewWorker());
    caches.push_back(std::make_unique<BTreeCache>());
  }
  auto t = *workers[0]->Begin({});
  const BTree created = *BTree::Create(*t, {.unique = true, .node_bytes = 512}, caches[0].get());
  ASSERT_TRUE(t->Commit());
  auto tree = [&](int m) { return BTree::Open(created.root(), caches[m].get()); };
  auto key = [](int i) { return fmt::format("key{:06}", i); };
  constexpr int kKeys = 600;
  std::vector<int> order(kKeys);
  std::iota(order.begin(), order.end(), 0);
  auto fill = [&] {
    for (int from = 0; from < kKeys; from += 50) {
      auto t = *workers[0]->Begin({});
      for (int i = from; i < from + 50; ++i) ASSERT_TRUE(tree(0).Insert(*t, key(i), std::string(30, 'v')));
      ASSERT_TRUE(t->Commit());
    }
  };
  auto root_level = [&] {
    auto t = *workers[0]->Begin(ReadOnly());
    auto bytes = *t->Read(created.root());
    return NodeView::Open(bytes)->level();
  };
  fill();
  const uint32_t levels = root_level() + 1;
  ASSERT_GE(levels, 3u);
  if (GetParam() == EraseOrder::kDescending) std::ranges::reverse(order);
  if (GetParam() == EraseOrder::kRandom) std::ranges::shuffle(order, std::mt19937_64(7));
  std::set<int> left(order.begin(), order.end());
  for (size_t from = 0, n = 0; from < order.size(); from += 7, ++n) {
    const int m = n % 3;
    auto t = *workers[m]->Begin({});
    for (size_t k = from; k < std::min(order.size(), from + 7); ++k) {
      auto erased = tree(m).Erase(*t, key(order[k]));
      ASSERT_TRUE(erased) << Describe(erased.error());
      ASSERT_EQ(*erased, 1u) << "key " << order[k];
      left.erase(order[k]);
    }
    ASSERT_TRUE(t->Commit());
    if (n % 10 != 0 || left.empty()) continue;
    // The least and greatest keys cost a descent each (a leaf and at most its ancestors, plus
    // one neighbour leaf when the bound is a fence), not a walk over emptied leaves.
    t = *workers[m]->Begin(ReadOnly());
    for (auto direction : {ScanDirection::kForward, ScanDirection::kBackward}) {
      const uint64_t before = c.engine(m).counters().local_reads + c.engine(m).counters().remote_reads;
      auto it = *tree(m).Scan(*t, std::nullopt, std::nullopt, direction);
      ASSERT_TRUE(*it->Next());
      EXPECT_EQ(it->key(), key(direction == ScanDirection::kForward ? *left.begin() : *left.rbegin()));
      const uint64_t reads = c.engine(m).counters().local_reads + c.engine(m).counters().remote_reads - before;
      EXPECT_LE(reads, levels + 1) << left.size() << " keys left";
    }
    // After the scans: reads of objects already in the read set are not counted.
    EXPECT_EQ(*tree(m).CheckInvariants(*t), "");
    ASSERT_TRUE(t->Commit());
  }
  ASSERT_TRUE(left.empty());
  EXPECT_EQ(root_level(), 0u) << "an empty tree is one empty leaf";
  fill();
  t = *workers[1]->Begin(ReadOnly());
  EXPECT_EQ(*tree(1).CheckInvariants(*t), "");
  EXPECT_EQ(tree(1).Lookup(*t, key(kKeys - 1))->size(), 1u);
  ASSERT_TRUE(t->Commit());
  for (auto& w : workers) w->FlushTruncations();
  EXPECT_EQ(c.CheckReplicas(), "");
}

INSTANTIATE_TEST_SUITE_P(Orders, BTreeUnlinkTest,
                         ::testing::Values(EraseOrder::kAscending, EraseOrder::kDescending, EraseOrder::kRandom),
                         [](const auto& info) {
                           switch (info.param) {
                             case EraseOrder::kAscending: return "Ascending";
                             case EraseOrder::kDescending: return "Descending";
                             case EraseOrder::kRandom: return "Random";
                           }
                           return "";
                         });

// Queues under concurrency: producers append to their own queues, consumers on other machines
// take the least key of a random queue and erase it, so erases empty and unlink leaves while
// inserts split others and scans walk past both. Serializability means no key is consumed
// twice, and the tree ends holding exactly the keys produced and not consumed.
TEST(BTreeUnlinkTest, ConcurrentQueuesConsumeEveryKeyOnce) {
  for (uint64_t seed : Seeds({3})) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    TestCluster c(Machines(3), txn::EngineOptions{});
    std::vector<std::unique_ptr<BTreeCache>> caches;
    for (int m = 0; m < 3; ++m) caches.push_back(std::make_unique<BTreeCache>());
    auto setup = c.engine(0).NewWorker();
    auto t = *setup->Begin({});
    const BTree created = *BTree::Create(*t, {.unique = true, .node_bytes = 512}, caches[0].get());
    ASSERT_TRUE(t->Commit());
    constexpr int kQueues = 4, kProducers = 2, kConsumers = 2, kTxns = 150;
    auto key = [](int queue, int seq) { return fmt::format("q{}-{:06}", queue, seq); };
    std::mutex mu;
    std::set<std::string> produced, consumed;
    std::atomic<bool> failed{false};
    std::vector<std::thread> threads;
    for (int p = 0; p < kProducers; ++p) {
      threads.emplace_back([&, p] {
        auto w = c.engine(p % 3).NewWorker();
        BTree tree = BTree::Open(created.root(), caches[p % 3].get());
        std::vector<int> next(kQueues, 0);
        for (int n = 0; n < kTxns && !failed; ++n) {
          // Producer p owns queues p, p + kProducers, ...: its inserts never conflict on a key.
          const int q = p + kProducers * (n % (kQueues / kProducers));
          for (;;) {
            auto t = *w->Begin({});
            std::vector<std::string> keys;
            bool ok = true;
            for (int i = 0; i < 4 && ok; ++i) {
              keys.push_back(key(q, next[q] + i));
              auto r = tree.Insert(*t, keys.back(), std::string(20, 'v'));
              if (!r && !r.error().IsRetryable()) {
                ADD_FAILURE() << Describe(r.error());
                failed = true;
              }
              ok = r.has_value();
            }
            if (failed) return;
            if (!ok || !t->Commit()) continue;
            next[q] += 4;
            std::lock_guard lock(mu);
            produced.insert(keys.begin(), keys.end());
            break;
          }
        }
        w->FlushTruncations();
      });
    }
    for (int k = 0; k < kConsumers; ++k) {
      threads.emplace_back([&, k] {
        const int m = (kProducers + k) % 3;
        auto w = c.engine(m).NewWorker();
        BTree tree = BTree::Open(created.root(), caches[m].get());
        std::mt19937_64 rng(seed * 100 + k);
        // kTxns keys each, however the threads are scheduled: a consumer that runs before the
        // producers finds queues empty and tries again (the bound only stops a broken tree).
        int taken = 0;
        for (int n = 0; taken < kTxns && n < 100 * kTxns && !failed; ++n) {
          const int q = rng() % kQueues;
          for (;;) {
            auto t = *w->Begin({});
            // The least key of queue q, as Delivery's ORDER BY no_o_id LIMIT 1.
            auto it = tree.Scan(*t, KeyBound{fmt::format("q{}-", q), true}, KeyBound{fmt::format("q{}.", q), false},
                                ScanDirection::kForward);
            std::optional<std::string> head;
            StorageResult<void> r;
            if (!it) {
              r = std::unexpected(it.error());
            } else if (auto more = (*it)->Next(); !more) {
              r = std::unexpected(more.error());
            } else if (*more) {
              head = std::string((*it)->key());
              if (auto e = tree.Erase(*t, *head); !e) r = std::unexpected(e.error());
            }
            if (!r && !r.error().IsRetryable()) {
              ADD_FAILURE() << Describe(r.error());
              failed = true;
              return;
            }
            if (!r || !t->Commit()) continue;
            if (head) {
              ++taken;
              std::lock_guard lock(mu);
              EXPECT_TRUE(consumed.insert(*head).second) << *head << " consumed twice";
            }
            break;
          }
        }
        w->FlushTruncations();
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_FALSE(failed);
    EXPECT_EQ(consumed.size(), size_t{kConsumers} * kTxns) << "the consumers must have emptied leaves";
    Model model;
    for (const std::string& k : produced) {
      if (!consumed.contains(k)) model.insert({k, std::string(20, 'v')});
    }
    for (const std::string& k : consumed) EXPECT_TRUE(produced.contains(k)) << k;
    CheckAll(*setup, created, model, seed);
    setup->FlushTruncations();
    EXPECT_EQ(c.CheckReplicas(), "");
  }
}

struct Shape {
  int machines;
  bool unique;
  size_t node_bytes;
};

class BTreePropertyTest : public ::testing::TestWithParam<Shape> {
 protected:
  // One cache per machine, as in a deployment.
  Bench<BTree> BenchFor(uint32_t keys) {
    const Shape s = GetParam();
    for (int m = 0; m < s.machines; ++m) caches_.push_back(std::make_unique<BTreeCache>());
    Bench<BTree> b;
    b.machines = s.machines;
    b.unique = s.unique;
    b.mix = {.keys = keys, .large_values = false, .scans = true};
    BTreeOptions o{s.unique, s.node_bytes};
    b.create = [this, o](Txn& t) { return BTree::Create(t, o, caches_[0].get()); };
    b.open = [this](BTree tree, int m) { return BTree::Open(tree.root(), caches_[m].get()); };
    return b;
  }
  std::vector<std::unique_ptr<BTreeCache>> caches_;
};

TEST_P(BTreePropertyTest, MatchesModelSingleThreaded) {
  for (uint64_t seed : Seeds({1, 2})) {
    RunSingleThreaded(BenchFor(GetParam().unique ? 400 : 60), seed, 250);
  }
}

TEST_P(BTreePropertyTest, CommittedEffectsMatchModelConcurrently) {
  for (uint64_t seed : Seeds({7})) RunConcurrent(BenchFor(40), seed, 60);
}

// Waves of inserts and erases fill the tree and drain it, so leaves empty in random order and
// are unlinked (with variable-width keys, where a moved fence may not fit).
TEST_P(BTreePropertyTest, FillsAndDrainsMatchingModel) {
  for (uint64_t seed : Seeds({3, 4})) {
    auto b = BenchFor(48);
    b.mix.waves = 120;
    RunSingleThreaded(b, seed, 480);
  }
  for (uint64_t seed : Seeds({5})) {
    auto b = BenchFor(40);
    b.mix.waves = 40;
    RunConcurrent(b, seed, 120);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, BTreePropertyTest,
                         ::testing::Values(Shape{1, true, 1024}, Shape{1, false, 1024},
                                           Shape{3, true, 1024}, Shape{3, false, 2048}),
                         [](const auto& info) {
                           return std::to_string(info.param.machines) + "machines_" +
                                  (info.param.unique ? "unique" : "nonunique") + "_node" +
                                  std::to_string(info.param.node_bytes);
                         });

}  // namespace
}  // namespace farmdb::storage
