#include "cluster/machine.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "cluster/local_cluster.h"

namespace farmdb::cluster {
namespace {

TEST(MachineTest, CmAllocatesRegionsOnDistinctMachinesBackedByFiles) {
  LocalClusterOptions o;
  o.machines = 3;
  o.replicas = 2;
  o.region_size = 1 << 20;
  LocalCluster c(o);
  auto p = c.machine(1).AllocateRegion(-1, 1);
  ASSERT_TRUE(p.has_value()) << p.error();
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
  c.WaitForClocks();
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

TEST(MachineTest, GcSafePointTrailsOatInTwoRounds) {
  LocalClusterOptions o;
  o.machines = 2;
  o.sync_interval = std::chrono::microseconds(200);
  LocalCluster c(o);
  std::atomic<Timestamp> pinned{0};
  c.WaitForClocks();
  pinned = c.machine(1).clock().Now().lower;
  c.machine(1).SetOatProvider([&] { return pinned.load(); });
  // Eventually GC_local and GC advance, but never past the pinned OAT on machine 1.
  for (int i = 0; i < 2000 && c.machine(1).GcSafePoint() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    for (MachineId m = 0; m < 2; ++m) {
      EXPECT_LE(c.machine(m).GcLocal(), pinned.load());
      EXPECT_LE(c.machine(m).GcSafePoint(), c.machine(m).GcLocal());
    }
  }
  EXPECT_GT(c.machine(1).GcSafePoint(), 0u);
  c.machine(1).SetOatProvider(nullptr);
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

}  // namespace
}  // namespace farmdb::cluster
