#include "txn/slab.h"

#include <gtest/gtest.h>

#include <set>

#include "cluster/fabric/word_copy.h"
#include "cluster/rng.h"
#include "txn/object.h"

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

// Replicas that differ only in lock bits and old-version pointers digest alike; any other word
// of an object, or a slab's header, changes the digest. Bytes outside formatted slabs do not count.
TEST(ReplicaDigestTest, CountsWhatReplicasShareAndNothingElse) {
  std::vector<std::byte> primary(2 * kSlabSize), backup(2 * kSlabSize);
  for (auto* r : {&primary, &backup}) {
    cluster::StoreWord(r->data() + kSlabSize, (kSlabMagic << 32) | 2);  // slab 1: objects of 2 lines
    InstallObject(r->data() + kSlabSize + 64, 2, std::vector<std::byte>(50, std::byte{7}), 40, true, Addr{});
  }
  EXPECT_EQ(ReplicaDigest(primary), ReplicaDigest(backup));
  std::byte* object = primary.data() + kSlabSize + 64;
  cluster::StoreWord(object, cluster::LoadWord(object) | kLockBit);
  cluster::StoreWord(object + 8, 12345);  // an old-version pointer
  primary[17] = std::byte{1};              // slab 0 is not formatted
  EXPECT_EQ(ReplicaDigest(primary), ReplicaDigest(backup));
  object[100] = std::byte{8};  // payload of the object's second line
  EXPECT_NE(ReplicaDigest(primary), ReplicaDigest(backup));
  object[100] = std::byte{7};
  cluster::StoreWord(backup.data() + kSlabSize + 64 + 2 * kLineSize, 5);  // the next object's header
  EXPECT_NE(ReplicaDigest(primary), ReplicaDigest(backup));
}

}  // namespace
}  // namespace farmdb::txn
