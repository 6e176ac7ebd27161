// TimeSource: the runtime seam for a machine's local clock (the paper's cycle counter).
//
// SystemTimeSource reads CLOCK_MONOTONIC_RAW (DESIGN.md §4). SkewedTimeSource wraps another
// source with a fixed offset and a rate drift, so tests can give each simulated machine its own
// skewed and drifting clock within the configured drift bound. All implementations are
// thread-safe; Nanos() never decreases on one source (FakeTimeSource: unless the test sets it back).
#pragma once

#include <atomic>
#include <cstdint>

namespace farmdb::cluster {

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual int64_t Nanos() = 0;
};

class SystemTimeSource final : public TimeSource {
 public:
  int64_t Nanos() override;
};

// Reads offset_ns + (base->Nanos() - base at construction) * (1 + drift_ppm / 1e6): a clock
// that is skewed by offset_ns and runs drift_ppm fast (or slow, if negative).
class SkewedTimeSource final : public TimeSource {
 public:
  SkewedTimeSource(TimeSource* base, int64_t offset_ns, double drift_ppm);
  int64_t Nanos() override;

 private:
  TimeSource* const base_;
  const int64_t offset_ns_;
  const int64_t base_origin_;
  const double drift_ppm_;
};

// A machine's clock offset and rate against real time (tests; SkewedTimeSource).
struct ClockSkew {
  int64_t offset_ns = 0;
  // What the clock bound (ClockOptions::drift_ppm) must cover is each machine's rate relative to
  // machine 0, the CM, whose clock is master time: (1 + d) / (1 + d_cm) - 1 = (d - d_cm) /
  // (1 + d_cm). Keeping every |drift| strictly below bound / 2 (the tests use <= 0.45 x bound)
  // keeps that within the bound; exactly bound / 2 on both sides exceeds it by a second-order term.
  double drift_ppm = 0;
};

// A manually advanced source for pure unit tests.
class FakeTimeSource final : public TimeSource {
 public:
  explicit FakeTimeSource(int64_t start = 0) : now_(start) {}
  int64_t Nanos() override { return now_.load(std::memory_order_acquire); }
  void Advance(int64_t ns) { now_.fetch_add(ns, std::memory_order_acq_rel); }
  void Set(int64_t ns) { now_.store(ns, std::memory_order_release); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace farmdb::cluster
