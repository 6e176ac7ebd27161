// Transaction log records (FaRM Table 1; formats in txn/FORMATS.md) and the LOCK-REPLY message.
// Every record can carry piggybacked truncations: ids of transactions the coordinator has
// finished with at this receiver (FaRM §4 step 5).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "txn/address.h"
#include "txn/object.h"

namespace farmdb::txn {

enum class RecordType : uint8_t {
  kLock = 1,
  kCommitBackup = 2,
  kCommitPrimary = 3,
  kAbort = 4,
  kTruncate = 5,
  // Not part of a transaction: a sender's durability watermark (write_ts), txn = its machine
  // (durability.h "Several machines").
  kWatermark = 7,
};

using TxnId = uint64_t;  // coordinator machine (16) | worker (16) | sequence (32)
inline TxnId MakeTxnId(MachineId m, uint32_t worker, uint32_t seq) {
  return (uint64_t{m} << 48) | (uint64_t{worker & 0xffff} << 32) | seq;
}
inline MachineId TxnMachine(TxnId id) { return static_cast<MachineId>(id >> 48); }
inline uint32_t TxnWorker(TxnId id) { return static_cast<uint32_t>((id >> 32) & 0xffff); }

// The most truncations one record carries.
inline constexpr size_t kMaxPiggybacked = 32;

inline constexpr Timestamp kAnyVersion = ~Timestamp{0};
enum ObjectFlags : uint32_t { kObjNew = 1, kObjFree = 2 };

struct RecordObject {
  Addr addr;
  Timestamp expected = kAnyVersion;  // version read (LOCK checks it); kAnyVersion for new objects
  uint32_t flags = 0;
  uint32_t lines = 1;
  // PayloadCapacity(lines) bytes, not owned: at a coordinator a view into its transaction's write
  // set (commit.cc Plan), which stays unchanged until the commit ends; in a decoded record a view
  // into the record's `buffers`. A commit thus copies each written object into its log records
  // and its head, not into a RecordObject first.
  std::span<const std::byte> payload;
};

// A record's first word carries, in bits 40-63, the configuration its sender ran in (FaRM §5:
// records and messages carry the configuration id, so that recovery and reconfiguration can tell
// records of an older configuration apart). Senders stamp it into the encoded record
// (SetRecordConfiguration: LogWriter for ring records, the local commit's logging for its own).
inline constexpr uint32_t kMaxConfiguration = (1u << 24) - 1;

struct Record {
  RecordType type = RecordType::kTruncate;
  uint32_t configuration = 0;  // as decoded; encoding writes 0 (above)
  TxnId txn = 0;
  Timestamp write_ts = 0;
  std::vector<TxnId> truncated;
  std::vector<RecordObject> objects;
  // The encoded bytes the objects' payloads view (DecodeRecord): one buffer per record received,
  // since a backup merges the records of a streamed COMMIT-BACKUP into one (participant.cc).
  std::vector<RawBytes> buffers;

  // Move-only: a copy's objects would view the original's buffers.
  Record() = default;
  Record(Record&&) = default;
  Record& operator=(Record&&) = default;
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;
};

// Encodes with room for the trailer; length is a multiple of 32.
std::vector<std::byte> EncodeRecord(const Record& r);
uint64_t EncodedSize(const Record& r);
// The same for a record of `r`'s type, transaction, timestamp and truncations whose objects are
// `objects` (r.objects is ignored): a part of a write set, without copying it into a Record.
std::vector<std::byte> EncodeRecord(const Record& r, std::span<const RecordObject> objects);
uint64_t EncodedSize(const Record& r, std::span<const RecordObject> objects);
// The bytes one object takes in an encoded record (its header and padded payload).
uint64_t EncodedSize(const RecordObject& o);
// The record keeps `bytes` in `buffers`, and its objects' payloads are views into them.
std::optional<Record> DecodeRecord(RawBytes bytes);
// The type, transaction, timestamp and truncations of an encoded record, without its objects
// (recovery's first pass over the durable log).
std::optional<Record> DecodeRecordHeader(std::span<const std::byte> bytes);
// The whole record, its objects' payloads viewing `bytes` (recovery's replay).
std::optional<Record> DecodeRecordView(std::span<const std::byte> bytes);
// REQUIRES: `encoded` holds an encoded record; configuration <= kMaxConfiguration.
void SetRecordConfiguration(std::span<std::byte> encoded, uint32_t configuration);

// Entries of a machine's durable log (cluster::Wal record types; FORMATS.md "Durable log"): a
// transaction record as received (or as a local coordinator wrote it), and a stamp (a u64
// timestamp: every transaction with W <= it has all its records at this machine before it).
enum WalType : uint32_t { kWalTxnRecord = 1, kWalStamp = 2 };

inline constexpr uint16_t kMsgLockReply = 100;
// Durability across machines (durability.h): a machine's durable stamp (u64), and a commit's
// demand for stamps at or above a timestamp (u64).
inline constexpr uint16_t kMsgDurable = 101;
inline constexpr uint16_t kMsgDurableDemand = 102;
// What a primary's LOCK came to, from best to worst (a commit fails with the worst of its
// primaries'). kNoSpace: a head could not be copied to an old version because the old-version
// store needed a new region and the disk had no room for it (not a conflict: retrying would fail
// the same way).
enum class LockOutcome : uint8_t { kLocked, kConflict, kNoSpace };
struct LockReply {
  TxnId txn = 0;
  LockOutcome outcome = LockOutcome::kConflict;
  Timestamp max_head_ts = 0;  // the commit's W must exceed every locked head's timestamp
};
std::vector<std::byte> EncodeLockReply(const LockReply& r);
std::optional<LockReply> DecodeLockReply(std::span<const std::byte> bytes);

}  // namespace farmdb::txn
