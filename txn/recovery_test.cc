// Recovery (recovery.cc, FORMATS.md "Recovery"): what a cluster committed is there after a
// clean stop, after its process is killed at a random moment (a forked child running a workload,
// killed with SIGKILL), and after checkpoints; what a killed transaction held is free again.
//
// The workload: each writer thread owns a pair of objects on two different machines (when there
// are several) and sets both to n in its n-th transaction, so a torn transaction shows as a
// pair that differs; it reports each acknowledged n on a pipe before the next. Some threads
// also allocate and free objects, and one writes bulk transactions that stream their records
// (larger than half a ring).

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "cluster/rng.h"
#include "cluster/temp_dir.h"
#include "txn/test_cluster.h"
#include "txn/workload.h"

namespace farmdb::txn {
namespace {

using cluster::TempDir;

cluster::LocalClusterOptions Options(const std::filesystem::path& dir, int machines) {
  cluster::LocalClusterOptions o;
  o.machines = machines;
  o.replicas = machines - 1;
  o.region_size = 4 << 20;
  o.data_dir = dir;
  return o;
}

EngineOptions Small() {
  EngineOptions e;
  e.log_size = 256 << 10;  // bulk transactions of a few thousand objects stream
  e.wal_segment_size = 1 << 20;
  e.locked_read_wait = std::chrono::seconds(2);
  return e;
}

// The workload's objects: a directory object per machine-0 root listing every pair, written once
// at set-up (so a restart finds them), then pairs updated by the writers.
constexpr int kWriters = 4;
constexpr int kBulkObjects = 1500;

struct Layout {
  Addr a[kWriters], b[kWriters];
  std::vector<Addr> bulk;
};

uint64_t Get(Worker& w, Addr a) {
  for (;;) {
    auto t = *w.Begin({});
    auto v = t->Read(a);
    if (v) return U64Value(*v);
    if (!v.error().IsRetryable()) return ~uint64_t{0};
  }
}

Layout MakeLayout(TestCluster& c) {
  Layout l;
  std::vector<std::unique_ptr<Worker>> ws;
  for (int m = 0; m < c.size(); ++m) ws.push_back(c.engine(m).NewWorker());
  for (int i = 0; i < kWriters; ++i) {
    l.a[i] = CommitNewObject(*ws[i % c.size()], 0);
    l.b[i] = CommitNewObject(*ws[(i + 1) % c.size()], 0);
  }
  auto t = *ws[0]->Begin({});
  for (int k = 0; k < kBulkObjects; ++k) l.bulk.push_back(*t->Alloc(8));
  EXPECT_TRUE(t->Commit());
  return l;
}

// Runs writers until told to stop; writer i reports (i, n) on `acks` after its n-th commit.
void RunWriters(TestCluster& c, const Layout& l, uint64_t start, int acks_fd, std::atomic<bool>& stop, uint64_t seed) {
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      auto w = c.engine(i % c.size()).NewWorker();
      cluster::Rng rng(seed * 31 + i);
      for (uint64_t n = start + 1; !stop.load(); ++n) {
        for (;;) {
          auto t = *w->Begin({});
          bool ok = t->Write(l.a[i], U64Bytes(n)).has_value() && t->Write(l.b[i], U64Bytes(n)).has_value();
          // Allocation and free in the same commits: the allocator state must come back too.
          if (ok && i == 1) {
            auto fresh = t->Alloc(16);
            ok = fresh.has_value() && t->Free(*fresh).has_value();
          }
          // Writer 0 also writes the bulk objects now and then: a streamed commit.
          if (ok && i == 0 && rng.Chance(0.05)) {
            for (Addr a : l.bulk) ok = ok && t->Write(a, U64Bytes(n)).has_value();
          }
          t->SetSyncCommit(rng.Chance(0.3));
          if (ok && t->Commit()) break;
          if (stop.load()) return;
        }
        uint64_t msg[2] = {static_cast<uint64_t>(i), n};
        if (acks_fd >= 0 && ::write(acks_fd, msg, sizeof msg) != sizeof msg) return;
      }
    });
  }
  for (auto& t : threads) t.join();
}

// What recovery must show: every pair equal (no torn transaction), at or above what was
// acknowledged, every bulk object at one value that writer 0 committed.
void CheckRecovered(TestCluster& c, const Layout& l, const std::map<int, uint64_t>& acked, uint64_t* max_seen) {
  auto w = c.engine(0).NewWorker();
  for (int i = 0; i < kWriters; ++i) {
    uint64_t a = Get(*w, l.a[i]), b = Get(*w, l.b[i]);
    EXPECT_EQ(a, b) << "writer " << i << ": a torn transaction";
    auto it = acked.find(i);
    if (it != acked.end()) {
      EXPECT_GE(a, it->second) << "writer " << i << " lost an acknowledged commit";
    }
    *max_seen = std::max(*max_seen, a);
  }
  uint64_t first = Get(*w, l.bulk.front());
  for (Addr a : l.bulk) ASSERT_EQ(Get(*w, a), first) << "a bulk transaction is partly there";
  EXPECT_LE(first, Get(*w, l.a[0]));
}

// A first run in `dir`: the layout, then writers for 300 ms, then a clean stop. Returns what
// each writer's pair holds.
std::map<int, uint64_t> WriteAndStop(const std::filesystem::path& dir, int machines, Layout* l) {
  TestCluster c(Options(dir, machines), Small());
  *l = MakeLayout(c);
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  RunWriters(c, *l, 0, -1, stop, 1);
  stopper.join();
  auto w = c.engine(0).NewWorker();
  std::map<int, uint64_t> acked;
  for (int i = 0; i < kWriters; ++i) acked[i] = Get(*w, l->a[i]);
  return acked;
}

class RecoveryTest : public ::testing::TestWithParam<int> {};

// A clean stop keeps everything, and the engines go on: new commits, allocation that hands out
// no live object, reads of what was there.
TEST_P(RecoveryTest, CleanStopKeepsEveryCommit) {
  TempDir dir("recovery");
  Layout l;
  std::map<int, uint64_t> acked = WriteAndStop(dir.path, GetParam(), &l);
  TestCluster c(Options(dir.path, GetParam()), Small());
  EXPECT_EQ(c.engine(0).recovery_stats().runs, 1u);
  uint64_t max_seen = 0;
  CheckRecovered(c, l, acked, &max_seen);
  auto w = c.engine(0).NewWorker();
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(Get(*w, l.a[i]), acked[i]) << "a clean stop changed writer " << i;
  // New objects never land on live ones.
  std::set<Addr> live(l.bulk.begin(), l.bulk.end());
  for (int i = 0; i < kWriters; ++i) live.insert(l.a[i]), live.insert(l.b[i]);
  auto t = *w->Begin({});
  for (int k = 0; k < 200; ++k) {
    auto a = t->Alloc(8);
    ASSERT_TRUE(a);
    EXPECT_FALSE(live.contains(*a)) << "allocated a live object after the restart";
  }
  EXPECT_TRUE(t->Commit());
  // The pairs can be written again at once: nothing is left locked.
  auto u = *w->Begin({});
  for (int i = 0; i < kWriters; ++i) ASSERT_TRUE(u->Write(l.a[i], U64Bytes(7)));
  EXPECT_TRUE(u->Commit());
}

// The engines of a multi-process cluster open apart, each reading only its own log. A backup's
// COMMIT-BACKUP records commit only with their COMMIT-PRIMARY, which is in the primary's log, so
// the backups' replay needs the others' first passes (TxnEngine::RecoveryExchange): without them
// the backups would not match their primaries.
TEST(RecoveryApartTest, EnginesOpenedApartDecideTogetherAndBackupsMatchTheirPrimaries) {
  TempDir dir("recovery");
  Layout l;
  std::map<int, uint64_t> acked = WriteAndStop(dir.path, 3, &l);
  TestCluster c(Options(dir.path, 3), Small(), TestCluster::Open::kApart);
  uint64_t max_seen = 0;
  CheckRecovered(c, l, acked, &max_seen);
  EXPECT_EQ(c.CheckReplicas(), "");
  auto w = c.engine(1).NewWorker();
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(Get(*w, l.a[i]), acked[i]) << "a clean stop changed writer " << i;
}

// One machine of several, opened alone without the others' first passes, cannot decide.
TEST(RecoveryApartTest, OneMachineOfSeveralWithoutAnExchangeDoesNotStart) {
  TempDir dir("recovery");
  cluster::LocalCluster cluster(Options(dir.path, 3));
  ASSERT_TRUE(cluster.error().empty()) << cluster.error();
  cluster.WaitUntilServing();
  cluster::Machine* machine = &cluster.machine(1);
  auto engines = TxnEngine::OpenAll(std::span(&machine, 1), Small());
  ASSERT_FALSE(engines.has_value());
  EXPECT_NE(engines.error().find("recovering 1 of the cluster's 3 machines needs what the others' logs hold"),
            std::string::npos)
      << engines.error();
}

// kill -9 at random moments, several runs in one data directory: each restart finds every
// acknowledged commit, nothing torn, and later runs go on from there.
TEST_P(RecoveryTest, KilledProcessLosesNothingAcknowledged) {
  TempDir dir("recovery");
  Layout l;
  {
    TestCluster c(Options(dir.path, GetParam()), Small());
    l = MakeLayout(c);
  }
  std::map<int, uint64_t> acked;
  uint64_t start = 0;
  cluster::Rng rng(GetParam());
  for (int round = 0; round < 4; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(fds[0]);
      TestCluster c(Options(dir.path, GetParam()), Small());
      std::atomic<bool> stop{false};
      RunWriters(c, l, start, fds[1], stop, round + 1);
      ::_exit(0);
    }
    ::close(fds[1]);
    // Kill it after some acknowledged commits, at a random moment.
    int seen = 0;
    const int wanted = 50 + static_cast<int>(rng.Uniform(100));
    uint64_t msg[2];
    while (seen < wanted && ::read(fds[0], msg, sizeof msg) == sizeof msg) {
      acked[static_cast<int>(msg[0])] = std::max(acked[static_cast<int>(msg[0])], msg[1]);
      ++seen;
    }
    ::usleep(static_cast<useconds_t>(rng.Uniform(20000)));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    while (::read(fds[0], msg, sizeof msg) == sizeof msg) {
      acked[static_cast<int>(msg[0])] = std::max(acked[static_cast<int>(msg[0])], msg[1]);
    }
    ::close(fds[0]);
    ASSERT_GE(seen, 50) << "the child stopped before 50 commits (status " << status << ")";
    TestCluster c(Options(dir.path, GetParam()), Small());
    uint64_t max_seen = 0;
    CheckRecovered(c, l, acked, &max_seen);
    start = max_seen;
    // Checkpoints between runs, after restarts from earlier ones (an image written over a mapped image).
    if (round >= 1) {
      ASSERT_TRUE(c.engine(0).Checkpoint()) << "a checkpoint between runs";
    }
  }
}

// After checkpoints the log before them goes, and a restart reads only what came after.
TEST_P(RecoveryTest, CheckpointsTruncateTheLogAndRestartFromThem) {
  TempDir dir("recovery");
  Layout l;
  std::map<int, uint64_t> acked;
  uint64_t log_before = 0;
  {
    TestCluster c(Options(dir.path, GetParam()), Small());
    l = MakeLayout(c);
    std::atomic<bool> stop{false};
    // Until the log spans a few segments, so that the checkpoint has some to drop.
    std::thread stopper([&] {
      for (int k = 0; k < 2000 && c.engine(0).wal().end() < 4 * Small().wal_segment_size; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      stop = true;
    });
    RunWriters(c, l, 0, -1, stop, 2);
    stopper.join();
    log_before = c.engine(0).wal().FileBytes();
    for (int m = 0; m < c.size(); ++m) ASSERT_TRUE(c.engine(m).Checkpoint());
    EXPECT_LT(c.engine(0).wal().FileBytes(), log_before) << "the checkpoint dropped no log segment";
    auto w = c.engine(0).NewWorker();
    // One more commit after the checkpoint, which the restart replays.
    auto t = *w->Begin({});
    ASSERT_TRUE(t->Write(l.a[3], U64Bytes(1'000'000)) && t->Write(l.b[3], U64Bytes(1'000'000)));
    ASSERT_TRUE(t->Commit());
    for (int i = 0; i < kWriters; ++i) acked[i] = Get(*w, l.a[i]);
  }
  TestCluster c(Options(dir.path, GetParam()), Small());
  EXPECT_LT(c.engine(0).recovery_stats().log_bytes, log_before / 2) << "the restart read the whole log";
  uint64_t max_seen = 0;
  CheckRecovered(c, l, acked, &max_seen);
  EXPECT_EQ(max_seen, 1'000'000u);
}

// When commits outpace checkpoints, a full log makes them wait for one (EngineOptions::
// max_log_bytes): the log stays within its room plus what transactions already logging add, no
// commit waits against the checkpoint it needs, and nothing is lost.
TEST_P(RecoveryTest, AFullLogMakesCommitsWaitForACheckpoint) {
  TempDir dir("recovery");
  EngineOptions e = Small();
  // Little room past the checkpoint's start: between two of the checkpointer's rounds (a second
  // apart) the writers fill it.
  e.checkpoint_log_bytes = 4 << 20;
  e.max_log_bytes = e.checkpoint_log_bytes + (64 << 10);
  const uint64_t slack = 2 << 20;  // the writers' transactions in flight, a bulk one among them
  Layout l;
  std::map<int, uint64_t> acked;
  uint64_t most = 0, waits = 0;
  {
    TestCluster c(Options(dir.path, GetParam()), e);
    l = MakeLayout(c);
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (c.engine(0).checkpoints() < 3 && std::chrono::steady_clock::now() < deadline) {
        for (int m = 0; m < c.size(); ++m) most = std::max(most, c.engine(m).LogSinceCheckpoint());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      stop = true;
    });
    RunWriters(c, l, 0, -1, stop, 3);
    watcher.join();
    for (int m = 0; m < c.size(); ++m) waits += c.engine(m).log_full_waits();
    EXPECT_GE(c.engine(0).checkpoints(), 3u) << "the writers did not fill the log three times in 60 s";
    auto w = c.engine(0).NewWorker();
    for (int i = 0; i < kWriters; ++i) acked[i] = Get(*w, l.a[i]);
  }
  EXPECT_GT(waits, 0u) << "no commit found the log full";
  EXPECT_LE(most, e.max_log_bytes + slack) << "the log outgrew its room";
  TestCluster c(Options(dir.path, GetParam()), e);
  uint64_t max_seen = 0;
  CheckRecovered(c, l, acked, &max_seen);
}

// A worker that commits and then goes quiet (an idle session's, the sequence cache's) still has
// its last transaction truncated within about a second (the checkpointer's truncation timer), so
// the backups' checkpoints drop their logs to the end. Before, its COMMIT-BACKUPs stayed in the
// backups' logs until that worker's next commit, which may never come: the log could not be
// dropped, filled up, and stopped every commit.
TEST(RecoveryCheckpointTest, AQuietWorkersLastCommitDoesNotHoldTheBackupsLogs) {
  TempDir dir("recovery");
  TestCluster c(Options(dir.path, 3), Small());
  auto quiet = c.engine(0).NewWorker();
  Addr a = CommitNewObject(*quiet, 7);  // primary 0, backups 1 and 2
  {
    auto t = *quiet->Begin({});
    ASSERT_TRUE(t->Write(a, U64Bytes(8)));
    ASSERT_TRUE(t->Commit());
  }
  // No FlushTruncations, and the worker stays alive. The backups log the COMMIT-BACKUPs within
  // microseconds of the commit; everything of the two transactions lies below `logged`.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (int m = 1; m < 3; ++m) {
    TxnEngine& backup = c.engine(m);
    const uint64_t logged = backup.wal().end();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    uint64_t start = 0;
    do {
      ASSERT_TRUE(backup.Checkpoint());
      start = backup.wal().end() - backup.LogSinceCheckpoint();  // what that checkpoint kept
      if (start < logged) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (start < logged && std::chrono::steady_clock::now() < deadline);
    EXPECT_GE(start, logged) << "backup " << m << " keeps the quiet worker's transaction in its log";
  }
  EXPECT_EQ(Get(*quiet, a), 8u);
}

// Records carry the configuration their sender ran in; a log holding one newer than the machine
// state's configuration was not written with that state, and the start stops, naming both.
TEST(RecoveryConfigurationTest, ALogRecordOfANewerConfigurationStopsTheStart) {
  TempDir dir("recovery");
  {
    TestCluster c(Options(dir.path, 1), Small());
    Record r;
    r.type = RecordType::kTruncate;
    std::vector<std::byte> bytes = EncodeRecord(r);
    SetRecordConfiguration(bytes, 2);
    std::span<const std::byte> part(bytes);
    ASSERT_TRUE(c.engine(0).wal().Append(kWalTxnRecord, std::span(&part, 1)));
  }
  cluster::LocalCluster cluster(Options(dir.path, 1));
  ASSERT_TRUE(cluster.error().empty()) << cluster.error();
  cluster::Machine* machine = &cluster.machine(0);
  auto engines = TxnEngine::OpenAll(std::span(&machine, 1), Small());
  ASSERT_FALSE(engines.has_value());
  EXPECT_NE(engines.error().find("records of configuration 2, newer than"), std::string::npos) << engines.error();
  EXPECT_NE(engines.error().find("machine.state's 1"), std::string::npos) << engines.error();
}

// Engines stop one by one. One whose checkpoint waits for the stamp of a machine whose engine
// stopped first gives the checkpoint up instead of waiting for that stamp forever.
TEST(CheckpointStopTest, AnEngineStopsWhileItsCheckpointWaitsForAStoppedMachine) {
  TempDir dir("recovery");
  EngineOptions e = Small();
  e.checkpoint_interval = std::chrono::seconds(0);  // a checkpoint each second once anything is logged
  TestCluster c(Options(dir.path, 3), e);
  {
    auto w = c.engine(1).NewWorker();
    auto t = *w->Begin({});
    Addr a = *t->Alloc(8);
    ASSERT_TRUE(t->Write(a, U64Bytes(1)) && t->Commit());
  }
  c.StopEngine(0);
  // Machine 1's next checkpoint starts within a second and waits for machine 0's stamp.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  auto stopped = std::async(std::launch::async, [&] { c.StopEngine(1); });
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "machine 1's engine did not stop: its checkpoint still waits for machine 0";
}

INSTANTIATE_TEST_SUITE_P(Machines, RecoveryTest, ::testing::Values(1, 3),
                         [](const auto& info) { return std::to_string(info.param) + "Machines"; });

}  // namespace
}  // namespace farmdb::txn
