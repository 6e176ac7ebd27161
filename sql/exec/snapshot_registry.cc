#include "sql/exec/snapshot_registry.h"

#include <fmt/format.h>

namespace farmdb::sql {

std::string SnapshotRegistry::Export(Snapshot snapshot) {
  std::lock_guard l(mu_);
  std::string id = fmt::format("{:016X}-{:08X}", snapshot.read_ts, next_++);
  snapshots_.emplace(id, snapshot);
  return id;
}

std::optional<SnapshotRegistry::Snapshot> SnapshotRegistry::Find(std::string_view id) const {
  std::lock_guard l(mu_);
  auto it = snapshots_.find(id);
  if (it == snapshots_.end()) return std::nullopt;
  return it->second;
}

void SnapshotRegistry::Remove(std::span<const std::string> ids) {
  std::lock_guard l(mu_);
  for (const std::string& id : ids) snapshots_.erase(id);
}

}  // namespace farmdb::sql
