// Node: the process-level storage of one farmdb server, which every Session of its Engine shares.
//
// It owns an in-process cluster (cluster::LocalCluster: 1 machine by default, N machines with
// f = min(2, N - 1) backups per region when asked, DESIGN.md §1 "local" fabric), or, as a member
// of a multi-process cluster, this process's one machine of it (cluster::ProcessCluster, the
// "tcp" fabric; the CM bootstraps the catalog and publishes its root in ZooKeeper, the others
// wait for it), one txn::TxnEngine per machine, each machine's storage caches (B-tree internal nodes, sequence
// blocks, catalog snapshots) and the catalog, bootstrapped at start; its root Addr is the
// catalog's name and lives here. Sessions are spread over the machines round-robin, each with its
// own txn::Worker on its machine.
//
// Restarts: a data directory of an earlier run is opened again: the engines recover what it
// committed (txn::TxnEngine::OpenAll) and the catalog root comes from the CM's state
// (cluster::MachineState::root_object).
//
// This header names txn/ and storage/ types only by declaration, so server/main.cc can create a
// Node without reaching below sql/ (DESIGN.md §1: layers depend one step down).
//
// Thread-safety: after Start, every method is thread-safe. Destroy the Node only after every
// Worker it handed out is gone (sessions hold a shared_ptr to it, so an Engine's sessions keep
// it alive). Destruction order: per-machine caches (their SequenceCache holds a Worker), then the
// engines (participant threads), then the cluster (fabric and machine threads).
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/lease.h"
#include "sql/exec/snapshot_registry.h"
#include "sql/system/cluster_stats.h"
#include "storage/catalog.h"

namespace farmdb::txn {
class Worker;
}

namespace farmdb::sql {

// Membership of a multi-process cluster (farmdb.zookeeper; cluster::ProcessCluster): the node
// holds one machine and reaches the others over TCP.
struct ClusterMembership {
  std::string zookeeper;       // farmdb.zookeeper
  std::string cluster_name;    // farmdb.cluster
  std::string fabric_address;  // farmdb.fabric_address
  int replicas = 3;            // farmdb.replicas: f + 1
  std::string secret;          // farmdb.cluster_secret; empty: the cluster's (generated)
  int64_t clock_offset_ns = 0;  // farmdb.test_clock_offset_ns (tests)
};

struct NodeOptions {
  // In-process machines; ignored for a member of a multi-process cluster (one machine).
  int machines = 1;
  std::optional<ClusterMembership> membership;
  // Regions and logs go to data_dir/cluster; empty: a temporary directory removed at shutdown
  // (tests).
  std::filesystem::path data_dir;
  uint64_t region_size = 64ull << 20;
  // Each machine's commit-log ring per sender (mapped memory, resident once used). Larger
  // transactions than half a ring stream their records (txn/README.md), so this bounds no
  // transaction; it sets how much commit traffic can be in flight to a machine.
  uint64_t log_size = 32ull << 20;
  // Check every region image's data at start (cluster::MachineOptions::verify_images).
  bool verify_images = false;
  // farmdb.lease_ms (cluster/lease.h); a cluster's creator fixes it for the cluster.
  std::chrono::milliseconds lease = cluster::kDefaultLease;
  // Where recovery and checkpoints report (txn::EngineOptions::log); null: stderr.
  std::function<void(const std::string&)> log;
  // Roles the catalog starts with besides the bootstrap superuser (oid 10): farmdb.conf's, so
  // pg_roles and psql's \du list the roles that can log in.
  std::vector<storage::RoleDef> roles;
};

class Node final : public ClusterStatsSource {
 public:
  static std::expected<std::shared_ptr<Node>, std::string> Start(NodeOptions options);
  ~Node() override;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  int machines() const;
  // The machine the next session runs on (round-robin).
  int NextMachine();
  // A new worker on `machine`, or nullptr when the machine's worker ids are exhausted.
  std::unique_ptr<txn::Worker> NewWorker(int machine);
  // The catalog through `machine`'s cache, and that machine's caches for user tables.
  storage::Catalog Catalog(int machine) const;
  storage::TableCaches Caches(int machine) const;
  // CHECKPOINT: every machine writes one now (txn::TxnEngine::Checkpoint).
  struct CheckpointError {
    bool no_space = false;
    std::string message;
  };
  std::expected<void, CheckpointError> Checkpoint();
  // Snapshots exported by pg_export_snapshot() in this Node's sessions.
  SnapshotRegistry& Snapshots() { return snapshots_; }
  // Publishes where this node serves SQL, for the other nodes and tools (a member of a
  // multi-process cluster; a no-op otherwise).
  std::expected<void, std::string> PublishSqlAddress(const std::string& address);

  // The farmdb_stat_* views' rows (ClusterStatsSource).
  std::vector<MachineStats> MachineStatistics() const override;
  std::vector<PeerStats> PeerStatistics() const override;
  std::vector<RegionStats> RegionStatistics() const override;

 private:
  struct Machine;  // node.cc: an engine and its caches
  struct Cluster;  // node.cc: the LocalCluster
  Node() = default;

  std::unique_ptr<Cluster> cluster_;
  std::vector<std::unique_ptr<Machine>> machines_;
  uint64_t catalog_root_ = 0;  // txn::Addr's raw bits
  std::atomic<uint32_t> next_machine_{0};
  SnapshotRegistry snapshots_;
};

}  // namespace farmdb::sql
