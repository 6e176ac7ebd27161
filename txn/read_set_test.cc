#include "txn/read_set.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

namespace farmdb::txn {
namespace {

ReadSet::Entry EntryFor(ReadSet& set, uint64_t n) {
  auto payload = set.NewPayload(64);
  std::memset(payload.data(), static_cast<int>(n & 0xff), payload.size());
  return {n, 1, n % 2 == 0, payload};
}

// Enough entries to grow the table several times, at addresses that differ only in high bits
// (regions) or only in low ones (offsets), as reads of many slabs and of one slab do.
TEST(ReadSet, FindsEveryEntryAddedAndNothingElseAcrossGrowth) {
  ReadSet set;
  std::map<Addr, const ReadSet::Entry*> added;
  for (uint64_t i = 1; i <= 1000; ++i) {
    Addr a = i % 2 ? Addr::Of(static_cast<RegionId>(i), 64) : Addr::Of(7, i * 64);
    ASSERT_FALSE(set.Contains(a));
    added[a] = set.Add(a, EntryFor(set, i));
  }
  EXPECT_EQ(set.size(), 1000u);
  for (auto [a, entry] : added) {
    const ReadSet::Entry* found = set.Find(a);
    ASSERT_EQ(found, entry) << a.raw;  // entries stay where they were added
    EXPECT_EQ(found->payload[0], std::byte(found->version & 0xff));
  }
  EXPECT_EQ(set.Find(Addr::Of(7, 64 * 1001)), nullptr);
  EXPECT_EQ(set.Find(Addr::Of(5000, 64)), nullptr);
  size_t seen = 0;
  uint64_t last = 0;
  for (auto& [a, e] : set) {
    EXPECT_EQ(added.at(a), &e);
    EXPECT_GT(e.version, last);  // in the order read
    last = e.version;
    ++seen;
  }
  EXPECT_EQ(seen, 1000u);
}

TEST(ReadSet, ClearForgetsEverythingAndTheSetIsUsableAgain) {
  ReadSet set;
  for (uint64_t i = 1; i <= 100; ++i) set.Add(Addr::Of(1, i * 64), EntryFor(set, i));
  set.Clear();
  EXPECT_EQ(set.size(), 0u);
  EXPECT_EQ(set.begin(), set.end());
  EXPECT_FALSE(set.Contains(Addr::Of(1, 64)));
  const ReadSet::Entry* e = set.Add(Addr::Of(1, 64), EntryFor(set, 42));
  EXPECT_EQ(set.Find(Addr::Of(1, 64)), e);
  EXPECT_EQ(e->version, 42u);
}

}  // namespace
}  // namespace farmdb::txn
