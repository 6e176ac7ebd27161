#include "cluster/lease.h"

#include <algorithm>

namespace farmdb::cluster {

namespace {
// Raises `a` to `v` if `v` is larger (concurrent handlers may apply grants out of order).
void RaiseTo(std::atomic<int64_t>& a, int64_t v) {
  int64_t cur = a.load(std::memory_order_relaxed);
  while (v > cur && !a.compare_exchange_weak(cur, v, std::memory_order_acq_rel)) {
  }
}
}  // namespace

LeaseTable::LeaseTable(MachineId self, int machines, std::chrono::nanoseconds lease, int64_t drift_ppm)
    : self_(self), machines_(machines), lease_ns_(lease.count()),
      grant_ns_(lease.count() + 2 * lease.count() * drift_ppm / 1'000'000), peers_(new Peer[machines]) {}

bool LeaseTable::IsPeer(MachineId m) const {
  // A member leases only with the CM; the CM with every member.
  return m < static_cast<MachineId>(machines_) && m != self_ && (self_ == 0 || m == 0);
}

void LeaseTable::Granted(MachineId grantor, int64_t requested_at, int64_t arrived_at) {
  if (!IsPeer(grantor)) return;
  Peer& p = peers_[grantor];
  RaiseTo(p.held_until, requested_at + lease_ns_);
  int64_t previous = p.last_requested.load(std::memory_order_relaxed);
  RaiseTo(p.last_requested, requested_at);
  if (previous != 0) RaiseTo(p.longest_gap, arrived_at - previous);
}

void LeaseTable::Grant(MachineId holder, int64_t arrived_at) {
  if (IsPeer(holder)) RaiseTo(peers_[holder].granted_until, arrived_at + grant_ns_);
}

bool LeaseTable::Held(int64_t now) const {
  if (machines_ == 1) return true;
  if (self_ != 0) return peers_[0].held_until.load(std::memory_order_acquire) > now;
  int held = 1;
  for (int m = 1; m < machines_; ++m) held += peers_[m].held_until.load(std::memory_order_acquire) > now;
  return 2 * held > machines_;
}

bool LeaseTable::Suspects(MachineId holder, int64_t now) const {
  if (!IsPeer(holder)) return false;
  int64_t until = peers_[holder].granted_until.load(std::memory_order_acquire);
  return until != 0 && until <= now;
}

std::optional<std::chrono::nanoseconds> LeaseTable::HeldFor(MachineId grantor, int64_t now) const {
  if (!IsPeer(grantor)) return std::nullopt;
  int64_t until = peers_[grantor].held_until.load(std::memory_order_acquire);
  if (until == 0) return std::nullopt;
  return std::chrono::nanoseconds(until - now);
}

std::chrono::nanoseconds LeaseTable::LongestRenewalGap(MachineId grantor) const {
  if (!IsPeer(grantor)) return {};
  return std::chrono::nanoseconds(peers_[grantor].longest_gap.load(std::memory_order_relaxed));
}

}  // namespace farmdb::cluster
