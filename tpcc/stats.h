// stats: what a run measures. Each driver thread fills its own Stats without locks; the driver
// merges them at the end.
//
// Counters and latencies cover the measured window only (a transaction counts when it
// completes inside it); the 10 ms throughput buckets cover the whole run, warm-up included, so
// the timeline shows how the system got to its steady state.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tpcc/inputs.h"

namespace farmdb::tpcc {

inline constexpr double kBucketSeconds = 0.010;

struct TypeStats {
  int64_t committed = 0;
  int64_t rolled_back = 0;  // New-Order's intended rollbacks: completed, not committed
  int64_t retries = 0;      // attempts that ended in 40001 or 40P01 and were run again
  int64_t failed = 0;       // given up after the last allowed attempt
  int most_attempts = 0;    // by one transaction: starvation shows here
  std::vector<uint32_t> latency_us;  // per completed transaction, retries included

  int64_t Completed() const { return committed + rolled_back; }
};

// Per 10 ms of the run: commits by type, then retried attempts.
using Bucket = std::array<uint32_t, kTxnTypes + 1>;

struct Stats {
  std::array<TypeStats, kTxnTypes> types;
  std::vector<Bucket> buckets;
  std::map<std::string, int64_t> abort_reasons;  // "Type: SQLSTATE message: detail" (numbers as N)
  // Retries after the measured window, by transactions in flight when it closed: with nothing
  // else running they should succeed at once, so many of these point at the server.
  std::map<std::string, int64_t> late_abort_reasons;
  int64_t delivery_skipped = 0;                  // districts a Delivery found nothing to deliver in

  TypeStats& of(TxnType t) { return types[static_cast<size_t>(t)]; }
  const TypeStats& of(TxnType t) const { return types[static_cast<size_t>(t)]; }
  // Adds one to a bucket column, growing the timeline as needed.
  void Count(double seconds_since_start, size_t column);
  void Merge(Stats&& other);
};

// The p-quantile (0 < p <= 1) of `values` in milliseconds; sorts them. 0 when empty.
double QuantileMs(std::vector<uint32_t>& values, double p);

// The abort-reason key of an error: digits collapsed so that reasons group.
std::string AbortReason(const std::string& sqlstate, const std::string& message, const std::string& detail);

}  // namespace farmdb::tpcc
