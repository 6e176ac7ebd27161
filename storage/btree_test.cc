#include "storage/btree.h"

#include <gtest/gtest.h>

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
