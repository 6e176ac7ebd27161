// RegionMap: region id -> placement (a primary and f backups on distinct machines), FaRM §3.
// Region ids come from the CM's counter, start at 1 (0 is never a region, so address 0 is null).
// Each machine keeps its own copy, filled by allocation and by lookups at the CM.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <vector>

#include "cluster/thread_front.h"
#include "cluster/types.h"

namespace farmdb::cluster {

// Data regions hold objects and are replicated; old-version regions hold a primary's old
// versions (FaRMv2 §4.4), are never replicated, and do not outlive the process (a restart
// begins with no transaction that could read them).
enum class RegionKind : uint8_t { kData, kOldVersions };

struct RegionPlacement {
  RegionId id = 0;
  uint64_t size = 0;
  MachineId primary = kNoMachine;
  std::vector<MachineId> backups;
  RegionKind kind = RegionKind::kData;
  friend bool operator==(const RegionPlacement&, const RegionPlacement&) = default;
};

class RegionMap {
 public:
  std::optional<RegionPlacement> Get(RegionId id) const {
    std::shared_lock lock(mu_);
    auto it = map_.find(id);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  // The primary alone: object reads need nothing else, and copying the backups would allocate.
  // Every object read asks, so hits come from the thread's front (thread_front.h).
  std::optional<MachineId> Primary(RegionId id) const {
    const uint64_t version = primaries_.version();
    if (auto hit = primaries_.Find(id, version)) return *hit;
    std::shared_lock lock(mu_);
    auto it = map_.find(id);
    if (it == map_.end()) return std::nullopt;
    primaries_.Fill(id, it->second.primary, version);
    return it->second.primary;
  }
  void Put(const RegionPlacement& p) {
    {
      std::unique_lock lock(mu_);
      map_[p.id] = p;
    }
    primaries_.Invalidate();
  }
  std::vector<RegionPlacement> All() const {
    std::shared_lock lock(mu_);
    std::vector<RegionPlacement> out;
    for (auto& [id, p] : map_) out.push_back(p);
    return out;
  }

 private:
  mutable std::shared_mutex mu_;
  std::map<RegionId, RegionPlacement> map_;
  ThreadFront<RegionId, MachineId, 64> primaries_;
};

}  // namespace farmdb::cluster
