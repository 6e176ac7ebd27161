// Leases (FaRM §5.1): every member holds a lease at the CM, and the CM holds a lease at every
// member. A machine whose grant to another expired suspects it of failure; a machine whose own
// lease expired stops serving (LeaseTable::Held): a new configuration is committed only once the
// leases granted to machines it leaves out have expired (FaRM §5.2, step 7), so a machine cut off
// from the others stops before they can go on without it.
//
// Machine runs the 3-way handshake on its clock sync (FaRMv2 §4.1 puts the sync on the lease
// messages): a member's sync request is its lease request; the CM's reply grants it and is the
// CM's own request; the member's next sync request carries its grant of that request. Pipelining
// the third message into the next request costs no extra message, and delays the CM's renewal
// by one sync interval, far below a lease (renewals come every sync interval, 500 us by default,
// where FaRM renews every 1/5 of a lease).
//
// All times are the local clock's nanoseconds (Clock::LocalNanos): no clock is compared with
// another's. A holder counts its lease from when it sent the request, before the grantor could
// have received it; a grantor counts from the request's arrival and adds the drift bound twice,
// so the holder's lease ends, in real time, before the grantor's view of it does.
//
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cluster/types.h"

namespace farmdb::cluster {

// farmdb.lease_ms's default: 100 renewal intervals, FaRM's 10 ms scaled for tcp on a loaded
// host (not yet measured here: farmdb_stat_peers.longest_renewal_gap_ms is what to measure).
// Sanitizer builds run many times slower and get 20x.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr std::chrono::milliseconds kDefaultLease{1000};
#else
inline constexpr std::chrono::milliseconds kDefaultLease{50};
#endif

class LeaseTable {
 public:
  // `machines` in the configuration, machine 0 the CM.
  LeaseTable(MachineId self, int machines, std::chrono::nanoseconds lease, int64_t drift_ppm);

  std::chrono::nanoseconds lease() const { return std::chrono::nanoseconds(lease_ns_); }

  // This machine's lease at `grantor` was granted on the request it sent at `requested_at`; the
  // grant arrived at `arrived_at`.
  void Granted(MachineId grantor, int64_t requested_at, int64_t arrived_at);
  // This machine granted `holder` a lease on a request that arrived at `arrived_at`.
  void Grant(MachineId holder, int64_t arrived_at);

  // Whether this machine may serve at `now`: alone, always; a member while it holds its lease at
  // the CM; the CM while it holds leases at a majority of the configuration, itself counted (a
  // new CM needs a majority of the members, FaRM §5.2 step 2, so one side of a partition at
  // most goes on).
  bool Held(int64_t now) const;
  // Whether the lease this machine granted `holder` has expired at `now` (never granted: no).
  bool Suspects(MachineId holder, int64_t now) const;
  // How long the lease this machine holds at `grantor` still runs at `now` (negative once it
  // expired); nullopt if none was granted.
  std::optional<std::chrono::nanoseconds> HeldFor(MachineId grantor, int64_t now) const;
  // The longest time so far from the request of one grant of this machine's lease at `grantor`
  // to the arrival of the next: how close renewals came to letting it expire (what
  // farmdb.lease_ms must stay above).
  std::chrono::nanoseconds LongestRenewalGap(MachineId grantor) const;

 private:
  bool IsPeer(MachineId m) const;
  int64_t GrantorExpiry(int64_t arrived_at) const;

  const MachineId self_;
  const int machines_;
  const int64_t lease_ns_;
  const int64_t grant_ns_;  // the lease plus twice the drift over it
  // Per machine: until when this machine holds its lease there, the request time of its latest
  // grant there, the longest renewal gap, and until when its grant to that machine runs (0:
  // never).
  struct Peer {
    std::atomic<int64_t> held_until{0};
    std::atomic<int64_t> last_requested{0};
    std::atomic<int64_t> longest_gap{0};
    std::atomic<int64_t> granted_until{0};
  };
  std::unique_ptr<Peer[]> peers_;
};

}  // namespace farmdb::cluster
