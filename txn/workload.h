// Seeded concurrent workloads over a TestCluster, recording histories for CheckHistory
// (history.h). Each has setup (create the keys), run (threads on every machine, each with its
// own Worker and an Rng forked from the seed) and check phases. The same seed replays the same
// choices of keys, values and options; thread interleavings differ run to run.
//
//   Registers: transactions read and write 1-4 of `keys` registers; every write writes a value
//   never written before, so the checker can tell exactly which write a read saw.
//   Bank: transfers between accounts (read both, move an amount) and audits (read all); the total
//   is conserved and every audit, committed or not, must see the exact total (opacity).
//   WriteSkew: SI transactions read two registers and write one of them, the classic write-skew
//   shape.
#pragma once

#include <string>
#include <vector>

#include "txn/history.h"
#include "txn/test_cluster.h"

namespace farmdb::txn {

// The workloads' objects hold one uint64_t; these convert it to and from an object payload.
std::vector<std::byte> U64Bytes(uint64_t v);
uint64_t U64Value(const std::vector<std::byte>& payload);
// A new 8-byte object holding `value`, committed from `w` (test set-up; aborts the test run if
// it fails).
Addr CommitNewObject(Worker& w, uint64_t value = 0);

struct WorkloadOptions {
  uint64_t seed = 1;
  int threads_per_machine = 2;
  int txns_per_thread = 100;
  int keys = 8;
  double read_only_fraction = 0.2;
  double snapshot_fraction = 0.0;    // share of transactions run under SI
  double non_strict_fraction = 0.0;  // share run non-strict
  // Off: commits do not wait for the log to be on disk, so transactions overlap as they did
  // before durability (timing-sensitive mutants need the overlap to show).
  bool sync_commit = true;
};

struct WorkloadResult {
  std::vector<TxnRecord> history;
  std::vector<std::pair<Addr, uint64_t>> initial;
  std::string invariant_error;  // bank: first broken invariant, or ""
};

enum class Workload { kRegisters, kBank, kWriteSkew };

WorkloadResult RunWorkload(Workload w, TestCluster& cluster, const WorkloadOptions& options);

}  // namespace farmdb::txn
