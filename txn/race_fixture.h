// RaceFixture: what the API tests that race one transaction against others share
// (read_refresh_test.cc, occ_locks_test.cc): an in-process cluster of n machines where every
// region has n-1 backups, a worker `self_` on machine 0 running the transactions under test,
// and `other_` on the last machine committing the objects (one uint64_t each, workload.h) and
// the writes they race with. Test-only; used from the test's thread.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "txn/test_cluster.h"
#include "txn/txn.h"
#include "txn/workload.h"

namespace farmdb::txn {

class RaceFixture {
 protected:
  explicit RaceFixture(int machines) : cluster_(ClusterOptions(machines), Patient()) {}

  static cluster::LocalClusterOptions ClusterOptions(int machines) {
    cluster::LocalClusterOptions o;
    o.machines = machines;
    o.replicas = machines - 1;
    o.region_size = 8 << 20;
    o.sync_interval = std::chrono::microseconds(300);
    return o;
  }
  // Semantics, not timing (see txn_test.cc): wait for heads locked by a commit in progress.
  static EngineOptions Patient() {
    EngineOptions e;
    e.locked_read_wait = std::chrono::seconds(2);
    return e;
  }
  // Strict by default: a fresh R is past every commit that finished before it (FaRMv2 §4.2).
  static TxnOptions Options(Isolation isolation, bool strict = true) {
    TxnOptions o;
    o.isolation = isolation;
    o.strict = strict;
    return o;
  }
  static TxnOptions Snapshot() { return Options(Isolation::kSnapshot); }

  // Commits `v` into a new object, from `other_`.
  Addr Create(uint64_t v) { return CommitNewObject(*other_, v); }
  // Commits `v` into `a`, from `other_`.
  CommitInfo Put(Addr a, uint64_t v) {
    auto t = *other_->Begin({});
    EXPECT_TRUE(t->Write(a, U64Bytes(v)));
    auto info = t->Commit();
    EXPECT_TRUE(info);
    return info.value_or(CommitInfo{});
  }
  static uint64_t Get(Txn& t, Addr a) {
    auto v = t.Read(a);
    EXPECT_TRUE(v.has_value());
    return v ? U64Value(*v) : ~uint64_t{0};
  }
  // The committed value, read in a fresh transaction.
  uint64_t Current(Addr a) {
    auto t = *other_->Begin({});
    uint64_t v = Get(*t, a);
    EXPECT_TRUE(t->Commit());
    return v;
  }

  TestCluster cluster_;
  std::unique_ptr<Worker> self_ = cluster_.engine(0).NewWorker();
  std::unique_ptr<Worker> other_ = cluster_.engine(static_cast<MachineId>(cluster_.size() - 1)).NewWorker();
};

}  // namespace farmdb::txn
