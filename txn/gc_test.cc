// GC safety (FaRMv2 §4.5-4.6): stale-snapshot reads at R >= GC_local never reach freed
// old-version memory, while blocks really are freed once the safe point passes them.

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "txn/test_cluster.h"

namespace farmdb::txn {
namespace {

constexpr size_t kObjectBytes = 4000;  // ~220 old versions per 1 MiB block: blocks fill quickly

std::vector<std::byte> Pattern(uint64_t v) {
  std::vector<std::byte> b(kObjectBytes);
  for (size_t i = 0; i < b.size(); i += 8) std::memcpy(b.data() + i, &v, 8);
  return b;
}

// The payload must be the pattern of one value throughout; returns it.
std::optional<uint64_t> Decode(const std::vector<std::byte>& b) {
  uint64_t v;
  std::memcpy(&v, b.data(), 8);
  auto expect = Pattern(v);
  if (!std::equal(expect.begin(), expect.end(), b.begin())) return std::nullopt;
  return v;
}

class GcTest : public ::testing::TestWithParam<int> {};

TEST_P(GcTest, StaleSnapshotsAboveGcLocalNeverReachFreedBlocks) {
  const int n = GetParam();
  cluster::LocalClusterOptions co;
  co.machines = n;
  co.replicas = n - 1;
  co.region_size = 8 << 20;
  co.sync_interval = std::chrono::microseconds(200);
  co.gc_interval = std::chrono::microseconds(200);  // many GC rounds while the readers run
  TestCluster c(co, {});
  auto writer = c.engine(0).NewWorker();
  std::vector<Addr> objs;
  {
    auto t = *writer->Begin({});
    for (int i = 0; i < 2; ++i) {
      objs.push_back(*t->Alloc(kObjectBytes));
      ASSERT_TRUE(t->Write(objs.back(), Pattern(0)));
    }
    ASSERT_TRUE(t->Commit());
  }
  std::mutex mu;
  std::map<Timestamp, uint64_t> committed;  // W -> value written to every object
  std::atomic<bool> stop{false};
  std::thread w([&] {
    for (uint64_t v = 1; !stop.load(); ++v) {
      auto t = *writer->Begin({});
      bool ok = true;
      for (Addr a : objs) ok = ok && t->Write(a, Pattern(v)).has_value();
      if (!ok) continue;
      if (auto info = t->Commit()) {
        std::lock_guard l(mu);
        committed[info->write_ts] = v;
      }
    }
  });

  auto pinner = c.engine(n - 1).NewWorker();
  auto reader = c.engine(n > 1 ? 1 : 0).NewWorker();
  std::vector<std::pair<Timestamp, uint64_t>> seen;
  uint64_t internal_errors = 0;
  // Runs until a block was freed and enough stale reads were checked (bounded for slow builds).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline &&
         (c.engine(0).old_version_blocks_freed() < 1 || seen.size() < 50)) {
    // A master transaction pins R; "slave" stale snapshots on another machine read at R.
    auto pin = *pinner->Begin({});
    Timestamp r = pin->read_ts();
    for (int k = 0; k < 20; ++k) {
      auto t = reader->Begin({.read_only = true, .snapshot_ts = r});
      ASSERT_TRUE(t) << "a pinned snapshot must be admitted";
      for (Addr a : objs) {
        auto v = (*t)->Read(a);
        if (!v) {
          internal_errors += v.error().code == TxnErrorCode::kInternal;
          break;
        }
        auto value = Decode(*v);
        ASSERT_TRUE(value.has_value()) << "torn or freed data returned";
        seen.emplace_back(r, *value);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
    pin->Abort();
  }
  stop = true;
  w.join();
  EXPECT_EQ(internal_errors, 0u) << "a stale read reached freed old-version memory";
  EXPECT_GT(c.engine(0).old_version_blocks_freed(), 0u) << "GC never freed a block";
  ASSERT_GT(seen.size(), 0u);
  // Every stale read returned the value committed last at or before its R.
  for (auto [r, v] : seen) {
    auto it = committed.upper_bound(r);
    uint64_t expect = it == committed.begin() ? 0 : std::prev(it)->second;
    ASSERT_EQ(v, expect) << "R=" << r;
  }
}

// §4.6 after the master finishes: a stale snapshot at R on machine 1 can see GC_local rise past
// R (a report machine 1 sent before the snapshot began raises OAT_CM once the master is gone).
// GC must still stay at or below R while the snapshot is open. The partition makes that order of
// events certain: machine 1's pre-snapshot report is held back until the master has finished.
TEST(GcStaleSnapshotTest, GcStaysBelowAnOpenStaleSnapshotAfterItsMasterFinishes) {
  cluster::LocalClusterOptions co;
  co.machines = 2;
  co.replicas = 1;
  co.region_size = 8 << 20;
  // Machine 1 forgets a request after 16 newer ones (Machine::SyncTick) and ignores its reply.
  // The reply to the held-back report must still count after the partition heals, so the
  // partition must last fewer than 16 rounds: at 200 us a round, a CM tick delayed by a few ms on
  // a loaded machine evicted it and the test waited forever; 2 ms rounds (32 ms of slack) still
  // did once, beside a test filling a tmpfs. 10 ms rounds leave 160 ms.
  co.sync_interval = std::chrono::milliseconds(10);
  TestCluster c(co, {});
  cluster::Machine& cm = c.cluster().machine(0);
  cluster::Machine& m1 = c.cluster().machine(1);
  auto wait_reply_after = [&](uint64_t seq) {
    while (m1.SyncReplyApplied() < seq) std::this_thread::yield();
  };
  auto master_worker = c.engine(0).NewWorker();
  auto stale_worker = c.engine(1).NewWorker();
  auto master = *master_worker->Begin({});
  const Timestamp r = master->read_ts();
  // Machine 1 reported an OAT above R (its clock moved past R) and learned a GC_local <= R.
  m1.clock().WaitUntilPast(r);
  wait_reply_after(m1.SyncRequestsSent() + 2);
  ASSERT_LE(m1.GcLocal(), r);
  c.cluster().fabric().SetPartitioned(0, 1, true);
  uint64_t before = m1.SyncRequestsSent();
  while (m1.SyncRequestsSent() <= before) std::this_thread::yield();  // held back: OAT > R
  auto stale = stale_worker->Begin({.read_only = true, .snapshot_ts = r});
  ASSERT_TRUE(stale) << "R >= GC_local on machine 1: admitted";
  ASSERT_TRUE(master->Commit());  // the master is gone; OAT_CM now only depends on old reports
  while (cm.GcLocal() <= r) std::this_thread::yield();
  c.cluster().fabric().SetPartitioned(0, 1, false);
  // The held-back report's reply raises machine 1's GC_local past R ...
  while (m1.GcLocal() <= r) std::this_thread::yield();
  // ... and a report sampled after that (two requests on) is folded into GC at the CM.
  wait_reply_after(m1.SyncRequestsSent() + 2);
  EXPECT_LE(cm.GcSafePoint(), r) << "GC passed an open stale snapshot";
  EXPECT_LE(m1.GcSafePoint(), r) << "GC passed an open stale snapshot";
  (*stale)->Abort();
  // Once the snapshot ends, GC moves past R again.
  while (m1.GcSafePoint() <= r) std::this_thread::yield();
}

INSTANTIATE_TEST_SUITE_P(Machines, GcTest, ::testing::Values(1, 3),
                         [](const auto& info) { return std::to_string(info.param) + "m"; });

}  // namespace
}  // namespace farmdb::txn
