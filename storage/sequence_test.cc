// Sequences: PostgreSQL's nextval stepping (increments, descending, limits, CYCLE, setval,
// is_called), incarnations, and concurrent nextval from workers on three machines.
#include "storage/sequence.h"

#include <gtest/gtest.h>

#include <set>

#include "storage/index_test_util.h"

namespace farmdb::storage {
namespace {

using Code = StorageError::Code;

SequenceRef Create(Worker& w, const SequenceOptions& o) {
  auto t = *w.Begin({});
  auto seq = Sequence::Create(*t, o);
  EXPECT_TRUE(seq);
  EXPECT_TRUE(t->Commit());
  return *seq;
}

std::vector<int64_t> Take(SequenceCache& cache, SequenceRef seq, int n) {
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    auto v = cache.Next(seq);
    EXPECT_TRUE(v) << Describe(v.error());
    if (v) out.push_back(*v);
  }
  return out;
}

using V = std::vector<int64_t>;

TEST(Sequence, StepsLikePostgres) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  SequenceCache cache(c.engine(0));
  EXPECT_EQ(Take(cache, Create(*w, {}), 3), (V{1, 2, 3}));
  EXPECT_EQ(Take(cache, Create(*w, {.start = 10, .increment = 5, .cache = 4}), 6),
            (V{10, 15, 20, 25, 30, 35}));
  SequenceOptions down{.start = -1, .increment = -2, .min = -6, .max = -1};
  SequenceRef d = Create(*w, down);
  EXPECT_EQ(Take(cache, d, 3), (V{-1, -3, -5}));
  auto past = cache.Next(d);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().code, Code::kSequenceLimit);
  // CYCLE wraps inside a cached block too.
  SequenceRef cyc = Create(*w, {.start = 2, .increment = 2, .min = 1, .max = 6, .cache = 5, .cycle = true});
  EXPECT_EQ(Take(cache, cyc, 7), (V{2, 4, 6, 1, 3, 5, 1}));
  // A block stops at max; the next refill reports the limit.
  SequenceRef small = Create(*w, {.max = 3, .cache = 10});
  EXPECT_EQ(Take(cache, small, 3), (V{1, 2, 3}));
  EXPECT_EQ(cache.Next(small).error().code, Code::kSequenceLimit);
  // setval(s, 100) then nextval gives 101; setval(s, 100, false) gives 100 itself.
  SequenceRef s = Create(*w, {.cache = 3});
  EXPECT_EQ(Take(cache, s, 1), (V{1}));
  ASSERT_TRUE(cache.Set(s, 100, true));
  EXPECT_EQ(Take(cache, s, 2), (V{101, 102}));
  ASSERT_TRUE(cache.Set(s, 100, false));
  EXPECT_EQ(Take(cache, s, 2), (V{100, 101}));
  EXPECT_EQ(cache.Set(s, 0, true).error().code, Code::kInvalidArgument) << "below min";
  auto t = *w->Begin({});
  auto state = Sequence::Read(*t, s);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->last, 102) << "the block taken reaches 102";
  EXPECT_TRUE(state->is_called);
  EXPECT_EQ(state->options.cache, 3);
  ASSERT_TRUE(t->Commit());
}

TEST(Sequence, InvalidOptionsAndIncarnations) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  SequenceCache cache(c.engine(0));
  auto t = *w->Begin({});
  for (SequenceOptions o : {SequenceOptions{.increment = 0}, SequenceOptions{.min = 5, .max = 5},
                            SequenceOptions{.start = 0}, SequenceOptions{.cache = 0}}) {
    auto r = Sequence::Create(*t, o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::kInvalidArgument);
  }
  ASSERT_TRUE(t->Commit());
  SequenceRef s = Create(*w, {.cache = 50});
  EXPECT_EQ(Take(cache, s, 1), (V{1}));
  // Same Addr, another incarnation: not this sequence, even with a block cached for `s`.
  SequenceRef other{s.addr, s.incarnation + 1};
  EXPECT_EQ(cache.Next(other).error().code, Code::kInvalidArgument);
  t = *w->Begin({});
  ASSERT_TRUE(Sequence::Drop(*t, s));
  ASSERT_TRUE(t->Commit());
  t = *w->Begin({});
  EXPECT_EQ(Sequence::Read(*t, s).error().code, Code::kInvalidArgument);
  t->Abort();
}

// CREATE SEQUENCE then nextval in one transaction: the cache's own transactions cannot see the
// sequence yet, so the values come from the caller's Txn; after commit the cache continues.
TEST(Sequence, NextvalInTheCreatingTransaction) {
  TestCluster c(Machines(1), Patient());
  auto w = c.engine(0).NewWorker();
  SequenceCache cache(c.engine(0));
  auto t = *w->Begin({});
  auto s = Sequence::Create(*t, {.cache = 10});
  ASSERT_TRUE(s);
  EXPECT_EQ(cache.Next(*s).error().code, Code::kInvalidArgument) << "not visible to the cache";
  EXPECT_EQ(*cache.Next(*s, *t), 1);
  EXPECT_EQ(*cache.Next(*s, *t), 2);
  ASSERT_TRUE(t->Commit());
  t = *w->Begin({});
  EXPECT_EQ(*cache.Next(*s, *t), 3);
  EXPECT_EQ(*cache.Next(*s), 4);
  t->Abort();
}

// Several workers per machine on three machines call nextval concurrently: every value is
// handed out once; with CACHE 1 they are exactly 1..N; each thread sees its values increase.
TEST(Sequence, ConcurrentNextvalOnThreeMachinesIsDistinct) {
  for (int64_t block : {1, 7}) {
    TestCluster c(Machines(3), txn::EngineOptions{});
    auto setup = c.engine(0).NewWorker();
    SequenceRef seq = Create(*setup, {.cache = block});
    std::vector<std::unique_ptr<SequenceCache>> caches;
    for (int m = 0; m < 3; ++m) caches.push_back(std::make_unique<SequenceCache>(c.engine(m)));
    constexpr int kThreads = 6, kEach = 60;
    std::vector<V> got(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] { got[i] = Take(*caches[i % 3], seq, kEach); });
    }
    for (auto& th : threads) th.join();
    std::set<int64_t> all;
    for (const V& v : got) {
      EXPECT_TRUE(std::ranges::is_sorted(v)) << "block " << block;
      all.insert(v.begin(), v.end());
    }
    EXPECT_EQ(all.size(), size_t{kThreads * kEach}) << "block " << block;
    if (block == 1) {
      EXPECT_EQ(*all.rbegin(), kThreads * kEach);
    }
    EXPECT_LE(*all.rbegin(), kThreads * kEach + 3 * block) << "at most a block per machine unused";
    caches.clear();
    setup->FlushTruncations();
    EXPECT_EQ(c.CheckReplicas(), "");
  }
}

// Hidden row ids: each worker gets its own chunk of the machine's block, so two concurrent
// inserters' ids are kRowIdChunk apart (different B-tree leaves) and each one's ids increase.
TEST(Sequence, RowIdsComeInChunksPerWorker) {
  TestCluster c(Machines(1), Patient());
  auto setup = c.engine(0).NewWorker();
  SequenceRef seq = Create(*setup, {.cache = SequenceCache::kRowIdCache});
  SequenceCache cache(c.engine(0));
  auto a = c.engine(0).NewWorker(), b = c.engine(0).NewWorker();
  auto ids = [&](Worker& w, int n) {
    V out;
    auto t = *w.Begin({});
    for (int i = 0; i < n; ++i) out.push_back(*cache.NextRowId(seq, *t));
    t->Abort();
    return out;
  };
  V a1 = ids(*a, 3), b1 = ids(*b, 3), a2 = ids(*a, 2);
  EXPECT_EQ(a1, (V{1, 2, 3}));
  EXPECT_EQ(b1, (V{1 + SequenceCache::kRowIdChunk, 2 + SequenceCache::kRowIdChunk, 3 + SequenceCache::kRowIdChunk}));
  EXPECT_EQ(a2, (V{4, 5}));
  // A chunk used up continues from the block; every id stays distinct across workers.
  std::set<int64_t> all(a1.begin(), a1.end());
  all.insert(b1.begin(), b1.end());
  all.insert(a2.begin(), a2.end());
  V more = ids(*a, SequenceCache::kRowIdChunk);
  EXPECT_TRUE(std::ranges::is_sorted(more));
  all.insert(more.begin(), more.end());
  EXPECT_EQ(all.size(), 8 + size_t{SequenceCache::kRowIdChunk});
  EXPECT_GT(more.back(), b1.back()) << "the next chunk comes after b's";
}

}  // namespace
}  // namespace farmdb::storage
