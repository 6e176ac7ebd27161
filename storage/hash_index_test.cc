#include "storage/hash_index.h"

#include <gtest/gtest.h>


#include "storage/index_test_util.h"

namespace farmdb::storage {
namespace {

HashIndex CreateIndex(Worker& w, HashIndexOptions options) {
  auto t = *w.Begin({});
  auto ix = HashIndex::Create(*t, options);
  EXPECT_TRUE(ix);
  EXPECT_TRUE(t->Commit());
  return *ix;
}

TEST(HashBucketTest, CodecsRoundTrip) {
  HashBucket b;
  b.next = Addr{42};
  b.entries.push_back({7, 2, 3, {}, "keval"});
  b.entries.push_back({9, 100, 900, Addr{77}, {}});
  auto d = DecodeBucket(EncodeBucket(b));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->next, Addr{42});
  ASSERT_EQ(d->entries.size(), 2u);
  EXPECT_EQ(d->entries[0].bytes, "keval");
  EXPECT_EQ(d->entries[1].blob, Addr{77});
  EXPECT_EQ(d->entries[1].value_len, 900u);
  EXPECT_EQ(EncodeBucket(b).size(), b.EncodedSize());
  // A bucket never decodes as another kind of object.
  EXPECT_FALSE(DecodeSegment(EncodeBucket(b)));
  EXPECT_FALSE(DecodeBucket(EncodeBlob("k", "v")));
  HashRoot r{true, 1, 4, 8, {Addr{5}, Addr{6}}};
  auto dr = DecodeRoot(EncodeRoot(r));
  ASSERT_TRUE(dr);
  EXPECT_EQ(dr->directory, r.directory);
  EXPECT_EQ(dr->max_global_depth, 4u);
  EXPECT_LE(EncodeRoot(r).size(), HashRootCapacity());
}

TEST(HashIndexTest, BasicsLargeValuesAndErrors) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  {
    auto t = *w->Begin({});
    EXPECT_EQ(HashIndex::Create(*t, {.buckets_per_segment = 1}).error().code,
              StorageError::Code::kInvalidArgument);
  }
  HashIndex ix = CreateIndex(*w, {.unique = true, .buckets_per_segment = 4});
  std::string big(10000, 'b');
  {
    auto t = *w->Begin({});
    ASSERT_TRUE(ix.Insert(*t, "", ""));
    ASSERT_TRUE(ix.Insert(*t, "big", big));
    EXPECT_EQ(ix.Insert(*t, "big", "x").error().code, StorageError::Code::kDuplicateKey);
    EXPECT_EQ(ix.Insert(*t, "huge", std::string(kMaxKeyValue, 'h')).error().code,
              StorageError::Code::kTooLarge);
    ASSERT_TRUE(t->Commit());
  }
  auto t = *w->Begin({});
  EXPECT_EQ(*ix.Lookup(*t, ""), std::vector<std::string>{""});
  EXPECT_EQ(*ix.Lookup(*t, "big"), std::vector<std::string>{big});
  EXPECT_TRUE(ix.Lookup(*t, "absent")->empty());
  auto it = *ix.Scan(*t, "big");
  ASSERT_TRUE(*it->Next());
  EXPECT_EQ(it->key(), "big");
  EXPECT_EQ(it->value(), big);
  EXPECT_FALSE(*it->Next());
  EXPECT_EQ(*ix.Erase(*t, "big"), 1u);
  EXPECT_TRUE(ix.Lookup(*t, "big")->empty());
  ASSERT_TRUE(t->Commit());
}

// Growth: a table of small segments splits many times; with the depth capped, chains take over.
TEST(HashIndexTest, GrowsBySplittingSegmentsThenChainsAtMaxDepth) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  for (uint32_t max_depth : {kMaxGlobalDepth, 1u}) {
    HashIndex ix = CreateIndex(*w, {.unique = true, .buckets_per_segment = 2,
                                    .max_global_depth = max_depth});
    Model model;
    for (uint32_t batch = 0; batch < 10; ++batch) {
      auto t = *w->Begin({});
      for (uint32_t i = 0; i < 40; ++i) {
        std::string k = KeyOf(batch * 40 + i), v = "v" + k;
        ASSERT_TRUE(ix.Insert(*t, k, v));
        model.emplace(k, v);
      }
      ASSERT_TRUE(t->Commit());
    }
    CheckAll(*w, ix, model, 0);
    auto t = *w->Begin(ReadOnly());
    auto root = DecodeRoot(*t->Read(ix.root()));
    ASSERT_TRUE(root);
    // 400 entries cannot fit in the 2^d segments of 2 buckets of 8 slots unless d >= 5.
    if (max_depth == kMaxGlobalDepth) {
      EXPECT_GE(root->global_depth, 5u);
    } else {
      EXPECT_EQ(root->global_depth, 1u);
    }
  }
}

struct Shape {
  int machines;
  bool unique;
  uint32_t buckets_per_segment;
  uint32_t max_global_depth;
};

Bench<HashIndex> BenchFor(const Shape& s, uint32_t keys) {
  Bench<HashIndex> b;
  b.machines = s.machines;
  b.unique = s.unique;
  b.mix = {.keys = keys, .large_values = true, .scans = false};
  HashIndexOptions o{s.unique, s.buckets_per_segment, s.max_global_depth};
  b.create = [o](Txn& t) { return HashIndex::Create(t, o); };
  return b;
}

std::string ShapeName(const ::testing::TestParamInfo<Shape>& info) {
  return std::to_string(info.param.machines) + "machines_" +
         (info.param.unique ? "unique" : "nonunique") + "_depth" +
         std::to_string(info.param.max_global_depth);
}

class HashIndexPropertyTest : public ::testing::TestWithParam<Shape> {};

TEST_P(HashIndexPropertyTest, MatchesModelSingleThreaded) {
  for (uint64_t seed : Seeds({1, 2})) {
    RunSingleThreaded(BenchFor(GetParam(), GetParam().unique ? 400 : 60), seed, 250);
  }
}

// Small segments (splits while others work) and, with a low depth cap, overflow chains.
TEST_P(HashIndexPropertyTest, CommittedEffectsMatchModelConcurrently) {
  for (uint64_t seed : Seeds({7})) RunConcurrent(BenchFor(GetParam(), 24), seed, 60);
}

INSTANTIATE_TEST_SUITE_P(Shapes, HashIndexPropertyTest,
                         ::testing::Values(Shape{1, true, 4, kMaxGlobalDepth}, Shape{1, false, 2, 2},
                                           Shape{3, true, 2, kMaxGlobalDepth},
                                           Shape{3, false, 4, 1}),
                         ShapeName);

}  // namespace
}  // namespace farmdb::storage
