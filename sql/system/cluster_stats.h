// What the farmdb_stat_* views (farmdb_stat.cc) show of the node a session is connected to:
// its machines (every machine of an in-process cluster, this process's one of a multi-process
// cluster) with their aborts by reason, when they last heard from the others, and the region
// replicas they hold. sql::Node
// provides it; tools/farmctl reads it from every node.
//
// Thread-safety: implementations are called from any session's thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace farmdb::sql {

struct MachineStats {
  uint32_t machine = 0;
  bool is_cm = false;
  uint64_t configuration = 0;
  uint32_t machines = 0;          // in the cluster
  uint64_t commits = 0;           // coordinated by this machine's workers, read-only ones included
  uint64_t read_only_commits = 0;
  uint64_t aborts = 0;
  // aborts by txn::AbortReason, every reason (its name: lock_conflict, ...), zeros included.
  std::vector<std::pair<std::string, uint64_t>> aborts_by_reason;
  std::optional<int64_t> clock_uncertainty_ns;  // U - L of its clock now; nullopt: not synchronised
  double lease_ms = 0;       // farmdb.lease_ms
  bool lease_held = false;   // it holds its lease (cluster::Machine::LeaseHeld): it serves
  uint64_t suspicions = 0;   // times a lease it granted expired
  // The tcp fabric's counters since the process started (nullopt in a single process).
  std::optional<uint64_t> fabric_frames_out, fabric_bytes_out, fabric_system_calls;
};

struct PeerStats {
  uint32_t machine = 0;  // the local machine
  uint32_t peer = 0;
  std::optional<double> heard_ms_ago;  // over the clock sync (cluster::Machine::SinceHeard)
  // Leases with the peer (the CM has one with every member, a member one with the CM):
  std::optional<double> lease_left_ms;  // of the one `machine` holds there; negative: expired
  std::optional<double> longest_renewal_gap_ms;  // of that one (cluster::LeaseTable)
  bool suspected = false;  // the lease `machine` granted `peer` expired
};

struct RegionStats {
  uint32_t region = 0;
  uint64_t size = 0;
  uint32_t primary = 0;
  std::vector<uint32_t> backups;
  uint32_t machine = 0;  // the local machine holding this replica
  uint64_t digest = 0;   // of the replica's objects (txn::ReplicaDigest)
};

class ClusterStatsSource {
 public:
  virtual ~ClusterStatsSource() = default;
  virtual std::vector<MachineStats> MachineStatistics() const = 0;
  virtual std::vector<PeerStats> PeerStatistics() const = 0;
  // Hashes every replica it lists: reads all of its region memory.
  virtual std::vector<RegionStats> RegionStatistics() const = 0;
};

}  // namespace farmdb::sql
