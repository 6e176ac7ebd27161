// Transaction logs: one ring buffer per sender -> receiver pair, physically on the receiver
// (a mapped file), appended by the sender with one-sided fabric writes (FaRM §3-4). Formats in
// txn/FORMATS.md.
//
// LogWriter (sender side, thread-safe) keeps the tail, a mirror of the receiver's head (a word in
// the sender's registered memory that the receiver updates lazily with a one-sided write) and the
// bytes reserved by commits in flight. A commit reserves space for all its records before it
// starts (FaRM §4 "Coordinators reserve space ... before starting the commit protocol"), so it
// never blocks on log space mid-protocol. Each record is padded to 32 bytes; a record that does
// not fit before the ring's end is preceded by a PAD record, so Append consumes at most twice the
// record's length from the reservation.
//
// A writer to the sender's own machine (local_ring given) appends with plain local memory writes
// in the same word order instead of through the fabric, as FaRM §4 does for participants on the
// coordinator's machine ("writes to the log use local memory accesses rather than RDMA"): the
// append is complete, and so acknowledged, when Append returns. All appends to that ring take
// this path, so their order is the order of Append calls.
//
// LogReader (receiver side, one consumer thread) returns complete records in ring order. A record
// is complete when its trailer word holds the mark of its start position, and the first word,
// re-read after the trailer, still gives the same length (see FORMATS.md for why both). The
// receiver copies each record into its durable log before consuming it (engine.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "cluster/fabric/fabric.h"
#include "txn/object.h"

namespace farmdb::txn {

inline constexpr uint64_t kRecordAlign = 32;
inline constexpr uint64_t kRecordPad = 6;  // record type of padding (records.h has the others)

inline uint64_t RecordMark(uint64_t position) { return position | (uint64_t{1} << 63); }

class LogWriter {
 public:
  // local_ring: the ring itself when to == self (the receiver is this machine), else empty.
  // Every record appended carries `configuration` (records.h).
  LogWriter(cluster::Fabric* fabric, cluster::MachineId self, cluster::MachineId to,
            uint64_t ring_size, const std::byte* head_mirror, uint32_t configuration,
            std::span<std::byte> local_ring = {});

  // Blocks until `bytes` can be reserved. REQUIRES: bytes <= ring_size / 2 (callers check).
  void Reserve(uint64_t bytes);
  // Reserves `bytes` if the ring has room for them now: used (tail - head) + reserved + bytes
  // <= ring_size.
  bool TryReserve(uint64_t bytes);
  void Unreserve(uint64_t bytes);
  // Appends an encoded record (length a multiple of kRecordAlign, trailer word last). Consumes
  // 2 * record.size() of the caller's reservation: returns the unused part to the pool.
  cluster::CompletionPtr Append(std::vector<std::byte> record);
  uint64_t ring_size() const { return size_; }
  // True when the receiver has consumed and published everything appended so far (head mirror
  // == tail): no record to this receiver is in flight or unprocessed.
  bool Drained();

 private:
  // The receiver's head as far as this writer knows: the mirror, never going back and never
  // past the tail. REQUIRES: mu_ held.
  uint64_t Head();
  // Writes bytes at ring offset `at`: through the fabric, or locally (then already complete).
  cluster::CompletionPtr WriteAt(uint64_t at, std::span<const std::byte> bytes);
  cluster::Fabric* fabric_;
  cluster::MachineId self_, to_;
  uint64_t size_;
  uint32_t configuration_;
  const std::byte* head_mirror_;
  std::span<std::byte> local_ring_;
  cluster::CompletionPtr local_done_;  // the completion of every local append: finished, ok
  std::mutex mu_;
  uint64_t tail_ = 0;      // absolute byte position, guarded by mu_
  uint64_t reserved_ = 0;  // guarded by mu_
  uint64_t head_ = 0;      // largest head seen in the mirror; guarded by mu_
};

class LogReader {
 public:
  // `head_word`: where the consumed position is kept as it moves, a word of a shared mapping
  // (the machine's log-heads file), so that after a process crash the records still in the ring
  // are found from there (TxnEngine::DrainRings). Null: nowhere.
  explicit LogReader(std::span<std::byte> ring, std::byte* head_word = nullptr, uint64_t head = 0)
      : ring_(ring), head_word_(head_word), head_(head) {}
  // The next complete record (PAD records are consumed on the way), not yet consumed, or nullopt.
  // Consumed bytes are zeroed (FORMATS.md), so only the current lap's writes are ever nonzero at
  // or after the head.
  std::optional<RawBytes> Peek();
  // Consumes the record Peek returned last: zeroes it and moves the head past it. The receiver
  // calls it once the record is in its durable log, so a crash in between leaves it in the ring.
  void Pop();
  uint64_t head() const { return head_; }

 private:
  // Zeroes `len` bytes at the head and moves past them.
  void Consume(uint64_t len);
  std::span<std::byte> ring_;
  std::byte* head_word_;
  uint64_t head_ = 0;     // absolute byte position
  uint64_t peeked_ = 0;   // length of the record Peek returned, 0 if none
};

}  // namespace farmdb::txn
