#include "cluster/thread_front.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/region_map.h"

namespace farmdb::cluster {
namespace {

TEST(ThreadFront, HitsOnlyWhatThisFrontFilledAtTheCurrentVersion) {
  ThreadFront<uint32_t, uint32_t, 8> front, other;
  EXPECT_FALSE(front.Find(7, front.version()));
  front.Fill(7, 70, front.version());
  EXPECT_EQ(*front.Find(7, front.version()), 70u);
  EXPECT_FALSE(front.Find(8, front.version()));
  // Another front of the same types shares the thread's slots but never sees this one's entries.
  EXPECT_FALSE(other.Find(7, other.version()));
  front.Invalidate();
  EXPECT_FALSE(front.Find(7, front.version()));
  front.Fill(7, 71, front.version());
  EXPECT_EQ(*front.Find(7, front.version()), 71u);
}

TEST(ThreadFront, AFillIsTheFillingThreadsOnly) {
  ThreadFront<uint32_t, uint32_t, 8> front;
  front.Fill(3, 30, front.version());
  bool seen = true;
  std::thread([&] { seen = front.Find(3, front.version()) != nullptr; }).join();
  EXPECT_FALSE(seen);
  EXPECT_EQ(*front.Find(3, front.version()), 30u);
}

// A region's placement changes after recovery moves its primary: a lookup that hit the front
// before must see the new primary.
TEST(RegionMap, PrimarySeesAPutAfterARepeatedLookup) {
  RegionMap map;
  map.Put(RegionPlacement{5, 4096, 1, {2}});
  EXPECT_EQ(map.Primary(5), 1u);
  EXPECT_EQ(map.Primary(5), 1u);  // from the front
  map.Put(RegionPlacement{5, 4096, 2, {3}});
  EXPECT_EQ(map.Primary(5), 2u);
  EXPECT_FALSE(map.Primary(6));
  map.Put(RegionPlacement{6, 4096, 3, {}});
  EXPECT_EQ(map.Primary(6), 3u);
}

}  // namespace
}  // namespace farmdb::cluster
