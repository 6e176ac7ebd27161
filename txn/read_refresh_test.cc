// Txn::RefreshReadTimestamp (READ COMMITTED's fresh read timestamp per statement, DESIGN.md §2):
// later reads see newer commits, the transaction's own writes survive, the write set keeps its
// first-committer-wins check, and only snapshot-isolation transactions may refresh. Then the
// serializable counterpart (txn.h "Reads newer than R"): R moves only if nothing read changed.
#include <gtest/gtest.h>

#include "txn/race_fixture.h"

namespace farmdb::txn {
namespace {

class ReadRefreshTest : public ::testing::Test, protected RaceFixture {
 protected:
  ReadRefreshTest() : RaceFixture(2) {}
};

TEST_F(ReadRefreshTest, ReadsAfterARefreshSeeLaterCommits) {
  Addr x = Create(1), y = Create(10);
  auto t = *self_->Begin(Snapshot());
  EXPECT_EQ(Get(*t, x), 1u);
  Put(x, 2);
  Put(y, 20);
  // Without a refresh the transaction keeps its snapshot: the cached x and the version of y
  // at R, although y was never read before the other commit.
  EXPECT_EQ(Get(*t, x), 1u);
  EXPECT_EQ(Get(*t, y), 10u);
  Timestamp before = t->read_ts();
  ASSERT_TRUE(t->RefreshReadTimestamp());
  EXPECT_GT(t->read_ts(), before);
  EXPECT_EQ(Get(*t, x), 2u);
  EXPECT_EQ(Get(*t, y), 20u);
  auto info = t->Commit();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->read_ts, t->read_ts());
}

TEST_F(ReadRefreshTest, OwnWritesSurviveAndCommitAfterTheRefresh) {
  Addr x = Create(1), y = Create(10);
  auto t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->Write(x, U64Bytes(5)));
  Put(y, 20);
  ASSERT_TRUE(t->RefreshReadTimestamp());
  EXPECT_EQ(Get(*t, x), 5u) << "the transaction's own write";
  EXPECT_EQ(Get(*t, y), 20u);
  // A write after the refresh carries the version visible at the new R: no conflict with the
  // commit that came before it.
  ASSERT_TRUE(t->Write(y, U64Bytes(21)));
  ASSERT_TRUE(t->Commit());
  auto check = *other_->Begin({});
  EXPECT_EQ(Get(*check, x), 5u);
  EXPECT_EQ(Get(*check, y), 21u);
  EXPECT_TRUE(check->Commit());
}

TEST_F(ReadRefreshTest, AWriteBeforeTheRefreshStillLosesToALaterCommit) {
  // A lost update across statements: t writes x from the old snapshot, another transaction
  // commits x, t refreshes and commits. First committer wins: t fails at LOCK.
  Addr x = Create(1);
  auto t = *self_->Begin(Snapshot());
  ASSERT_TRUE(t->Write(x, U64Bytes(Get(*t, x) + 1)));
  Put(x, 100);
  ASSERT_TRUE(t->RefreshReadTimestamp());
  EXPECT_EQ(Get(*t, x), 2u) << "reads of written objects return the transaction's own write";
  auto r = t->Commit();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, TxnErrorCode::kAborted);
  EXPECT_EQ(r.error().reason, AbortReason::kLockConflict);
  auto check = *other_->Begin({});
  EXPECT_EQ(Get(*check, x), 100u);
  EXPECT_TRUE(check->Commit());
}

TEST_F(ReadRefreshTest, OnlySnapshotIsolationTransactionsRefresh) {
  Addr x = Create(1);
  auto serializable = *self_->Begin(Options(Isolation::kSerializable));
  EXPECT_EQ(Get(*serializable, x), 1u);
  Timestamp r = serializable->read_ts();
  auto refused = serializable->RefreshReadTimestamp();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, TxnErrorCode::kInvalidArgument);
  EXPECT_EQ(serializable->read_ts(), r);
  EXPECT_TRUE(serializable->Commit()) << "a refused refresh leaves the transaction usable";

  TxnOptions at_r = Snapshot();
  at_r.read_only = true;
  at_r.snapshot_ts = r;
  auto stale = *self_->Begin(at_r);
  Put(x, 2);
  refused = stale->RefreshReadTimestamp();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, TxnErrorCode::kInvalidArgument);
  EXPECT_EQ(Get(*stale, x), 1u) << "a stale snapshot keeps its R";
  EXPECT_TRUE(stale->Commit());

  auto finished = *self_->Begin(Snapshot());
  ASSERT_TRUE(finished->Commit());
  EXPECT_FALSE(finished->RefreshReadTimestamp());
  auto aborted = *self_->Begin(Snapshot());
  aborted->Abort();
  auto after_abort = aborted->RefreshReadTimestamp();
  ASSERT_FALSE(after_abort);
  EXPECT_EQ(after_abort.error().reason, AbortReason::kUser);
}

TEST_F(ReadRefreshTest, NonStrictRefreshNeverMovesBack) {
  // Non-strict R = L may lag a commit seen by another machine (§4.2), but it never goes below the
  // transaction's current R, so a refresh cannot un-see what an earlier statement saw.
  Addr x = Create(1);
  auto t = *self_->Begin(Options(Isolation::kSnapshot, /*strict=*/false));
  uint64_t seen = Get(*t, x);
  for (uint64_t i = 2; i < 20; ++i) {
    Timestamp before = t->read_ts();
    Put(x, i);
    ASSERT_TRUE(t->RefreshReadTimestamp());
    EXPECT_GE(t->read_ts(), before);
    uint64_t now = Get(*t, x);
    EXPECT_GE(now, seen) << "a refresh went back in time";
    seen = now;
  }
  EXPECT_TRUE(t->Commit());
}

// Txn "Reads newer than R": serializable transactions with writes.
TEST_F(ReadRefreshTest, ASerializableWriterReadsPastItsRWhenNothingItReadChanged) {
  Addr x = Create(1), y = Create(10), z = Create(100);
  auto t = *self_->Begin(Options(Isolation::kSerializable));
  EXPECT_EQ(Get(*t, x), 1u);
  ASSERT_TRUE(t->Write(y, U64Bytes(11)));
  Put(z, 200);
  uint64_t advances = self_->engine().counters().read_ts_advances.load();
  Timestamp before = t->read_ts();
  EXPECT_EQ(Get(*t, z), 200u) << "the head, at a new R, instead of an eager abort";
  EXPECT_GT(t->read_ts(), before);
  EXPECT_EQ(self_->engine().counters().read_ts_advances.load(), advances + 1);
  EXPECT_EQ(Get(*t, x), 1u);
  EXPECT_EQ(Get(*t, y), 11u);
  auto info = t->Commit();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->read_ts, t->read_ts());
  EXPECT_EQ(Current(y), 11u);
}

TEST_F(ReadRefreshTest, ASerializableWriterStillAbortsWhenSomethingItReadChanged) {
  // Write skew: t read x and writes y; x and z change. Reading z at a later R would pair the old
  // x with the new z, so t aborts as FaRMv2 does.
  Addr x = Create(1), y = Create(10), z = Create(100);
  auto t = *self_->Begin(Options(Isolation::kSerializable));
  EXPECT_EQ(Get(*t, x), 1u);
  ASSERT_TRUE(t->Write(y, U64Bytes(11)));
  Put(x, 2);
  Put(z, 200);
  Timestamp before = t->read_ts();
  auto r = t->Read(z);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, AbortReason::kEagerValidation);
  EXPECT_GE(t->read_ts(), before);
  EXPECT_EQ(Current(y), 10u) << "nothing of t committed";
}

TEST_F(ReadRefreshTest, AChangedObjectInTheWriteSetAlsoStopsTheAdvance) {
  // t wrote x from the version it read; x changed since. t would fail LOCK at commit anyway.
  Addr x = Create(1), z = Create(100);
  auto t = *self_->Begin(Options(Isolation::kSerializable));
  ASSERT_TRUE(t->Write(x, U64Bytes(Get(*t, x) + 1)));
  Put(x, 50);
  Put(z, 200);
  auto r = t->Read(z);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, AbortReason::kEagerValidation);
}

TEST_F(ReadRefreshTest, PinnedAndReadOnlyTransactionsKeepTheirR) {
  Addr y = Create(10), z = Create(100);
  auto pinned = *self_->Begin(Options(Isolation::kSerializable));
  pinned->PinReadTimestamp();
  ASSERT_TRUE(pinned->Write(y, U64Bytes(11)));
  Put(z, 200);
  auto r = pinned->Read(z);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, AbortReason::kEagerValidation);

  // Without writes a serializable transaction commits at R without validation (§4.2): it reads
  // the version at R and keeps R.
  auto reader = *self_->Begin(Options(Isolation::kSerializable));
  Timestamp before = reader->read_ts();
  Put(z, 300);
  EXPECT_EQ(Get(*reader, z), 200u);
  EXPECT_EQ(reader->read_ts(), before);
  EXPECT_TRUE(reader->Commit());
}

}  // namespace
}  // namespace farmdb::txn
