#include "cluster/lease.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cluster/local_cluster.h"

namespace farmdb::cluster {
namespace {

using std::chrono::milliseconds;
constexpr int64_t kMs = 1'000'000;

TEST(LeaseTableTest, AMemberHoldsItsLeaseFromItsRequestAndTheCmSuspectsItOnlyLater) {
  // 10 ms leases and a 1000 ppm drift bound: a grantor waits 10.02 ms.
  LeaseTable member(1, 3, milliseconds(10), 1000);
  LeaseTable cm(0, 3, milliseconds(10), 1000);
  EXPECT_FALSE(member.Held(0)) << "no lease before the first grant";
  EXPECT_FALSE(cm.Suspects(1, 100 * kMs)) << "nothing granted, nothing to suspect";
  // The member asks at its time 100 ms; the CM's grant arrives 3 ms later.
  cm.Grant(1, 500 * kMs);  // on the CM's own clock
  member.Granted(0, 100 * kMs, 103 * kMs);
  EXPECT_TRUE(member.Held(109 * kMs));
  EXPECT_FALSE(member.Held(110 * kMs)) << "counted from the request, not from the grant";
  EXPECT_EQ(member.HeldFor(0, 104 * kMs), std::chrono::nanoseconds(6 * kMs));
  EXPECT_FALSE(cm.Suspects(1, 510 * kMs));
  EXPECT_TRUE(cm.Suspects(1, 510 * kMs + 20'000)) << "the grantor adds twice the drift over a lease";
  EXPECT_FALSE(cm.Suspects(2, 900 * kMs)) << "machine 2 never asked";
  // Renewal: a later grant extends it, an older one arriving late does not shorten it.
  member.Granted(0, 108 * kMs, 111 * kMs);
  member.Granted(0, 105 * kMs, 112 * kMs);
  EXPECT_TRUE(member.Held(117 * kMs));
  EXPECT_EQ(member.LongestRenewalGap(0), std::chrono::nanoseconds(11 * kMs)) << "request 100 -> grant at 111";
}

TEST(LeaseTableTest, TheCmServesWhileItHoldsLeasesAtAMajority) {
  LeaseTable cm(0, 5, milliseconds(10), 0);
  EXPECT_FALSE(cm.Held(0));
  cm.Granted(1, 0, 1 * kMs);
  EXPECT_FALSE(cm.Held(2 * kMs)) << "2 of 5";
  cm.Granted(2, 4 * kMs, 5 * kMs);
  EXPECT_TRUE(cm.Held(5 * kMs)) << "3 of 5";
  EXPECT_FALSE(cm.Held(10 * kMs)) << "machine 1's expired at 10 ms: 2 of 5";
  // A member keeps only the CM's: grants from elsewhere are not leases.
  LeaseTable member(3, 5, milliseconds(10), 0);
  member.Granted(1, 0, 1);
  EXPECT_FALSE(member.Held(1));
  EXPECT_FALSE(member.HeldFor(1, 1).has_value());
  // Alone, a machine needs no lease.
  EXPECT_TRUE(LeaseTable(0, 1, milliseconds(10), 0).Held(0));
}

// The handshake over a LocalFabric: a machine cut off from the CM loses its lease within one
// lease and is suspected by the CM; the CM keeps serving with a majority; healing renews both.
TEST(LeaseTest, APartitionedMemberIsFencedAndSuspectedAndComesBackWhenHealed) {
  LocalClusterOptions o;
  o.machines = 3;
  o.sync_interval = std::chrono::microseconds(200);
  o.gc_interval = std::chrono::microseconds(500);
  o.lease = milliseconds(200);
  LocalCluster c(o);
  c.WaitUntilServing();
  Machine& cm = c.machine(0);
  Machine& m2 = c.machine(2);
  // The CM's lease at a member needs the member's next request: wait for both sides.
  while (!cm.LeaseHeld()) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_FALSE(cm.leases().Suspects(2, cm.clock().LocalNanos()));
  c.fabric().SetPartitioned(0, 2, true);
  // Safety: the CM suspects machine 2 (and could go on without it) only once machine 2 stopped
  // serving.
  while (!cm.leases().Suspects(2, cm.clock().LocalNanos())) std::this_thread::sleep_for(std::chrono::microseconds(100));
  EXPECT_FALSE(m2.LeaseHeld());
  while (cm.Suspicions() == 0) std::this_thread::sleep_for(milliseconds(1));  // the lease thread's count
  EXPECT_TRUE(cm.leases().Suspects(2, cm.clock().LocalNanos()));
  EXPECT_FALSE(cm.leases().Suspects(1, cm.clock().LocalNanos()));
  EXPECT_TRUE(cm.LeaseHeld()) << "machines 0 and 1 are a majority";
  EXPECT_TRUE(c.machine(1).LeaseHeld());
  EXPECT_TRUE(m2.leases().Suspects(0, m2.clock().LocalNanos())) << "and machine 2 suspects the CM";
  c.fabric().SetPartitioned(0, 2, false);
  while (!m2.LeaseHeld()) std::this_thread::sleep_for(milliseconds(1));
  while (cm.leases().Suspects(2, cm.clock().LocalNanos())) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(cm.Suspicions(), 1u);
}

TEST(LeaseTest, ACmCutOffFromAMajorityStopsServingAndSoDoTheMembers) {
  LocalClusterOptions o;
  o.machines = 3;
  o.sync_interval = std::chrono::microseconds(200);
  o.lease = milliseconds(150);
  LocalCluster c(o);
  c.WaitUntilServing();
  while (!c.machine(0).LeaseHeld()) std::this_thread::sleep_for(milliseconds(1));
  c.fabric().SetPartitioned(0, 1, true);
  c.fabric().SetPartitioned(0, 2, true);
  for (MachineId m = 0; m < 3; ++m) {
    while (c.machine(m).LeaseHeld()) std::this_thread::sleep_for(milliseconds(1));
  }
  c.fabric().SetPartitioned(0, 1, false);
  while (!c.machine(0).LeaseHeld()) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_TRUE(c.machine(1).LeaseHeld());
  EXPECT_FALSE(c.machine(2).LeaseHeld()) << "still cut off";
  c.fabric().SetPartitioned(0, 2, false);
  EXPECT_TRUE(c.machine(2).WaitUntilServing(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
}

}  // namespace
}  // namespace farmdb::cluster
