#include "txn/txn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "txn/test_cluster.h"
#include "txn/workload.h"

namespace farmdb::txn {
namespace {

cluster::LocalClusterOptions Machines(int n, int f) {
  cluster::LocalClusterOptions o;
  o.machines = n;
  o.replicas = f;
  o.region_size = 8 << 20;
  o.sync_interval = std::chrono::microseconds(300);
  return o;
}

// These tests check semantics, not timing: a head stays locked until its primary's participant
// thread processes COMMIT-PRIMARY, so under a loaded sanitizer build a read right after a commit
// may wait; give it time rather than abort with kLockedOnRead.
EngineOptions Patient() {
  EngineOptions e;
  e.locked_read_wait = std::chrono::seconds(2);
  return e;
}


uint64_t ReadOne(Worker& w, Addr a, TxnOptions o = {}) {
  auto t = w.Begin(o);
  auto v = (*t)->Read(a);
  EXPECT_TRUE(v.has_value());
  EXPECT_TRUE((*t)->Commit().has_value());
  return v ? U64Value(*v) : ~uint64_t{0};
}

class TxnTest : public ::testing::TestWithParam<int> {};

TEST_P(TxnTest, AllocWriteCommitReadOnEveryMachine) {
  int n = GetParam();
  TestCluster c(Machines(n, n - 1), Patient());
  std::vector<Addr> addrs;
  for (int m = 0; m < n; ++m) {
    auto w = c.engine(m).NewWorker();
    addrs.push_back(CommitNewObject(*w, 100 + m));
  }
  for (int m = 0; m < n; ++m) {
    auto w = c.engine(m).NewWorker();
    for (int k = 0; k < n; ++k) EXPECT_EQ(ReadOne(*w, addrs[k]), 100u + k);
  }
  EXPECT_EQ(c.Commits(), static_cast<uint64_t>(n));
}

TEST_P(TxnTest, ConflictingWritersOneAbortsWithLockOrValidationReason) {
  TestCluster c(Machines(GetParam(), GetParam() - 1), Patient());
  auto w1 = c.engine(0).NewWorker();
  auto w2 = c.engine(GetParam() - 1).NewWorker();
  Addr a = CommitNewObject(*w1, 1);
  auto t1 = *w1->Begin({});
  auto t2 = *w2->Begin({});
  auto v1 = t1->Read(a);
  auto v2 = t2->Read(a);
  ASSERT_TRUE(v1 && v2);
  ASSERT_TRUE(t1->Write(a, U64Bytes(U64Value(*v1) + 1)));
  ASSERT_TRUE(t2->Write(a, U64Bytes(U64Value(*v2) + 1)));
  ASSERT_TRUE(t1->Commit().has_value());
  auto r2 = t2->Commit();
  ASSERT_FALSE(r2.has_value());
  EXPECT_EQ(r2.error().reason, AbortReason::kLockConflict);
  EXPECT_TRUE(r2.error().IsRetryable());
  EXPECT_EQ(ReadOne(*w2, a), 2u);
  EXPECT_EQ(c.Aborts(AbortReason::kLockConflict), 1u);
  // A failed transaction keeps failing with the same error.
  EXPECT_EQ(t2->Read(a).error().reason, AbortReason::kLockConflict);
}

TEST_P(TxnTest, SerializableReadWriteFailsValidationWhenReadObjectChanges) {
  TestCluster c(Machines(GetParam(), GetParam() - 1), Patient());
  auto w1 = c.engine(0).NewWorker();
  auto w2 = c.engine(GetParam() - 1).NewWorker();
  Addr a = CommitNewObject(*w1, 1), b = CommitNewObject(*w1, 2);
  auto t1 = *w1->Begin({});
  ASSERT_TRUE(t1->Read(a));
  ASSERT_TRUE(t1->Write(b, U64Bytes(7)));
  {
    auto t2 = *w2->Begin({});
    ASSERT_TRUE(t2->Write(a, U64Bytes(9)));
    ASSERT_TRUE(t2->Commit());
  }
  auto r = t1->Commit();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, AbortReason::kValidationFailure);
  EXPECT_EQ(ReadOne(*w1, b), 2u);
}

TEST_P(TxnTest, SnapshotIsolationAllowsWriteSkewSerializableDoesNot) {
  TestCluster c(Machines(GetParam(), GetParam() - 1), Patient());
  auto w1 = c.engine(0).NewWorker();
  auto w2 = c.engine(GetParam() - 1).NewWorker();
  for (Isolation iso : {Isolation::kSnapshot, Isolation::kSerializable}) {
    Addr x = CommitNewObject(*w1, 1), y = CommitNewObject(*w1, 1);
    TxnOptions o;
    o.isolation = iso;
    auto t1 = *w1->Begin(o);
    auto t2 = *w2->Begin(o);
    // Each reads both and zeroes one: together they break "x + y >= 1".
    ASSERT_TRUE(t1->Read(x) && t1->Read(y) && t2->Read(x) && t2->Read(y));
    ASSERT_TRUE(t1->Write(x, U64Bytes(0)));
    ASSERT_TRUE(t2->Write(y, U64Bytes(0)));
    bool c1 = t1->Commit().has_value();
    bool c2 = t2->Commit().has_value();
    if (iso == Isolation::kSnapshot) {
      EXPECT_TRUE(c1 && c2) << "SI should allow write skew";
    } else {
      EXPECT_FALSE(c1 && c2) << "serializable must prevent write skew";
    }
  }
}

TEST_P(TxnTest, OldVersionChainsServeOlderSnapshots) {
  TestCluster c(Machines(GetParam(), GetParam() - 1), Patient());
  auto w = c.engine(0).NewWorker();
  Addr a = CommitNewObject(*w, 0);
  // An open transaction holds back the GC safe point, as the master of stale snapshot reads
  // must (FaRMv2 §4.6).
  auto pin_worker = c.engine(0).NewWorker();
  auto pin = *pin_worker->Begin({});
  std::vector<Timestamp> at;
  for (uint64_t v = 1; v <= 5; ++v) {
    auto t = *w->Begin({});
    ASSERT_TRUE(t->Write(a, U64Bytes(v)));
    auto info = t->Commit();
    ASSERT_TRUE(info);
    at.push_back(info->write_ts);
  }
  // A long-running snapshot reader started before the updates keeps seeing its version.
  auto reader = c.engine(GetParam() - 1).NewWorker();
  for (size_t k = 0; k < at.size(); ++k) {
    auto begun = reader->Begin({.read_only = true, .snapshot_ts = at[k]});
    ASSERT_TRUE(begun) << k;
    auto t = std::move(*begun);
    auto v = t->Read(a);
    ASSERT_TRUE(v) << k << " code " << int(v.error().code) << " reason " << AbortReasonName(v.error().reason);
    EXPECT_EQ(U64Value(*v), k + 1);
    auto older = *reader->Begin({.read_only = true, .snapshot_ts = at[k] - 1});
    EXPECT_EQ(U64Value(*older->Read(a)), k);
  }
  // Without a pin, GC passes old snapshots and they are refused rather than read unsafely.
  Timestamp old_ts = at[0];
  pin->Abort();
  for (int i = 0; i < 2000 && c.engine(GetParam() - 1).machine().GcLocal() <= old_ts; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto refused = reader->Begin({.read_only = true, .snapshot_ts = old_ts});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().reason, AbortReason::kSnapshotTooOld);
}

TEST_P(TxnTest, SingleVersionModeAbortsOldReadsAndSerializableWritersAbortEagerly) {
  EngineOptions sv = Patient();
  sv.multi_version = false;
  TestCluster c(Machines(GetParam(), GetParam() - 1), sv);
  auto w = c.engine(0).NewWorker();
  Addr a = CommitNewObject(*w, 1);
  auto old_reader = *w->Begin({});
  auto t = *w->Begin({});
  ASSERT_TRUE(t->Write(a, U64Bytes(2)));
  ASSERT_TRUE(t->Commit());
  auto r = old_reader->Read(a);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, AbortReason::kOldVersionGone);

  TestCluster mv(Machines(GetParam(), GetParam() - 1), Patient());
  auto w2 = mv.engine(0).NewWorker();
  Addr x = CommitNewObject(*w2, 1), y = CommitNewObject(*w2, 1);
  auto writer = *w2->Begin({});
  ASSERT_TRUE(writer->Write(y, U64Bytes(5)));
  // y changes too, so the writer cannot move its R past x's new version (txn.h "Reads newer
  // than R"; read_refresh_test.cc).
  auto u = *w2->Begin({});
  ASSERT_TRUE(u->Write(x, U64Bytes(2)));
  ASSERT_TRUE(u->Write(y, U64Bytes(3)));
  ASSERT_TRUE(u->Commit());
  auto e = writer->Read(x);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().reason, AbortReason::kEagerValidation);
}

TEST_P(TxnTest, FreeMakesObjectUnreadableAndItsSlotReusable) {
  TestCluster c(Machines(GetParam(), GetParam() - 1), Patient());
  auto w = c.engine(0).NewWorker();
  Addr a = CommitNewObject(*w, 3);
  auto t = *w->Begin({});
  ASSERT_TRUE(t->Free(a));
  EXPECT_EQ(t->Read(a).error().code, TxnErrorCode::kNotAllocated);
  ASSERT_TRUE(t->Commit());
  auto t2 = *w->Begin({});
  EXPECT_EQ(t2->Read(a).error().code, TxnErrorCode::kNotAllocated);
  t2->Abort();
  // The freed slot comes back once the participant has processed the free.
  bool reused = false;
  for (int i = 0; i < 200 && !reused; ++i) {
    auto t3 = *w->Begin({});
    auto b = t3->Alloc(8);
    ASSERT_TRUE(b);
    reused = *b == a;
    t3->Abort();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(reused);
}

// A slot freed after a transaction's read timestamp R still holds, in that transaction's
// snapshot, the object that was freed, and the transaction may yet follow a pointer to it (a hash
// bucket read at R naming a blob). Allocating that slot would shadow the object with the new one
// in the transaction's own write set, so Alloc hands out only slots that were free at R.
TEST_P(TxnTest, AllocNeverHandsOutASlotThatHeldAnObjectAtTheReadTimestamp) {
  TestCluster c(Machines(GetParam(), GetParam() - 1), Patient());
  auto w = c.engine(0).NewWorker();
  Addr a = CommitNewObject(*w, 7);
  auto t = *w->Begin({});
  ASSERT_EQ(U64Value(*t->Read(a)), 7u);
  auto freer = c.engine(0).NewWorker();
  auto f = *freer->Begin({});
  ASSERT_TRUE(f->Free(a));
  ASSERT_TRUE(f->Commit());
  // The slot reaches the allocating worker once the participant has processed the free; keep
  // allocating in t past that point.
  for (int i = 0; i < 100; ++i) {
    auto b = t->Alloc(8);
    ASSERT_TRUE(b);
    ASSERT_NE(*b, a) << "allocation " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto again = t->Read(a);
  ASSERT_TRUE(again);
  EXPECT_EQ(U64Value(*again), 7u);
  t->Abort();
  // Held aside, not lost: a transaction that starts after the free gets the slot back.
  bool reused = false;
  for (int i = 0; i < 200 && !reused; ++i) {
    auto t2 = *w->Begin({});
    auto b = t2->Alloc(8);
    ASSERT_TRUE(b);
    reused = *b == a;
    t2->Abort();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(reused);
}

TEST_P(TxnTest, BackupsMatchPrimariesAfterTruncation) {
  int n = GetParam();
  TestCluster c(Machines(n, n - 1), Patient());
  std::vector<std::unique_ptr<Worker>> ws;
  for (int m = 0; m < n; ++m) ws.push_back(c.engine(m).NewWorker());
  std::vector<Addr> addrs;
  for (int i = 0; i < 20; ++i) addrs.push_back(CommitNewObject(*ws[i % n], i));
  for (int round = 0; round < 50; ++round) {
    auto& w = *ws[round % n];
    auto t = *w.Begin({});
    Addr a = addrs[round % addrs.size()], b = addrs[(round * 7 + 3) % addrs.size()];
    auto va = t->Read(a), vb = t->Read(b);
    ASSERT_TRUE(va && vb);
    ASSERT_TRUE(t->Write(a, U64Bytes(U64Value(*va) + U64Value(*vb))));
    ASSERT_TRUE(t->Commit());
  }
  for (auto& w : ws) w->FlushTruncations();
  EXPECT_EQ(c.CheckReplicas(), "");
}

TEST(TxnIsolationTest, TwoClustersInOneProcessAreIndependent) {
  TestCluster a(Machines(2, 1), Patient()), b(Machines(2, 1), Patient());
  auto wa = a.engine(1).NewWorker();
  auto wb = b.engine(1).NewWorker();
  Addr x = CommitNewObject(*wa, 11), y = CommitNewObject(*wb, 22);
  EXPECT_EQ(x, y);  // same first address in each cluster...
  EXPECT_EQ(ReadOne(*wa, x), 11u);  // ...holding each cluster's own value
  EXPECT_EQ(ReadOne(*wb, y), 22u);
}

// FaRMv2 §4.2: R must be in the past at the CM before the first read. A snapshot_ts beyond the
// machine's upper bound is refused (waiting for it would be unbounded); one inside the
// uncertainty interval is waited out, so a commit after Begin can no longer get W <= R.
TEST(TxnSnapshotTest, FutureSnapshotIsRefusedAndAnUncertainOneIsWaitedOut) {
  TestCluster c(Machines(3, 2), Patient());
  auto w = c.engine(1).NewWorker();
  auto w2 = c.engine(2).NewWorker();
  Addr a = CommitNewObject(*w, 0), b = CommitNewObject(*w, 0);
  cluster::Clock& clock = c.engine(1).machine().clock();
  Timestamp future = clock.Now().upper + 2'000'000'000;  // 2 s ahead
  auto refused = w->Begin({.read_only = true, .snapshot_ts = future});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, TxnErrorCode::kInvalidArgument);

  Timestamp r = clock.Now().upper;  // not yet known to be past (machine 1 is not the CM)
  auto ro = w->Begin({.read_only = true, .snapshot_ts = r});
  ASSERT_TRUE(ro);
  EXPECT_GT(clock.Now().lower, r) << "Begin returned before R was in the past";
  auto va = (*ro)->Read(a);
  ASSERT_TRUE(va);
  auto t2 = *w2->Begin({});
  ASSERT_TRUE(t2->Write(a, U64Bytes(1)) && t2->Write(b, U64Bytes(1)));
  auto info = t2->Commit();
  ASSERT_TRUE(info);
  EXPECT_GT(info->write_ts, r);
  auto vb = (*ro)->Read(b);
  ASSERT_TRUE(vb);
  EXPECT_EQ(U64Value(*va), U64Value(*vb)) << "one snapshot saw a=" << U64Value(*va) << ", b=" << U64Value(*vb);
}

// TxnId holds 16 bits of worker id: ids are reused, never two live workers share one, and
// NewWorker() returns nullptr while all are live.
TEST(TxnWorkerIdTest, IdsAreRecycledAndExhaustionFailsCleanly) {
  TestCluster c(Machines(1, 0), Patient());
  TxnEngine& e = c.engine(0);
  TxnId first_txn;
  uint32_t first_id;
  {
    auto w = e.NewWorker();
    first_id = w->id();
    first_txn = (*w->Begin({}))->id();
  }
  for (int i = 0; i < 70'000; ++i) ASSERT_NE(e.NewWorker(), nullptr);
  {
    auto w = e.NewWorker();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->id(), first_id);
    EXPECT_NE((*w->Begin({}))->id(), first_txn) << "a reused id must not repeat TxnIds";
    Addr a = CommitNewObject(*w, 5);  // commits: LOCK-REPLYs reach this worker
    EXPECT_EQ(ReadOne(*w, a), 5u);
  }
  std::vector<std::unique_ptr<Worker>> live;
  for (uint32_t i = 0; i < TxnEngine::kMaxWorkers; ++i) {
    live.push_back(e.NewWorker());
    ASSERT_NE(live.back(), nullptr) << i;
    ASSERT_GE(live.back()->id(), 1u);
    ASSERT_LE(live.back()->id(), TxnEngine::kMaxWorkers);
  }
  EXPECT_EQ(e.NewWorker(), nullptr);
  uint32_t freed = live[1234]->id();
  live[1234].reset();
  auto again = e.NewWorker();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->id(), freed);
  live.clear();
  Addr a = CommitNewObject(*again, 9);
  EXPECT_EQ(ReadOne(*again, a), 9u);
}

// A commit whose records exceed half a participant's ring (LOCK + COMMIT-PRIMARY/ABORT as a
// primary, COMMIT-BACKUP for every primary it backs up) cannot reserve them up front; it streams
// them in records of at most an eighth of the ring (commit.cc "Chunks") and commits. A version
// conflict found by a later LOCK record aborts it with every earlier record's locks released.
TEST(TxnLimitTest, CommitsLargerThanARingStreamTheirRecords) {
  cluster::LocalClusterOptions o = Machines(5, 4);
  EngineOptions eo = Patient();
  eo.log_size = 256 << 10;
  TestCluster c(o, eo);
  constexpr int kPerPrimary = 507;  // machine 0's COMMIT-BACKUP of 4 x 507 is over half a ring
  std::vector<Addr> objs;
  std::vector<std::unique_ptr<Worker>> ws;
  for (int m = 0; m < 5; ++m) {
    ws.push_back(c.engine(m).NewWorker());
    auto t = *ws[m]->Begin({});
    for (int i = 0; i < kPerPrimary; ++i) objs.push_back(*t->Alloc(8));
    ASSERT_TRUE(t->Commit()) << "setup on machine " << m;
  }
  Worker& w = *ws[0];
  auto write_all = [&](uint64_t v) {
    auto t = *w.Begin({});
    for (Addr a : objs) EXPECT_TRUE(t->Write(a, U64Bytes(v)));
    return t;
  };
  for (uint64_t round = 1; round <= 3; ++round) {
    ASSERT_TRUE(write_all(round)->Commit()) << "round " << round;
  }
  for (Addr a : {objs.front(), objs[kPerPrimary * 2 + 7], objs.back()}) EXPECT_EQ(ReadOne(*ws[3], a), 3u);
  // Another machine's commit to the highest address (the last LOCK record of its primary) after
  // the large transaction read it: the large commit fails at that record.
  Addr last = *std::ranges::max_element(objs);
  auto big = write_all(4);
  {
    auto t = *ws[4]->Begin({});
    ASSERT_TRUE(t->Write(last, U64Bytes(40)));
    ASSERT_TRUE(t->Commit());
  }
  auto failed = big->Commit();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().reason, AbortReason::kLockConflict);
  // Nothing stayed locked or reserved: the same large write commits at once.
  ASSERT_TRUE(write_all(5)->Commit());
  EXPECT_EQ(ReadOne(*ws[2], last), 5u);
  for (auto& worker : ws) worker->FlushTruncations();
  EXPECT_EQ(c.CheckReplicas(), "");
}

// A one-sided append that fails (the receiver's ring is gone) is not an acknowledgement.
TEST(TxnLimitTest, FailedLogAppendsFailTheCommitInsteadOfCountingAsAcks) {
  TestCluster c(Machines(3, 2), Patient());
  auto w0 = c.engine(0).NewWorker();
  auto w1 = c.engine(1).NewWorker();
  Addr a = CommitNewObject(*w0, 7);  // primary: machine 0, backups 1 and 2
  cluster::Fabric& fabric = c.cluster().fabric();
  // COMMIT-BACKUP from 0 to backup 1 cannot be written.
  fabric.Unregister(1, cluster::MemKey(cluster::MemKind::kLog, 0));
  {
    auto t = *w0->Begin({});
    ASSERT_TRUE(t->Write(a, U64Bytes(8)));
    auto r = t->Commit();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, TxnErrorCode::kUnavailable);  // the backup cannot be reached
  }
  EXPECT_EQ(ReadOne(*w0, a), 7u) << "the failed commit was exposed or left its lock";
  // LOCK from 1 to primary 0 cannot be written: no LOCK-REPLY will come, so do not wait for one.
  fabric.Unregister(0, cluster::MemKey(cluster::MemKind::kLog, 1));
  auto t = *w1->Begin({});
  ASSERT_TRUE(t->Write(a, U64Bytes(9)));
  auto r = t->Commit();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, TxnErrorCode::kUnavailable);
  EXPECT_EQ(ReadOne(*w0, a), 7u);
}

// Headers keep 53 bits of W: a master clock beyond that fails commits instead of installing a
// truncated (older-looking) version.
TEST(TxnLimitTest, WriteTimestampBeyond53BitsFailsTheCommit) {
  cluster::LocalClusterOptions o = Machines(1, 0);
  o.skews = {{int64_t{1} << 53, 0}};
  TestCluster c(o, Patient());
  auto w = c.engine(0).NewWorker();
  auto t = *w->Begin({});
  Addr a = *t->Alloc(8);
  ASSERT_TRUE(t->Write(a, U64Bytes(1)));
  auto r = t->Commit();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, TxnErrorCode::kInternal);
}

INSTANTIATE_TEST_SUITE_P(Machines, TxnTest, ::testing::Values(1, 3),
                         [](const auto& info) { return std::to_string(info.param) + "m"; });

}  // namespace
}  // namespace farmdb::txn
