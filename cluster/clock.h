// Global time (FaRMv2 §4.1, Fig. 2 and Fig. 4).
//
// SyncState is the pure interval arithmetic: it keeps the two best past synchronisations with the
// clock master (the one giving the highest lower bound and the one giving the lowest upper bound)
// and computes [L, U] from a local reading, widened by the drift bound epsilon.
//
// Clock is one machine's clock. On the clock master (the CM, machine 0) time is the local clock
// itself and the interval is [T, T]. Elsewhere it is disabled until the first synchronisation;
// Now() blocks while disabled. Thread-safe. Invariants: L is non-decreasing across all callers on
// one Clock (a stronger form of the paper's per-thread guarantee), and L <= master time <= U
// whenever the local clock's rate stays within the drift bound of the master's.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>

#include "cluster/time_source.h"
#include "cluster/types.h"

namespace farmdb::cluster {

// One synchronisation: local send time, master time in the reply, local receive time.
struct SyncSample {
  int64_t t_send = 0;
  int64_t t_cm = 0;
  int64_t t_recv = 0;
};

class SyncState {
 public:
  explicit SyncState(int64_t drift_ppm) : drift_ppm_(drift_ppm) {}

  // Fig. 2 SYNC: keep the new sample where it improves either bound at local time `now`.
  void Add(const SyncSample& s, int64_t now);
  bool Synced() const { return lower_.has_value(); }
  // Fig. 2 TIME. REQUIRES: Synced().
  Interval At(int64_t now) const;
  void Clear() { lower_.reset(), upper_.reset(); }

  int64_t LowerBound(const SyncSample& s, int64_t now) const;
  int64_t UpperBound(const SyncSample& s, int64_t now) const;

 private:
  int64_t drift_ppm_;
  std::optional<SyncSample> lower_;
  std::optional<SyncSample> upper_;
};

struct ClockOptions {
  int64_t drift_ppm = 1000;  // FaRMv2 uses 1000 ppm (§4.1)
};

class Clock {
 public:
  Clock(TimeSource* local, ClockOptions options, bool is_master);

  bool IsMaster() const { return is_master_; }
  int64_t LocalNanos() const { return local_->Nanos(); }

  // The current interval; blocks while the clock is disabled (not yet synchronised).
  Interval Now();
  std::optional<Interval> TryNow();
  // Fig. 4 GET_TS: U of Now(), returned once U is in the past at the master (waits out the
  // uncertainty), so L <= master time at call <= result <= master time at return.
  Timestamp GetTs();
  // Waits until Now().lower > t, i.e. t is in the past at the master.
  void WaitUntilPast(Timestamp t);

  // Records a synchronisation with the master (non-master only); enables the clock.
  void OnSync(const SyncSample& s);
  int64_t drift_ppm() const { return options_.drift_ppm; }

 private:
  Interval Monotonic(Interval iv);

  TimeSource* local_;
  ClockOptions options_;
  bool is_master_;
  std::mutex mu_;
  SyncState sync_;  // guarded by mu_
  std::atomic<bool> enabled_;
  std::atomic<Timestamp> last_lower_{0};
};

}  // namespace farmdb::cluster
