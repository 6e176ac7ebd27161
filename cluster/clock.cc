#include "cluster/clock.h"

#include <algorithm>
#include <thread>

namespace farmdb::cluster {

namespace {
// delta * (1e6 + sign*ppm) / 1e6 in 128-bit arithmetic, rounded away from the true value in the
// conservative direction by the caller's choice of sign.
int64_t Scale(int64_t delta, int64_t ppm_adjust) {
  __int128 v = static_cast<__int128>(delta) * (1'000'000 + ppm_adjust);
  return static_cast<int64_t>(v / 1'000'000);
}
}  // namespace

int64_t SyncState::LowerBound(const SyncSample& s, int64_t now) const {
  return s.t_cm + Scale(now - s.t_recv, -drift_ppm_);
}

int64_t SyncState::UpperBound(const SyncSample& s, int64_t now) const {
  // +1 covers the truncation in Scale so U never undershoots.
  return s.t_cm + Scale(now - s.t_send, drift_ppm_) + 1;
}

void SyncState::Add(const SyncSample& s, int64_t now) {
  if (!lower_ || LowerBound(s, now) > LowerBound(*lower_, now)) lower_ = s;
  if (!upper_ || UpperBound(s, now) < UpperBound(*upper_, now)) upper_ = s;
}

Interval SyncState::At(int64_t now) const {
  int64_t l = std::max<int64_t>(0, LowerBound(*lower_, now));
  int64_t u = std::max<int64_t>(l, UpperBound(*upper_, now));
  return {static_cast<Timestamp>(l), static_cast<Timestamp>(u)};
}

Clock::Clock(TimeSource* local, ClockOptions options, bool is_master)
    : local_(local), options_(options), is_master_(is_master), sync_(options.drift_ppm),
      enabled_(is_master) {}

Interval Clock::Monotonic(Interval iv) {
  // L non-decreasing (FaRMv2 §4.1). U stays >= the raised L because every L ever returned was
  // <= master time then, and master time only grows.
  Timestamp prev = last_lower_.load(std::memory_order_acquire);
  while (iv.lower > prev &&
         !last_lower_.compare_exchange_weak(prev, iv.lower, std::memory_order_acq_rel)) {
  }
  if (prev > iv.lower) iv.lower = prev;
  if (iv.upper < iv.lower) iv.upper = iv.lower;
  return iv;
}

std::optional<Interval> Clock::TryNow() {
  if (is_master_) {
    Timestamp t = static_cast<Timestamp>(local_->Nanos());
    return Monotonic({t, t});
  }
  if (!enabled_.load(std::memory_order_acquire)) return std::nullopt;
  Interval iv;
  {
    std::lock_guard lock(mu_);
    iv = sync_.At(local_->Nanos());
  }
  return Monotonic(iv);
}

Interval Clock::Now() {
  for (;;) {
    if (auto iv = TryNow()) return *iv;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void Clock::WaitUntilPast(Timestamp t) {
  for (;;) {
    Interval iv = Now();
    if (iv.lower > t) return;
    // Sleep most of the remaining gap (in local time, which runs within epsilon of the master's),
    // then poll.
    uint64_t gap = t - iv.lower;
    if (gap > 20'000) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(gap / 2));
    } else {
      std::this_thread::yield();
    }
  }
}

Timestamp Clock::GetTs() {
  Interval iv = Now();
  WaitUntilPast(iv.upper);
  return iv.upper;
}

void Clock::OnSync(const SyncSample& s) {
  {
    std::lock_guard lock(mu_);
    sync_.Add(s, local_->Nanos());
  }
  enabled_.store(true, std::memory_order_release);
}

}  // namespace farmdb::cluster
