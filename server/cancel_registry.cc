#include "server/cancel_registry.h"

namespace farmdb::server {

void CancelRegistry::Register(int32_t pid, CancelTarget* target) {
  std::lock_guard lock(mu_);
  targets_[pid] = target;
}

void CancelRegistry::Unregister(int32_t pid) {
  std::lock_guard lock(mu_);
  targets_.erase(pid);
}

bool CancelRegistry::Cancel(int32_t pid, int32_t secret) {
  std::lock_guard lock(mu_);
  auto it = targets_.find(pid);
  if (it == targets_.end() || it->second->secret != secret) return false;
  if (!it->second->running.load()) return false;
  it->second->flag.Request();
  return true;
}

void CancelRegistry::CancelAll() {
  std::lock_guard lock(mu_);
  for (auto& [pid, target] : targets_) {
    if (target->running.load()) target->flag.Request();
  }
}

}  // namespace farmdb::server
