#include "txn/slab.h"

#include <gtest/gtest.h>

#include <set>

#include "cluster/rng.h"

namespace farmdb::txn {
namespace {

TEST(SlabBitmapTest, AllocatesEveryIndexOnceThenRunsOut) {
  SlabBitmap b(130);  // not a multiple of 64: the last leaf is partial
  std::set<uint32_t> seen;
  while (auto i = b.Allocate()) {
    EXPECT_LT(*i, 130u);
    EXPECT_TRUE(seen.insert(*i).second);
  }
  EXPECT_EQ(seen.size(), 130u);
  EXPECT_EQ(b.free_count(), 0u);
  b.Free(77);
  b.Free(77);  // double free is idempotent
  EXPECT_EQ(b.free_count(), 1u);
  EXPECT_EQ(b.Allocate(), 77u);
  EXPECT_FALSE(b.Allocate().has_value());
}

TEST(SlabBitmapTest, RandomAllocFreeMatchesAReferenceSet) {
  cluster::Rng rng(7);
  const uint32_t cap = SlabCapacity(1);
  SlabBitmap b(cap);
  std::set<uint32_t> used;
  for (int step = 0; step < 100000; ++step) {
    if (used.empty() || rng.Chance(0.6)) {
      auto i = b.Allocate();
      if (used.size() == cap) {
        EXPECT_FALSE(i.has_value());
        continue;
      }
      ASSERT_TRUE(i.has_value());
      ASSERT_TRUE(used.insert(*i).second) << "index handed out twice: " << *i;
    } else {
      auto it = used.begin();
      std::advance(it, rng.Uniform(used.size()));
      b.Free(*it);
      used.erase(it);
    }
    ASSERT_EQ(b.free_count(), cap - used.size());
  }
}

TEST(SlabTest, AddressesStayInsideTheSlabAndMapBack) {
  Slab s(3, 2, 4);
  uint32_t cap = SlabCapacity(4);
  Addr first = s.ObjectAddr(0), last = s.ObjectAddr(cap - 1);
  EXPECT_EQ(first.region(), 3u);
  EXPECT_EQ(first.offset(), 2 * kSlabSize + 64);
  EXPECT_LE(last.offset() + 4 * 64, 3 * kSlabSize);
  EXPECT_EQ(s.ObjectIndex(last), cap - 1);
  s.PostFree(5);
  s.bitmap.Allocate();
  s.DrainFrees();
  EXPECT_TRUE(s.bitmap.IsFree(5));
}

}  // namespace
}  // namespace farmdb::txn
