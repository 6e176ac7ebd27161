// Txn::WriteUnchanged and Txn::ValidateAtCommit, the optimistic row locks (txn.h; SQL's SELECT
// ... FOR UPDATE / FOR SHARE): what each makes commit check, on the commit and abort paths, under
// snapshot isolation (where nothing else would check) and serializable, with the objects at a
// remote primary with backups, and concurrently (the write skew they must prevent).
#include <gtest/gtest.h>

#include <barrier>
#include <functional>
#include <thread>

#include "txn/race_fixture.h"

namespace farmdb::txn {
namespace {

// The objects live at the last machine: remote for the transactions under test when there are
// several.
class OccLocksTest : public ::testing::TestWithParam<int>, protected RaceFixture {
 protected:
  OccLocksTest() : RaceFixture(GetParam()) {}

  static void ExpectAbort(const std::expected<CommitInfo, TxnError>& r, AbortReason reason) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, TxnErrorCode::kAborted);
    EXPECT_EQ(r.error().reason, reason);
  }
  void ExpectReplicasIdentical() {
    self_->FlushTruncations();
    other_->FlushTruncations();
    EXPECT_EQ(cluster_.CheckReplicas(), "");
  }
};

INSTANTIATE_TEST_SUITE_P(Machines, OccLocksTest, ::testing::Values(1, 3));

TEST_P(OccLocksTest, WriteUnchangedFailsWhenTheObjectChangedSinceTheRead) {
  Addr x = Create(1), y = Create(10);
  auto t = *self_->Begin(Snapshot());
  EXPECT_EQ(Get(*t, x), 1u);
  ASSERT_TRUE(t->WriteUnchanged(x));
  Put(x, 2);
  ASSERT_TRUE(t->Write(y, U64Bytes(11)));
  ExpectAbort(t->Commit(), AbortReason::kLockConflict);
  EXPECT_EQ(Current(x), 2u);
  EXPECT_EQ(Current(y), 10u) << "the aborted transaction's write is gone";
  Put(y, 12);  // and its locks: y can be written
}

TEST_P(OccLocksTest, WriteUnchangedInstallsTheSameBytesAsANewVersion) {
  Addr x = Create(7);
  auto before = *self_->Begin(Snapshot());  // R before the lock's commit
  auto lock = *self_->Begin(Snapshot());
  ASSERT_TRUE(lock->WriteUnchanged(x));  // reads x itself
  auto info = lock->Commit();
  ASSERT_TRUE(info);
  EXPECT_GT(info->write_ts, 0u) << "a rewrite is a write";
  EXPECT_EQ(Current(x), 7u);
  EXPECT_EQ(Get(*before, x), 7u) << "an older R reads the old version";
  EXPECT_TRUE(before->Commit());
  ExpectReplicasIdentical();
}

TEST_P(OccLocksTest, ConcurrentLockersExcludeEachOtherUnderSnapshotIsolation) {
  // Two transactions that both lock x read it before either commits: the second to commit fails,
  // although neither changed x (FOR UPDATE against FOR UPDATE).
  Addr x = Create(1), a = Create(0), b = Create(0);
  auto t1 = *self_->Begin(Snapshot());
  auto t2 = *self_->Begin(Snapshot());
  ASSERT_TRUE(t1->WriteUnchanged(x));
  ASSERT_TRUE(t2->WriteUnchanged(x));
  ASSERT_TRUE(t1->Write(a, U64Bytes(1)));
  ASSERT_TRUE(t2->Write(b, U64Bytes(1)));
  ASSERT_TRUE(t1->Commit());
  ExpectAbort(t2->Commit(), AbortReason::kLockConflict);
  // A writer that read x before the lock's commit loses to it too.
  auto writer = *self_->Begin(Snapshot());
  EXPECT_EQ(Get(*writer, x), 1u);
  auto t3 = *self_->Begin(Snapshot());
  ASSERT_TRUE(t3->WriteUnchanged(x));
  ASSERT_TRUE(t3->Commit());
  ASSERT_TRUE(writer->Write(x, U64Bytes(2)));
  ExpectAbort(writer->Commit(), AbortReason::kLockConflict);
  EXPECT_EQ(Current(x), 1u);
  EXPECT_EQ(Current(a) + Current(b), 1u);
  ExpectReplicasIdentical();
}

TEST_P(OccLocksTest, WritesAndFreesOfTheSameObjectWin) {
  Addr x = Create(1), y = Create(2), z = Create(3);
  auto t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->WriteUnchanged(x));
  ASSERT_TRUE(t->Write(x, U64Bytes(10)));  // a write after the lock
  ASSERT_TRUE(t->Write(y, U64Bytes(20)));
  ASSERT_TRUE(t->WriteUnchanged(y));  // a lock after the write
  ASSERT_TRUE(t->ValidateAtCommit(y));
  EXPECT_EQ(Get(*t, y), 20u);
  ASSERT_TRUE(t->Free(z));
  auto freed = t->WriteUnchanged(z);
  ASSERT_FALSE(freed);
  EXPECT_EQ(freed.error().code, TxnErrorCode::kNotAllocated);
  freed = t->ValidateAtCommit(z);
  ASSERT_FALSE(freed);
  EXPECT_EQ(freed.error().code, TxnErrorCode::kNotAllocated);
  ASSERT_TRUE(t->Commit());
  EXPECT_EQ(Current(x), 10u);
  EXPECT_EQ(Current(y), 20u);
  auto gone = *other_->Begin({});
  EXPECT_EQ(gone->Read(z).error().code, TxnErrorCode::kNotAllocated);
}

TEST_P(OccLocksTest, WriteUnchangedIsRefusedInReadOnlyTransactions) {
  Addr x = Create(1);
  TxnOptions o = Snapshot();
  o.read_only = true;
  auto t = *self_->Begin(o);
  auto r = t->WriteUnchanged(x);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, TxnErrorCode::kInvalidArgument);
  EXPECT_TRUE(t->ValidateAtCommit(x)) << "a shared lock writes nothing";
  EXPECT_TRUE(t->Commit());
}

TEST_P(OccLocksTest, AnAbortedLockerLeavesTheObjectFree) {
  Addr x = Create(1);
  auto t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->WriteUnchanged(x));
  t->Abort();
  Put(x, 2);
  EXPECT_EQ(t->WriteUnchanged(x).error().reason, AbortReason::kUser);
  EXPECT_EQ(Current(x), 2u);
}

TEST_P(OccLocksTest, ValidateAtCommitPreventsWriteSkewUnderSnapshotIsolation) {
  // Two on-call doctors: each reads both rows, locks the other's row shared and takes itself
  // off call. Without the check SI commits both; with it the second fails validation.
  Addr x = Create(1), y = Create(1);
  auto t1 = *self_->Begin(Snapshot());
  auto t2 = *self_->Begin(Snapshot());
  for (Txn* t : {t1.get(), t2.get()}) EXPECT_EQ(Get(*t, x) + Get(*t, y), 2u);
  ASSERT_TRUE(t1->ValidateAtCommit(y));
  ASSERT_TRUE(t2->ValidateAtCommit(x));
  ASSERT_TRUE(t1->Write(x, U64Bytes(0)));
  ASSERT_TRUE(t2->Write(y, U64Bytes(0)));
  ASSERT_TRUE(t1->Commit());
  ExpectAbort(t2->Commit(), AbortReason::kValidationFailure);
  EXPECT_EQ(Current(x) + Current(y), 1u);
}

TEST_P(OccLocksTest, ASharedHolderThatWritesAfterARefreshStillNeedsTheVersionFirstSeen) {
  // READ COMMITTED: SELECT ... FOR SHARE of x, another transaction updates x, then this one
  // UPDATEs x at a fresh R, so its write carries the new version. LOCK would pass; the shared
  // lock was broken, so the commit must fail.
  Addr x = Create(1);
  auto t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->ValidateAtCommit(x));
  Put(x, 2);
  ASSERT_TRUE(t->RefreshReadTimestamp());
  ASSERT_TRUE(t->Write(x, U64Bytes(Get(*t, x) + 1)));
  ExpectAbort(t->Commit(), AbortReason::kValidationFailure);
  EXPECT_EQ(Current(x), 2u);
  ExpectReplicasIdentical();
}

TEST_P(OccLocksTest, SharedHoldersDoNotConflict) {
  Addr x = Create(1), a = Create(0), b = Create(0);
  for (Isolation isolation : {Isolation::kSnapshot, Isolation::kSerializable}) {
    auto t1 = *self_->Begin(Options(isolation));
    auto t2 = *self_->Begin(Options(isolation));
    ASSERT_TRUE(t1->ValidateAtCommit(x));
    ASSERT_TRUE(t2->ValidateAtCommit(x));
    ASSERT_TRUE(t1->Write(a, U64Bytes(Get(*t1, a) + 1)));
    ASSERT_TRUE(t2->Write(b, U64Bytes(Get(*t2, b) + 1)));
    EXPECT_TRUE(t1->Commit());
    EXPECT_TRUE(t2->Commit());
  }
  EXPECT_EQ(Current(a), 2u);
  EXPECT_EQ(Current(b), 2u);
}

TEST_P(OccLocksTest, ASharedHolderFailsWhenTheObjectChanged) {
  Addr x = Create(1), a = Create(0);
  for (Isolation isolation : {Isolation::kSnapshot, Isolation::kSerializable}) {
    auto t = *self_->Begin(Options(isolation));
    ASSERT_TRUE(t->Write(a, U64Bytes(1)));
    ASSERT_TRUE(t->ValidateAtCommit(x));
    Put(x, Current(x) + 1);
    ExpectAbort(t->Commit(), AbortReason::kValidationFailure);
  }
  EXPECT_EQ(Current(a), 0u);
}

TEST_P(OccLocksTest, AReadOnlyHolderValidatesOnlyWhatItSawBeforeARefresh) {
  Addr x = Create(1), y = Create(1);
  // One snapshot: the transaction is serialised at R, before the later commit.
  auto t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->ValidateAtCommit(x));
  Put(x, 2);
  EXPECT_TRUE(t->Commit());
  // Seen before a refresh (READ COMMITTED's next statement) and changed since: its reads are no
  // longer one snapshot.
  t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->ValidateAtCommit(x));
  Put(x, 3);
  ASSERT_TRUE(t->RefreshReadTimestamp());
  EXPECT_EQ(Get(*t, x), 3u);
  ASSERT_TRUE(t->ValidateAtCommit(x)) << "keeps the version first seen";
  ExpectAbort(t->Commit(), AbortReason::kValidationFailure);
  // Seen before a refresh and unchanged: commits.
  t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->ValidateAtCommit(x));
  Put(y, 2);
  ASSERT_TRUE(t->RefreshReadTimestamp());
  EXPECT_EQ(Get(*t, y), 2u);
  EXPECT_TRUE(t->Commit());
}

TEST_P(OccLocksTest, AWriterAfterASharedHolderCommitsAtALaterTimestamp) {
  // Non-strict SI takes W without waiting and returns without waiting either, so only the wait
  // that validation brings orders a later writer's W after the holder's: x is unchanged through
  // the holder's W.
  Addr x = Create(1), a = Create(0);
  auto remote_machine = static_cast<MachineId>(GetParam() - 1);
  auto remote = cluster_.engine(remote_machine).NewWorker();
  Timestamp last_write = 0;
  for (int i = 0; i < 20; ++i) {
    // A non-strict R may be below the last write of x (R = L), and x would then rightly fail
    // validation; start once that write is past.
    cluster_.cluster().machine(remote_machine).clock().WaitUntilPast(last_write);
    auto t = *remote->Begin(Options(Isolation::kSnapshot, /*strict=*/false));
    ASSERT_TRUE(t->ValidateAtCommit(x));
    ASSERT_TRUE(t->Write(a, U64Bytes(i)));
    auto held = t->Commit();
    ASSERT_TRUE(held);
    auto writer = *self_->Begin(Options(Isolation::kSnapshot, /*strict=*/false));
    ASSERT_TRUE(writer->Write(x, U64Bytes(i)));
    auto wrote = writer->Commit();
    ASSERT_TRUE(wrote);
    EXPECT_GT(wrote->write_ts, held->write_ts);
    last_write = wrote->write_ts;
  }
}

// Concurrent critical sections over one object per section with the invariant "at most one is
// 1": each transaction reads them all and, if all are 0, sets its own to 1, under SI, which alone
// lets several commit (write skew). `lock` is what makes the sections exclusive; every round
// runs the sections at once, one thread each, spread over the machines, and checks the
// invariant.
using Lock = std::function<bool(Txn&, const std::vector<Addr>& read, Addr gate)>;
void RunExclusiveSections(TestCluster& cluster, const Lock& lock) {
  int n = cluster.size();
  int threads = std::max(n, 2);
  auto setup = cluster.engine(0).NewWorker();
  auto make = [&] { return CommitNewObject(*setup); };
  Addr gate = make();
  for (int round = 0; round < 30; ++round) {
    std::vector<Addr> objs;
    for (int i = 0; i < threads; ++i) objs.push_back(make());
    std::barrier start(threads);
    std::vector<std::thread> workers;
    for (int i = 0; i < threads; ++i) {
      workers.emplace_back([&, i] {
        auto w = cluster.engine(static_cast<MachineId>(i % n)).NewWorker();
        start.arrive_and_wait();
        for (int attempt = 0; attempt < 1000; ++attempt) {
          TxnOptions snapshot;
          snapshot.isolation = Isolation::kSnapshot;
          auto t = *w->Begin(snapshot);
          uint64_t sum = 0;
          bool ok = true;
          for (Addr o : objs) {
            auto v = t->Read(o);
            ok = ok && v.has_value();
            if (v) sum += U64Value(*v);
          }
          if (!ok) continue;
          if (sum > 0) return;  // another section got there first
          ok = lock(*t, objs, gate) && t->Write(objs[i], U64Bytes(1));
          if (ok && t->Commit()) return;
        }
        ADD_FAILURE() << "no attempt committed";
      });
    }
    for (auto& t : workers) t.join();
    auto check = *setup->Begin({});
    uint64_t sum = 0;
    for (Addr o : objs) sum += U64Value(*check->Read(o));
    EXPECT_TRUE(check->Commit());
    ASSERT_EQ(sum, 1u) << "round " << round << ": two sections both committed";
  }
}

TEST_P(OccLocksTest, AnExclusiveLockSerialisesConcurrentSections) {
  RunExclusiveSections(cluster_, [](Txn& t, const std::vector<Addr>&, Addr gate) {
    return t.WriteUnchanged(gate).has_value();
  });
}

TEST_P(OccLocksTest, SharedLocksOnWhatWasReadSerialiseConcurrentSections) {
  // Each section holds every object it read shared (FOR SHARE of the rows read); its own is then
  // written, which LOCK checks instead.
  RunExclusiveSections(cluster_, [](Txn& t, const std::vector<Addr>& read, Addr) {
    for (Addr o : read) {
      if (!t.ValidateAtCommit(o)) return false;
    }
    return true;
  });
}

}  // namespace
}  // namespace farmdb::txn
