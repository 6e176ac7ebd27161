// The server-wide table of cancellable sessions, keyed by BackendKeyData's process id.
//
// A CancelRequest arrives on a fresh connection with (pid, secret); if both match a registered
// session that is running a statement, its CancelFlag is set and the engine stops the statement
// with 57014 at its next safe point. A wrong secret or an idle session is ignored silently, as in
// PostgreSQL (the requester learns nothing either way).
//
// Thread-safety: all methods are safe from any thread. A target stays valid until Unregister
// returns; Unregister and Cancel serialise on the registry mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "sql/session.h"

namespace farmdb::server {

// Owned by a connection; `running` is true while a statement executes on it.
struct CancelTarget {
  int32_t secret = 0;
  sql::CancelFlag flag;
  std::atomic<bool> running{false};
};

class CancelRegistry {
 public:
  void Register(int32_t pid, CancelTarget* target);
  void Unregister(int32_t pid);
  // True when a running statement was asked to stop.
  bool Cancel(int32_t pid, int32_t secret);
  // Server shutdown: cancels every running statement.
  void CancelAll();

 private:
  std::mutex mu_;
  std::unordered_map<int32_t, CancelTarget*> targets_;  // guarded by mu_
};

// Marks a target as running for the lifetime of the scope (one statement).
class RunningScope {
 public:
  explicit RunningScope(CancelTarget& target) : target_(target) { target_.running.store(true); }
  ~RunningScope() { target_.running.store(false); }
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;

 private:
  CancelTarget& target_;
};

}  // namespace farmdb::server
