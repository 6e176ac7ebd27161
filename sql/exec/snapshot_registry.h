// SnapshotRegistry: the snapshots pg_export_snapshot() exported on one Node, by identifier,
// while their exporting transaction is open (PostgreSQL's pg_snapshot files). DESIGN.md §2 maps
// SET TRANSACTION SNAPSHOT to a FaRMv2 stale snapshot read at the exporter's read timestamp R
// (FaRMv2 §4.6): the exporter's open Txn keeps R registered with its worker, so the GC safe point
// stays at or below R until the exporter ends and removes its entries; an importer that begins
// after that may find R below GC_local and fails (snapshot_too_old, 40001).
// Identifiers look like PostgreSQL's (upper-case hex and '-': "<R>-<n>"), unique per Node.
// Thread-safety: every method is thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace farmdb::sql {

class SnapshotRegistry {
 public:
  struct Snapshot {
    uint64_t read_ts = 0;  // the exporter's R (txn::Timestamp)
    bool serializable = false;  // the exporter's isolation
  };
  // Registers `snapshot` under a new identifier, which it returns.
  std::string Export(Snapshot snapshot);
  // The snapshot exported as `id`, if its exporter has not removed it.
  std::optional<Snapshot> Find(std::string_view id) const;
  // The exporter's transaction ended: its identifiers are no longer valid.
  void Remove(std::span<const std::string> ids);

 private:
  mutable std::mutex mu_;
  uint64_t next_ = 1;
  std::map<std::string, Snapshot, std::less<>> snapshots_;
};

}  // namespace farmdb::sql
