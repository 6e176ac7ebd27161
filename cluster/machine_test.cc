#include "cluster/machine.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "cluster/local_cluster.h"
#include "cluster/temp_dir.h"

namespace farmdb::cluster {
namespace {

TEST(MachineTest, CmAllocatesRegionsOnDistinctMachinesBackedByFiles) {
  LocalClusterOptions o;
  o.machines = 3;
  o.replicas = 2;
  o.region_size = 1 << 20;
  LocalCluster c(o);
  auto p = c.machine(1).AllocateRegion(-1, 1);
  ASSERT_TRUE(p.has_value()) << p.error().message;
  EXPECT_EQ(p->primary, 1u);
  ASSERT_EQ(p->backups.size(), 2u);
  std::set<MachineId> all{p->primary, p->backups[0], p->backups[1]};
  EXPECT_EQ(all.size(), 3u);
  for (MachineId m : all) {
    auto bytes = c.machine(m).LocalReplica(p->id);
    EXPECT_EQ(bytes.size(), 1u << 20);
    EXPECT_TRUE(std::filesystem::exists(c.machine(m).Dir() / ("region-" + std::to_string(p->id))));
  }
  // Another machine learns the placement from the CM on demand.
  auto seen = c.machine(2).Lookup(p->id);
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->primary, 1u);
  // Region ids are unique and the counter advances.
  auto q = c.machine(2).AllocateRegion(0, 2);
  ASSERT_TRUE(q.has_value());
  EXPECT_NE(q->id, p->id);
  EXPECT_TRUE(q->backups.empty());
  // Writes through the fabric land in the replica's file mapping.
  std::array<std::byte, 8> v{std::byte{42}};
  auto w = c.fabric().Write(0, 1, MemKey(MemKind::kRegion, p->id), 64, v);
  w->Wait();
  EXPECT_EQ(c.machine(1).LocalReplica(p->id)[64], std::byte{42});
}

TEST(MachineTest, SkewedClocksSynchroniseWithinBoundAndIntervalsContainMasterTime) {
  LocalClusterOptions o;
  o.machines = 3;
  o.skews = {{0, 300}, {5'000'000'000, -400}, {-200'000'000, 450}};
  o.sync_interval = std::chrono::microseconds(200);
  LocalCluster c(o);
  c.WaitUntilServing();
  for (int k = 0; k < 200; ++k) {
    for (MachineId m = 1; m < 3; ++m) {
      Interval iv = c.machine(m).clock().Now();
      Timestamp master = c.machine(0).clock().Now().lower;
      Interval after = c.machine(m).clock().Now();
      // Intervals are globally monotonic: anything before "master" read has L <= master.
      EXPECT_LE(iv.lower, master);
      EXPECT_GE(after.upper, master);
    }
  }
}

TEST(MachineTest, GcLocalNeverPassesAPinnedOat) {
  LocalClusterOptions o;
  o.machines = 2;
  o.sync_interval = std::chrono::microseconds(200);
  o.gc_interval = o.sync_interval;  // CM rounds as often as machine 1's
  LocalCluster c(o);
  std::atomic<Timestamp> pinned{0};
  c.WaitUntilServing();
  // The pin is taken on the provider's first call, not before installing it: a report sent in
  // between would carry a later OAT (the default, Now().lower) and lawfully move GC past the pin.
  c.machine(1).SetOatProvider([&] {
    if (pinned.load() == 0) pinned = c.machine(1).clock().Now().lower;
    return pinned.load();
  });
  // GC_local and GC advance up to the pinned OAT on machine 1, never past it.
  while (pinned.load() == 0 || c.machine(1).GcSafePoint() == 0) std::this_thread::yield();
  uint64_t seq = c.machine(1).SyncRequestsSent();
  while (c.machine(1).SyncReplyApplied() < seq + 5) {
    for (MachineId m = 0; m < 2; ++m) {
      ASSERT_LE(c.machine(m).GcLocal(), pinned.load());
      ASSERT_LE(c.machine(m).GcSafePoint(), c.machine(m).GcLocal());
    }
  }
  c.machine(1).SetOatProvider(nullptr);
}

// FaRMv2 §4.6: GC takes two rounds, GC_local := OAT_CM, then GC := min of the GC_local every
// machine reported, so GC never passes a GC_local some machine still admits stale snapshots at.
// Dropping the CM's replies freezes machine 1's GC_local while its reports keep raising OAT_CM:
// a one-round GC (GC := OAT_CM) would pass machine 1's GC_local here.
TEST(MachineTest, GcSafePointWaitsForEveryMachinesGcLocal) {
  LocalClusterOptions o;
  o.machines = 2;
  o.sync_interval = std::chrono::microseconds(200);
  o.gc_interval = o.sync_interval;  // CM rounds as often as machine 1's
  LocalCluster c(o);
  c.WaitUntilServing();
  Machine& cm = c.machine(0);
  Machine& m1 = c.machine(1);
  while (m1.GcLocal() == 0) std::this_thread::yield();
  FaultPolicy drop_replies;
  drop_replies.drop_probability = 1;
  drop_replies.droppable_types = {kMsgSyncReply};
  c.fabric().SetFaults(drop_replies);
  // GC_local only grows, so reading GC before machine 1's GC_local makes the check conservative.
  auto gc_within_m1 = [&] {
    Timestamp gc = cm.GcSafePoint();
    return gc <= m1.GcLocal();
  };
  // Machine 1's reports keep raising OAT_CM and the CM's GC_local; machine 1 never learns it, so
  // GC must not follow, however many rounds the CM runs.
  while (cm.GcLocal() <= m1.GcLocal()) ASSERT_TRUE(gc_within_m1());
  uint64_t seq = m1.SyncRequestsSent();
  while (m1.SyncRequestsSent() < seq + 3) ASSERT_TRUE(gc_within_m1());
  const Timestamp frozen = m1.GcLocal();
  ASSERT_LE(cm.GcSafePoint(), frozen) << "GC passed machine 1's GC_local";
  c.fabric().SetFaults({});
  while (cm.GcSafePoint() <= frozen) std::this_thread::yield();  // and it resumes once healed
  EXPECT_GT(m1.GcLocal(), frozen);
}

TEST(MachineTest, TwoClustersLiveInOneProcess) {
  LocalClusterOptions o;
  o.machines = 2;
  LocalCluster a(o), b(o);
  auto pa = a.machine(1).AllocateRegion(1, 1);
  auto pb = b.machine(1).AllocateRegion(1, 1);
  ASSERT_TRUE(pa && pb);
  EXPECT_EQ(pa->id, pb->id);  // independent CM counters
  EXPECT_NE(a.data_dir(), b.data_dir());
}

TEST(MachineTest, ARegionWhoseAllocationACrashCutShortIsDroppedAtTheNextStart) {
  TempDir dir("machine");
  LocalClusterOptions o;
  o.machines = 3;
  o.replicas = 2;
  o.region_size = 1 << 20;
  o.data_dir = dir.path;
  RegionPlacement committed, cut_short;
  {
    LocalCluster c(o);
    ASSERT_TRUE(c.error().empty()) << c.error();
    auto p = c.machine(1).AllocateRegion(-1, 1);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    committed = *p;
    // The CM's next allocation, as far as a crash lets it get: two of its replicas prepared (and
    // listed the region in their state), the CM never stored its decision.
    cut_short = {committed.id + 1, o.region_size, 1, {0, 2}, RegionKind::kData};
    for (MachineId m : {1u, 0u}) {
      c.machine(0).Call(m, kMsgRegionPrepare, EncodePlacement(cut_short));
      ASSERT_FALSE(c.machine(m).LocalReplica(cut_short.id).empty());
    }
  }
  LocalCluster c(o);
  ASSERT_TRUE(c.error().empty()) << c.error();
  for (MachineId m : {0u, 1u, 2u}) {
    EXPECT_EQ(c.machine(m).LocalReplica(committed.id).size(), o.region_size) << "machine " << m;
    EXPECT_TRUE(c.machine(m).LocalReplica(cut_short.id).empty()) << "machine " << m;
    EXPECT_FALSE(std::filesystem::exists(c.machine(m).Dir() / ("region-" + std::to_string(cut_short.id))));
  }
  // Its primary would allocate objects in it, and log them to backups that do not hold it.
  for (const RegionPlacement& p : c.machine(1).LocalRegions()) EXPECT_NE(p.id, cut_short.id);
  // The id is handed out again, to a region every replica holds.
  auto again = c.machine(2).AllocateRegion(-1, 2);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ(again->id, cut_short.id);
  for (MachineId m : {0u, 1u, 2u}) EXPECT_EQ(c.machine(m).LocalReplica(again->id).size(), o.region_size);
}

}  // namespace
}  // namespace farmdb::cluster
