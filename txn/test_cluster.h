// TestCluster: a LocalCluster with a TxnEngine on every machine, for tests and benchmarks.
// Engines are destroyed before the cluster. Also: the replica check (after truncation every
// backup holds byte-identical objects to its primary).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cluster/local_cluster.h"
#include "txn/engine.h"

namespace farmdb::txn {

// The faults that must never break safety, as FaultTest runs histories under them: three
// machines whose regions have two backups, clocks skewed within the uncertainty bound (seeded),
// and fabric operations delayed up to 300 µs (so reordered) with 30% of clock-sync messages
// dropped (SetFaults(DelaysAndDroppedSync()) once the cluster runs).
cluster::LocalClusterOptions SkewedClusterOptions(uint64_t seed);
cluster::FaultPolicy DelaysAndDroppedSync();

class TestCluster {
 public:
  // How the engines open: in one OpenAll call, as in one process, or apart: each machine's in an
  // OpenAll call of its own on a thread of its own, the calls trading their first passes through
  // an exchange in memory (TxnEngine::RecoveryExchange) and waiting for each other once
  // attached, as the processes of a multi-process cluster do over the network.
  enum class Open { kTogether, kApart };
  TestCluster(cluster::LocalClusterOptions cluster_options, EngineOptions engine_options, Open open = Open::kTogether);
  ~TestCluster();

  cluster::LocalCluster& cluster() { return cluster_; }
  TxnEngine& engine(MachineId m) { return *engines_[m]; }
  int size() const { return cluster_.size(); }
  // Destroys machine m's engine (a clean stop of that one); engine(m) is invalid afterwards.
  void StopEngine(MachineId m) { engines_[m].reset(); }
  // Sum of a counter over all engines.
  uint64_t Commits();
  uint64_t Aborts(AbortReason r);

  // Waits until every engine's outgoing logs are drained (TxnEngine::LogsDrained): every record
  // sent, including TRUNCATEs, was processed by its receiver. REQUIRES: no transaction running,
  // every worker flushed its truncations, no machine paused.
  void WaitQuiescent();
  // WaitQuiescent, then compares every formatted slab's objects at the primary with each backup.
  // Returns "" or a description of a mismatch. REQUIRES: as WaitQuiescent.
  std::string CheckReplicas();

 private:
  cluster::LocalCluster cluster_;
  std::vector<std::unique_ptr<TxnEngine>> engines_;
};

}  // namespace farmdb::txn
