// Txn::MarkReapplicable (READ COMMITTED's UPDATE re-applied to the newest version, txn.h): a
// stale re-applicable write comes back to the caller instead of aborting, anything else stale
// still aborts, reading a write back ends its re-applicability, only snapshot-isolation
// transactions mark, and concurrent increments that re-apply lose no update, with the objects
// local or at a remote primary with backups, and under delayed and reordered fabric operations.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include "txn/race_fixture.h"

namespace farmdb::txn {
namespace {

class ReapplyTest : public ::testing::TestWithParam<int>, protected RaceFixture {
 protected:
  ReapplyTest() : RaceFixture(GetParam()) {}

  // t writes Get(x) + delta to x and marks it.
  static void Increment(Txn& t, Addr x, uint64_t delta) {
    ASSERT_TRUE(t.Write(x, U64Bytes(Get(t, x) + delta)));
    ASSERT_TRUE(t.MarkReapplicable(x));
  }
  static void ExpectError(const std::expected<CommitInfo, TxnError>& r, TxnErrorCode code,
                          AbortReason reason = AbortReason::kUser) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, code);
    if (code == TxnErrorCode::kAborted) {
      EXPECT_EQ(r.error().reason, reason);
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Machines, ReapplyTest, ::testing::Values(1, 3));

TEST_P(ReapplyTest, AStaleReapplicableWriteComesBackInsteadOfAborting) {
  Addr x = Create(1), y = Create(10);
  auto t = *self_->Begin(Snapshot());
  Increment(*t, x, 1);
  ASSERT_TRUE(t->Write(y, U64Bytes(11)));  // not re-applicable, and nobody else writes it
  Put(x, 100);
  Timestamp before = t->read_ts();
  uint64_t returns = self_->engine().counters().stale_write_returns.load();
  ExpectError(t->Commit(), TxnErrorCode::kStaleWrites);
  EXPECT_EQ(t->stale_writes(), std::vector<Addr>{x});
  EXPECT_EQ(self_->engine().counters().stale_write_returns.load(), returns + 1);
  EXPECT_GT(t->read_ts(), before) << "R moves past the commit that made the write stale";
  EXPECT_EQ(Get(*t, x), 100u) << "the stale write is dropped: reads see the newest version";
  EXPECT_EQ(Get(*t, y), 11u) << "other writes stay";
  Increment(*t, x, 1);
  ASSERT_TRUE(t->Commit());
  EXPECT_EQ(Current(x), 101u);
  EXPECT_EQ(Current(y), 11u);
  self_->FlushTruncations();
  other_->FlushTruncations();
  EXPECT_EQ(cluster_.CheckReplicas(), "");
}

TEST_P(ReapplyTest, AStaleWriteThatIsNotReapplicableStillAborts) {
  Addr x = Create(1), y = Create(10);
  auto t = *self_->Begin(Snapshot());
  Increment(*t, x, 1);
  ASSERT_TRUE(t->Write(y, U64Bytes(11)));
  Put(x, 100);
  Put(y, 20);
  ExpectError(t->Commit(), TxnErrorCode::kAborted, AbortReason::kLockConflict);
  EXPECT_EQ(Current(x), 100u);
  EXPECT_EQ(Current(y), 20u);
}

TEST_P(ReapplyTest, ReadingAWriteBackOrWritingItAgainEndsItsReapplicability) {
  Addr x = Create(1);
  // What the transaction does after marking its increment: read the value back (the caller has
  // seen what it computed from the old version), or write the object again without a mark.
  std::vector<std::function<void(Txn&)>> ends = {
      [&](Txn& t) {
        EXPECT_EQ(Get(t, x), 2u);
        auto again = t.MarkReapplicable(x);
        ASSERT_FALSE(again) << "an object read back cannot be marked again";
        EXPECT_EQ(again.error().code, TxnErrorCode::kInvalidArgument);
      },
      [&](Txn& t) { ASSERT_TRUE(t.Write(x, U64Bytes(7))); },
  };
  for (size_t i = 0; i < ends.size(); ++i) {
    SCOPED_TRACE(i);
    Put(x, 1);
    auto t = *self_->Begin(Snapshot());
    Increment(*t, x, 1);
    ends[i](*t);
    Put(x, 100);
    ExpectError(t->Commit(), TxnErrorCode::kAborted, AbortReason::kLockConflict);
    EXPECT_EQ(Current(x), 100u);
  }
}

TEST_P(ReapplyTest, OnlyPlainWritesOfSnapshotIsolationTransactionsAreMarked) {
  Addr x = Create(1), y = Create(1), shared = Create(1);
  auto invalid = [](const std::expected<void, TxnError>& r) {
    return !r && r.error().code == TxnErrorCode::kInvalidArgument;
  };
  auto serializable = *self_->Begin(Options(Isolation::kSerializable));
  ASSERT_TRUE(serializable->Write(x, U64Bytes(2)));
  EXPECT_TRUE(invalid(serializable->MarkReapplicable(x)));
  EXPECT_TRUE(serializable->Commit()) << "a refused mark leaves the transaction usable";

  auto t = *self_->Begin(Snapshot());
  EXPECT_TRUE(invalid(t->MarkReapplicable(x))) << "not written";
  Addr fresh = *t->Alloc(8);
  EXPECT_TRUE(invalid(t->MarkReapplicable(fresh))) << "allocated here";
  ASSERT_TRUE(t->Free(y));
  EXPECT_TRUE(invalid(t->MarkReapplicable(y))) << "freed here";
  ASSERT_TRUE(t->ValidateAtCommit(shared));
  ASSERT_TRUE(t->Write(shared, U64Bytes(2)));
  EXPECT_TRUE(invalid(t->MarkReapplicable(shared))) << "held FOR SHARE: must stay at the version first seen";
  ASSERT_TRUE(t->Write(x, U64Bytes(3)));
  t->PinReadTimestamp();
  EXPECT_TRUE(invalid(t->MarkReapplicable(x))) << "R is pinned";
  EXPECT_TRUE(t->Commit());
  EXPECT_EQ(Current(x), 3u);
  EXPECT_EQ(Current(shared), 2u);
}

TEST_P(ReapplyTest, ATransactionPinnedAfterMarkingAbortsInsteadOfMovingR) {
  Addr x = Create(1);
  auto t = *self_->Begin(Snapshot());
  Increment(*t, x, 1);
  t->PinReadTimestamp();
  Timestamp r = t->read_ts();
  Put(x, 100);
  ExpectError(t->Commit(), TxnErrorCode::kAborted, AbortReason::kLockConflict);
  EXPECT_EQ(t->read_ts(), r);
  EXPECT_EQ(Current(x), 100u);
}

// Threads on every machine add to shared counters in snapshot-isolation transactions that also
// write an object of their own, re-applying their increment whenever it went stale, as READ
// COMMITTED's UPDATE ... SET n = n + 1 does. Every committed increment must be in the final
// sum (no lost update), and the replicas must agree.
void RunConcurrentIncrements(TestCluster& cluster, int transactions_per_thread) {
  const int machines = cluster.size();
  const int threads = std::max(4, machines * 2);
  auto setup = cluster.engine(0).NewWorker();
  auto make = [&] { return CommitNewObject(*setup); };
  std::vector<Addr> counters = {make(), make()};
  std::vector<Addr> own;
  for (int i = 0; i < threads; ++i) own.push_back(make());
  std::atomic<uint64_t> committed{0}, aborted{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      auto w = cluster.engine(static_cast<MachineId>(i % machines)).NewWorker();
      TxnOptions snapshot;
      snapshot.isolation = Isolation::kSnapshot;
      for (int n = 0; n < transactions_per_thread; ++n) {
        auto t = *w->Begin(snapshot);
        Addr counter = counters[(i + n) % counters.size()];
        auto add = [&] {
          auto v = t->Read(counter);
          return v && t->Write(counter, U64Bytes(U64Value(*v) + 1)) && t->MarkReapplicable(counter);
        };
        bool ok = add() && t->Write(own[i], U64Bytes(n));
        auto r = ok ? t->Commit() : std::unexpected(TxnError{});
        while (!r && r.error().code == TxnErrorCode::kStaleWrites) {
          EXPECT_EQ(t->stale_writes(), std::vector<Addr>{counter});
          r = add() ? t->Commit() : std::unexpected(TxnError{});
        }
        if (r) {
          committed.fetch_add(1);
        } else {
          EXPECT_TRUE(r.error().IsRetryable()) << static_cast<int>(r.error().code);
          aborted.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : workers) t.join();
  auto check = *setup->Begin({});
  uint64_t sum = 0;
  for (Addr c : counters) sum += U64Value(*check->Read(c));
  EXPECT_TRUE(check->Commit());
  EXPECT_EQ(sum, committed.load()) << "an increment was lost or counted twice";
  EXPECT_GT(committed.load(), aborted.load()) << "re-applying should let most increments commit";
  setup->FlushTruncations();
  EXPECT_EQ(cluster.CheckReplicas(), "");
}

TEST_P(ReapplyTest, ConcurrentIncrementsLoseNoUpdate) {
  auto stale_returns = [&] {
    uint64_t total = 0;
    for (int m = 0; m < cluster_.size(); ++m) {
      total += cluster_.engine(static_cast<MachineId>(m)).counters().stale_write_returns.load();
    }
    return total;
  };
  // Rounds until some increment went stale: on a loaded machine the threads may happen to run
  // one after another.
  const uint64_t before = stale_returns();
  for (int round = 0; round < 20 && stale_returns() == before; ++round) RunConcurrentIncrements(cluster_, 200);
  EXPECT_GT(stale_returns(), before) << "the workload never made a write stale: it tests nothing";
}

TEST(ReapplyFaultTest, DelayedAndReorderedOperationsLoseNoUpdate) {
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    EngineOptions patient;
    patient.locked_read_wait = std::chrono::seconds(2);
    TestCluster c(SkewedClusterOptions(seed), patient);
    c.cluster().fabric().SetFaults(DelaysAndDroppedSync());
    RunConcurrentIncrements(c, 40);
    c.cluster().fabric().SetFaults({});
  }
}

}  // namespace
}  // namespace farmdb::txn
