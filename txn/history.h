// History recording and an offline checker for the transaction protocol (DESIGN.md §5).
//
// A workload records every transaction it runs, committed or aborted: options, R, W, real-time
// begin/end, and the first 8 bytes of every value it read (before writing that key) or wrote.
//
// The checker uses the protocol's serialisation points as the witness order (FaRMv2 §7,
// Lemma 5): read-write transactions at W, read-only ones at R. It checks
//   - opacity: every transaction, committed or aborted, read exactly the committed state at R;
//   - serializability: every committed serializable read-write transaction's reads equal the
//     committed state just before W (so the witness order explains everything it saw);
//   - strictness: if a strict transaction ended (in real time) before a strict transaction
//     began, its serialisation point is earlier (SI: the later R >= the earlier W);
//   - tied write timestamps: two committed writes of one key never share a timestamp, nor do two
//     committed serializable read-write transactions where one wrote what the other read (the
//     witness order must be an order);
//   - snapshot isolation: a committed SI writer's keys were not written by another commit with
//     a timestamp in (R, W) (first committer wins); reads differing at W are counted as write
//     skew, which SI allows.
// If the checks pass, the history is strictly serializable (opaque) in the witness order. Values
// must identify writes for aborted-write detection to be exact (the register workload writes
// unique values). Not thread-safe: merge per-thread histories first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "txn/txn.h"

namespace farmdb::txn {

struct TxnRecord {
  Isolation isolation = Isolation::kSerializable;
  bool strict = true;
  bool committed = false;
  Timestamp read_ts = 0;   // the R all reads hold at: the last one, since R may move forward
  Timestamp write_ts = 0;   // committed writers only
  int64_t begin_ns = 0;     // real time before Begin()
  int64_t end_ns = 0;       // real time after Commit() returned
  std::vector<std::pair<Addr, uint64_t>> reads;
  std::vector<std::pair<Addr, uint64_t>> writes;
};

struct CheckResult {
  std::vector<std::string> violations;  // at most a few, described
  uint64_t violation_count = 0;
  uint64_t write_skews = 0;  // SI commits whose reads changed before W (allowed under SI)
  uint64_t committed = 0;
  uint64_t aborted = 0;
  bool ok() const { return violation_count == 0; }
  std::string Summary() const;
};

// `initial` gives each key's value before the history (timestamp 0).
CheckResult CheckHistory(const std::vector<TxnRecord>& history,
                         const std::vector<std::pair<Addr, uint64_t>>& initial);

// Real time for begin_ns/end_ns (one process-wide monotonic clock).
int64_t RealNanos();

}  // namespace farmdb::txn
