// Faults that must never break safety (issue item 7): delayed and reordered fabric operations,
// dropped clock-sync messages, a paused machine that stalls only the commits that need it, and a
// machine cut off from the CM, which stops serving once its lease expires.

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "txn/history.h"
#include "txn/test_cluster.h"
#include "txn/workload.h"

namespace farmdb::txn {
namespace {

TEST(FaultTest, DelaysReorderingAndDroppedSyncKeepHistoriesCorrect) {
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    TestCluster c(SkewedClusterOptions(seed), {});
    c.cluster().fabric().SetFaults(DelaysAndDroppedSync());
    WorkloadOptions o;
    o.seed = seed;
    o.threads_per_machine = 1;
    o.txns_per_thread = 40;
    o.keys = 5;
    o.snapshot_fraction = 0.2;
    auto res = RunWorkload(Workload::kRegisters, c, o);
    EXPECT_EQ(res.invariant_error, "");
    auto check = CheckHistory(res.history, res.initial);
    EXPECT_TRUE(check.ok()) << check.Summary();
    EXPECT_GT(check.committed, 0u);
    c.cluster().fabric().SetFaults({});
    EXPECT_EQ(c.CheckReplicas(), "");
  }
}

TEST(FaultTest, PausedMachineStallsOnlyTransactionsThatNeedIt) {
  cluster::LocalClusterOptions co;
  co.machines = 3;
  co.replicas = 0;  // regions live only on their primary, so machine 0's data needs no one else
  co.region_size = 8 << 20;
  co.lease = std::chrono::minutes(1);  // about stalls: machine 2 keeps serving while paused
  TestCluster c(co, {});
  // About the commit protocol's own waits: a synchronous commit waits for every machine's
  // durable log (durability.h), so a paused machine would stall them all.
  auto commit = [](Txn& t) {
    t.SetSyncCommit(false);
    return t.Commit();
  };
  auto w0 = c.engine(0).NewWorker();
  auto w2 = c.engine(2).NewWorker();
  auto make = [&](Worker& w) {
    auto t = *w.Begin({});
    Addr a = *t->Alloc(8);
    EXPECT_TRUE(commit(*t));
    return a;
  };
  Addr local = make(*w0), remote = make(*w2);
  c.cluster().fabric().SetPaused(2, true);
  // Transactions on machine 0 that touch only machine 0 keep committing.
  for (uint64_t v = 1; v <= 20; ++v) {
    auto t = *w0->Begin({});
    std::vector<std::byte> b(8);
    std::memcpy(b.data(), &v, 8);
    ASSERT_TRUE(t->Write(local, b));
    ASSERT_TRUE(commit(*t));
  }
  // Machine 2's own transactions on its own objects need neither its participant thread nor its
  // fabric: the coordinator reads locally and does the primary's work itself (FaRM §4).
  for (uint64_t v = 1; v <= 5; ++v) {
    auto t = *w2->Begin({});
    std::vector<std::byte> b(8);
    std::memcpy(b.data(), &v, 8);
    ASSERT_TRUE(t->Write(remote, b));
    ASSERT_TRUE(commit(*t));
  }
  {
    auto t = *w2->Begin({});
    auto got = t->Read(remote);
    ASSERT_TRUE(got);
    uint64_t v;
    std::memcpy(&v, got->data(), 8);
    EXPECT_EQ(v, 5u);
  }
  // One that writes machine 2's object stalls until machine 2 resumes, then commits.
  std::atomic<bool> done{false};
  std::thread stalled([&] {
    auto w = c.engine(0).NewWorker();
    auto t = *w->Begin({});
    std::vector<std::byte> b(8, std::byte{7});
    EXPECT_TRUE(t->Write(remote, b));
    EXPECT_TRUE(commit(*t));
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(done.load());
  c.cluster().fabric().SetPaused(2, false);
  stalled.join();
  EXPECT_TRUE(done.load());
}

// Fencing (cluster/lease.h): a machine cut off from the CM begins no transaction once its lease
// expired, and one that began before fails at commit without writing anything. Machine 1, which
// holds the object, stays reachable, so the commit gets as far as its locks.
TEST(FaultTest, AMachineWithoutItsLeaseCommitsNothing) {
  cluster::LocalClusterOptions co;
  co.machines = 3;
  co.replicas = 0;
  co.region_size = 8 << 20;
  co.lease = std::chrono::milliseconds(200);
  TestCluster c(co, {});
  auto w1 = c.engine(1).NewWorker();
  auto w2 = c.engine(2).NewWorker();
  auto write = [](Txn& t, Addr a, uint64_t v) {
    std::vector<std::byte> b(8);
    std::memcpy(b.data(), &v, 8);
    return t.Write(a, b);
  };
  auto read = [](Worker& w, Addr a) {
    auto t = *w.Begin({});
    auto got = t->Read(a);
    EXPECT_TRUE(got);
    uint64_t v = 0;
    if (got) std::memcpy(&v, got->data(), 8);
    return v;
  };
  Addr a;
  {
    auto t = *w1->Begin({});
    a = *t->Alloc(8);
    ASSERT_TRUE(write(*t, a, 1));
    ASSERT_TRUE(t->Commit());
  }
  auto open = *w2->Begin({});
  ASSERT_TRUE(write(*open, a, 2));
  c.cluster().fabric().SetPartitioned(0, 2, true);
  while (c.cluster().machine(2).LeaseHeld()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto begun = w2->Begin({});
  ASSERT_FALSE(begun);
  EXPECT_EQ(begun.error().code, TxnErrorCode::kFenced);
  // Not waiting for durability, which would wait for machine 0's log (durability.h): without
  // the fence, this commit would succeed.
  open->SetSyncCommit(false);
  auto committed = open->Commit();
  ASSERT_FALSE(committed);
  EXPECT_EQ(committed.error().code, TxnErrorCode::kFenced);
  EXPECT_EQ(read(*w1, a), 1u) << "the fenced commit wrote nothing";
  c.cluster().fabric().SetPartitioned(0, 2, false);
  ASSERT_TRUE(c.cluster().machine(2).WaitUntilServing(std::chrono::steady_clock::now() + std::chrono::seconds(30)));
  // Its locks were released: machine 2 writes the object once it serves again.
  auto t = *w2->Begin({});
  ASSERT_TRUE(write(*t, a, 3));
  ASSERT_TRUE(t->Commit());
  EXPECT_EQ(read(*w1, a), 3u);
}

}  // namespace
}  // namespace farmdb::txn
