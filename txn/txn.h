// The transaction API: the only way the layers above reach data (DESIGN.md "txn/ API").
//
//   auto worker = engine.NewWorker();              // one per application thread
//   auto t = worker->Begin({.isolation = Isolation::kSerializable});
//   auto v = t->Read(addr);  t->Write(addr, bytes);  auto a = t->Alloc(100);  t->Free(addr);
//   auto r = t->Commit();                          // or t->Abort()
//
// Every call returns std::expected<T, TxnError>. A conflict aborts the transaction with a typed
// AbortReason (the SQL layer maps IsRetryable() errors to SQLSTATE 40001); after an abort every
// further call returns the same error. Reads happen at the read timestamp R and always see one
// consistent snapshot (opacity, FaRMv2 §4.2): the head version if its timestamp <= R, otherwise an
// old version from the chain; a read that cannot be served aborts early (§4.7).
// A Txn is used by one thread at a time and must not outlive its Worker.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "cluster/fabric/fabric.h"
#include "txn/address.h"
#include "txn/object.h"
#include "txn/read_set.h"
#include "txn/records.h"

namespace farmdb::txn {

enum class Isolation { kSerializable, kSnapshot };

struct TxnOptions {
  Isolation isolation = Isolation::kSerializable;
  bool strict = true;       // false: R = L without waiting (FaRMv2 §4.2 non-strict)
  bool read_only = false;   // Write/Alloc/Free are refused; Commit is a no-op
  // Stale snapshot read (§4.6): read at this R. Requires read_only and R >= GC_local; the caller
  // keeps the transaction that produced R open meanwhile (it holds back the GC safe point).
  std::optional<Timestamp> snapshot_ts;
  // Serializable transactions that expect to write treat a read of an old version as they do
  // once they have written (Txn "Reads newer than R").
  bool expect_writes = false;
};

enum class AbortReason : uint8_t {
  kLockConflict,       // LOCK failed: locked by another transaction or version changed
  kValidationFailure,  // a read object changed or is locked at validation
  kLockedOnRead,       // the head version stayed locked while reading
  kOldVersionGone,     // R is older than the head and no old version covers R
  kEagerValidation,    // serializable with writes read an old version: validation would fail
  kSnapshotTooOld,     // snapshot_ts < GC_local
  kUser,               // Abort() was called
  kCount,
};
std::string_view AbortReasonName(AbortReason r);

enum class TxnErrorCode : uint8_t {
  kAborted,          // see reason; retryable (40001) unless kUser
  kNotAllocated,     // read or write of an address that holds no object at R
  kInvalidArgument,  // misuse: too large, write in a read-only transaction, unknown region
  kInternal,         // an invariant broke (e.g. a read reached freed old-version memory)
  kOutOfSpace,       // a new object, or an old version at commit, needed a new region, and a
                     // disk had no room for it
  kStaleWrites,      // Commit only: re-applicable writes went stale; the transaction is still
                     // open (Txn::MarkReapplicable)
  kUnavailable,      // a machine the transaction needs did not answer (its connection failed
                     // or timed out, cluster::FabricError); it did not commit
  kOutcomeUnknown,   // Commit only: every remote primary's COMMIT-PRIMARY failed in flight; each
                     // may have landed, so the transaction may have committed
  kFenced,           // Begin or Commit: this machine does not hold its lease (cluster/lease.h),
                     // so it may be outside the configuration; the transaction did not commit
};

// What a failed one-sided operation means for a transaction: memory that is not there (an
// address in no region, or past its end) is the caller's misuse; any other failure is the
// fabric's (kUnavailable).
TxnErrorCode FabricFailure(cluster::FabricError e);

struct TxnError {
  TxnErrorCode code = TxnErrorCode::kAborted;
  AbortReason reason = AbortReason::kUser;
  bool IsRetryable() const { return code == TxnErrorCode::kAborted && reason != AbortReason::kUser; }
};

// Counters per abort reason and commit outcome; read with Snapshot().
struct TxnCounters {
  std::array<std::atomic<uint64_t>, static_cast<size_t>(AbortReason::kCount)> aborts{};
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> read_only_commits{0};
  std::atomic<uint64_t> torn_read_retries{0};
  // Serializable transactions that moved R forward instead of aborting kEagerValidation (txn.h
  // "Reads newer than R").
  std::atomic<uint64_t> read_ts_advances{0};
  // Commits with re-applicable writes (Txn::MarkReapplicable): LOCKs tried again after meeting a
  // committing transaction's lock, and Commit calls that returned kStaleWrites.
  std::atomic<uint64_t> lock_retries{0};
  std::atomic<uint64_t> stale_write_returns{0};
  // Objects a Txn fetched (Read, or Write/Free of an object not read yet), by where the primary
  // copy lives; re-reads served from the read or write set and torn-read retries do not count.
  // Storage benchmarks divide these by operations to get object reads per lookup.
  std::atomic<uint64_t> local_reads{0};
  std::atomic<uint64_t> remote_reads{0};
  void Count(AbortReason r) { aborts[static_cast<size_t>(r)].fetch_add(1, std::memory_order_relaxed); }
  uint64_t Aborts(AbortReason r) const { return aborts[static_cast<size_t>(r)].load(); }
};

class Worker;

struct CommitInfo {
  Timestamp read_ts = 0;
  Timestamp write_ts = 0;  // 0 for read-only commits
  // Commit(kNoWait) only: the commit is synchronous, and not durable until
  // TxnEngine::WaitDurable(write_ts) returns.
  bool wait_durable = false;
};

// Commit's wait for durability (SetSyncCommit): in Commit, or left to the caller (kNoWait), who
// must not let anyone learn of the commit before TxnEngine::WaitDurable(write_ts). A caller that
// holds a mutex other fibers of its worker may take cannot wait in Commit: its fiber would park
// holding it (cluster/fibers.h).
enum class CommitWait { kDurable, kNoWait };

class Txn {
 public:
  ~Txn();
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;

  Timestamp read_ts() const { return read_ts_; }
  // The current commit try's id: a commit that tries LOCK again does so under a new one
  // (MarkReapplicable).
  TxnId id() const { return id_; }
  // The object's whole payload (PayloadCapacity of its size class).
  std::expected<std::vector<std::byte>, TxnError> Read(Addr addr);
  // The same bytes without a copy, for callers that decode them at once. The view stays valid
  // until this transaction next writes or frees `addr`, refreshes its read timestamp, commits or
  // aborts; reads of other objects leave it alone.
  std::expected<std::span<const std::byte>, TxnError> ReadView(Addr addr);
  // Replaces the payload prefix with `bytes` (the rest becomes zero). An object not read yet is
  // read first: LOCK checks that version, so any commit after R makes this transaction abort.
  std::expected<void, TxnError> Write(Addr addr, std::span<const std::byte> bytes);
  // A new zeroed object with room for `size` payload bytes, at the coordinator's machine.
  std::expected<Addr, TxnError> Alloc(size_t size);
  std::expected<void, TxnError> Free(Addr addr);
  std::expected<CommitInfo, TxnError> Commit(CommitWait wait = CommitWait::kDurable);
  // synchronous_commit (on by default): Commit returns only once this transaction, and every one
  // with a smaller write timestamp (those it may have read from), is durable against a power
  // loss (durability.h). Off: once its records are in the mapped logs, which a process crash
  // keeps. What is set when Commit is called decides.
  void SetSyncCommit(bool on) { sync_commit_ = on; }
  // The commit is synchronous whatever SetSyncCommit says (catalog changes, sequence blocks:
  // losing them would hand out an id twice or forget a table that data was committed into).
  void RequireSyncCommit() { sync_required_ = true; }
  // Aborts; `reason` is what the counters and later calls report (the caller found the conflict,
  // e.g. a stale write it cannot re-apply).
  void Abort(AbortReason reason = AbortReason::kUser);

  // Snapshot isolation only: moves R forward to a fresh read timestamp, taken as Begin takes one
  // (strict: GET_TS, waiting out the uncertainty; non-strict: L; never below the current R), so
  // later reads see every transaction committed before the call. SQL's READ COMMITTED calls it
  // at each statement (DESIGN.md §2: "a fresh read timestamp per statement").
  //  - Read set: dropped. The copies are views at the old R, and SI does not validate reads
  //    (FaRMv2 §4.2), so nothing depends on them; later reads fetch the version visible at the
  //    new R. Reads of objects in the write set still return this transaction's own writes.
  //  - Write set: kept, each entry still carrying the version it was first read at. LOCK checks
  //    that version (§4.2), so an object written before the refresh that another transaction
  //    commits to afterwards makes Commit fail (kLockConflict): first committer wins over the
  //    whole transaction. PostgreSQL's READ COMMITTED re-applies the UPDATE to the newest row
  //    version instead; a caller that can do the same marks the write (MarkReapplicable).
  //  - Opacity (§4.2) holds per interval between refreshes: the reads between two refreshes see
  //    one consistent snapshot; the transaction as a whole sees a sequence of snapshots, each
  //    newer than the last, which is what READ COMMITTED promises and no more.
  //  - GC (§4.5-4.6): the new R is registered with the worker before the old one is dropped, so
  //    OAT never passes a timestamp this transaction may still read at. A long READ COMMITTED
  //    block therefore no longer holds back GC at its first statement's R.
  // kInvalidArgument (the transaction stays usable) for serializable transactions, whose read set
  // must be validated at one W, and for stale-snapshot ones (snapshot_ts fixes R by definition).
  // After an abort it returns the abort's error.
  std::expected<void, TxnError> RefreshReadTimestamp();
  // Whether R moved since Begin (RefreshReadTimestamp, here or in Commit's kStaleWrites): reads
  // since are at a newer snapshot than the one this transaction's earlier writes came from.
  bool read_ts_moved() const { return read_ts_moved_; }

  // Reads newer than R. A serializable transaction with writes (or expect_writes) that finds an
  // object's head newer than R would fail validation if it read the older version (FaRMv2 §4.7
  // aborts it at once, kEagerValidation). Before aborting, it takes a fresh R (as Begin does)
  // and checks, with VALIDATE's one-sided header reads, that every object in its read set is
  // unlocked and still at the version it read; if so, every read so far is what the new R would
  // have returned, so the transaction continues at the new R and reads the head. Nothing else
  // changes: the write set keeps its versions (LOCK checks them), validation at commit checks
  // the read set against W as before, and opacity holds at the new R. This is the read refresh of
  // other optimistic SQL databases (CockroachDB's "read refreshing"); FaRMv2 has no SQL
  // statements between reads, so long conflict windows were not its concern. At most
  // kMaxReadTsAdvances tries per read, so a constantly rewritten object still aborts.
  // Transactions at a given snapshot (snapshot_ts) and pinned ones (below) keep their R.
  static constexpr int kMaxReadTsAdvances = 3;
  // Keeps R where it is for the rest of the transaction: its R was handed to others (SQL's
  // pg_export_snapshot), who must see what it sees.
  void PinReadTimestamp() { read_ts_pinned_ = true; }

  // Row locks in optimistic form (SQL's SELECT ... FOR UPDATE / FOR SHARE, DESIGN.md §2). FaRM
  // holds no lock before commit, so a lock is a promise that commit checks: the object does not
  // change between the read and the commit, at every isolation. Both read `addr` at R unless this
  // transaction has; an object it already wrote is left alone (LOCK checks the version it was
  // first read at); one it freed, or that holds nothing at R, is kNotAllocated.
  //
  // WriteUnchanged (exclusive): `addr` joins the write set as a rewrite of the version read, with
  // the same bytes. Commit LOCKs it at that version (FaRM §4 step 1), so a commit to it since the
  // read fails this transaction (kLockConflict), and a LOCK by another while this one holds it
  // fails the other; then it installs the bytes at W with an old version for readers below W
  // (FaRMv2 §4.4), so a transaction that read it before W and writes or rewrites it fails its own
  // LOCK (first committer wins, under SI too, §4.2): two concurrent lockers exclude each other.
  // Why not a cheaper "lock at commit, install nothing" entry: it leaves no trace, so a second
  // locker that read the object before this commit and LOCKs it after commits too, and under SI
  // two "exclusive" sections over one object could both commit (write skew through the lock).
  // With a new version, what would remain to save is the payload in LOCK records; backups still
  // need whole values (they apply COMMIT-BACKUPs at truncation, out of order across
  // coordinators, §4.8-4.9). So it costs what a Write of the same bytes costs. kInvalidArgument
  // in read-only transactions.
  std::expected<void, TxnError> WriteUnchanged(Addr addr);
  // ValidateAtCommit (shared): the VALIDATE phase (FaRM §4 step 2) checks that `addr` is unlocked
  // and still at the version first seen, under snapshot isolation too, which otherwise validates
  // nothing (FaRMv2 §4.2); under serializable it is in the read set anyway. Any number of
  // transactions may hold one object so. A commit to it before this one's validation fails this
  // one (kValidationFailure); one after it gets a larger W, because a transaction with such
  // objects takes W waiting out the uncertainty as serializable ones do (§4.2: W is past before
  // validation starts): the object is unchanged through W. The version first seen survives
  // RefreshReadTimestamp, as the write set's does. A transaction without writes commits at R,
  // where its reads are one snapshot, so it validates only the objects first seen at an earlier
  // R (before a refresh, READ COMMITTED): they must not have changed since.
  std::expected<void, TxnError> ValidateAtCommit(Addr addr);

  // Re-applicable writes: READ COMMITTED's UPDATE, which PostgreSQL re-applies to the newest row
  // version when another transaction updated the row first (EvalPlanQual), in optimistic form.
  // MarkReapplicable(addr) says the caller can compute its write of `addr` again from a newer
  // version. When Commit's LOCK fails, Commit reads the headers of its written objects to learn
  // why:
  //  - a written object that is not re-applicable was committed to since it was read, or is gone:
  //    the transaction aborts kLockConflict, as without re-applicable writes;
  //  - otherwise, if re-applicable objects were committed to: Commit drops those writes, moves R
  //    forward as RefreshReadTimestamp does (the read set goes), and returns kStaleWrites with the
  //    transaction still open; stale_writes() lists them. The caller reads each again (at the new
  //    R, so LOCK will check the version it now reads), writes and marks it again and commits
  //    again, or aborts;
  //  - otherwise LOCK met another transaction's lock, held while that one commits: Commit tries
  //    LOCK again, after a yield.
  // Each try releases the locks taken (ABORT to the primaries) and LOCKs under a new TxnId, so
  // participants see an aborted transaction and then a new one. At most kMaxCommitTries LOCKs per
  // transaction, across Commit calls; then it aborts kLockConflict, so writers that keep failing
  // each other's LOCK still finish.
  // Sound for READ COMMITTED: the write was computed from the version it replaces and nothing
  // else of it reached the caller, so computing it from the newest version is what running the
  // statement after the other transaction would have done. So a write stops being re-applicable
  // when this transaction reads the object back (ReadView/Read: the caller may have seen the
  // value), writes it again without marking it, or frees it; an object read back once can no
  // longer be marked. Other writes keep first-committer-wins. kInvalidArgument (the transaction
  // stays usable) for serializable transactions (first committer wins over the read set, which
  // the new version would bypass), stale-snapshot and pinned ones (R cannot move), an object not
  // in the write set, one allocated or freed here, one read back, or one held by
  // ValidateAtCommit (it must stay at the version first seen). A transaction pinned after
  // marking aborts kLockConflict where it would have returned kStaleWrites.
  static constexpr int kMaxCommitTries = 8;
  std::expected<void, TxnError> MarkReapplicable(Addr addr);
  // After Commit returned kStaleWrites: the writes it dropped, in address order.
  const std::vector<Addr>& stale_writes() const { return stale_writes_; }

 private:
  friend class Worker;
  using ReadEntry = ReadSet::Entry;
  struct WriteEntry {
    Timestamp expected = kAnyVersion;
    uint32_t lines = 1;
    uint32_t flags = 0;
    bool reapplicable = false;  // MarkReapplicable
    bool read_back = false;     // read by this transaction after it wrote it
    std::vector<std::byte> payload;
  };
  Txn(Worker* worker, TxnId id, TxnOptions options, Timestamp read_ts);
  std::unexpected<TxnError> Fail(AbortReason reason);
  // Records `error` as the transaction's final error (later calls return it) and undoes its
  // allocations; counts an abort reason only for kAborted.
  std::unexpected<TxnError> Fail(TxnError error);
  std::expected<const ReadEntry*, TxnError> ReadObject(Addr addr);
  std::expected<ObjectHead, TxnError> ReadHead(MachineId primary, Addr addr, uint32_t lines,
                                               std::byte* payload);
  // "Reads newer than R" above: false if R is fixed or something read has changed (R has then
  // moved anyway; the caller aborts).
  bool AdvanceReadTimestampIfUnchanged();
  void Finish();

  // Commit phases (commit.cc), in FaRM/FaRMv2 order.
  struct Participants;
  Participants Plan();
  void ReserveLogs(Participants& p);
  std::expected<Timestamp, TxnError> LockPhase(Participants& p);
  std::expected<Timestamp, TxnError> WriteTimestamp(Timestamp max_head_ts);
  // `read_only`: the check of a commit without writes (ValidateAtCommit above).
  bool ValidatePhase(bool read_only);
  bool CommitBackupPhase(Participants& p, Timestamp w);
  // kOutOfSpace: the local primary's durable log had no room (nothing committed; the caller
  // aborts); kInternal: no primary acknowledged (the outcome is unknown).
  std::expected<void, TxnError> CommitPrimaryPhase(Participants& p, Timestamp w);
  void AbortPhase(Participants& p, bool backups_too);
  void ReleaseReservations(Participants& p);
  // After a failed LOCK with re-applicable writes (MarkReapplicable): what to do next.
  enum class LockFailure { kConflict, kStale, kBusy };
  LockFailure ClassifyLockFailure();

  Worker* worker_;
  TxnId id_;
  TxnOptions options_;
  Timestamp read_ts_;
  bool finished_ = false;
  bool read_ts_pinned_ = false;
  bool read_ts_moved_ = false;
  std::optional<TxnError> error_;
  ReadSet reads_;
  RawBytes remote_read_;  // one-sided reads' destination, reused across ReadObject calls
  std::map<Addr, WriteEntry> writes_;
  struct Validation {
    Timestamp version;  // first seen
    Timestamp seen_at;  // the read timestamp then
  };
  std::map<Addr, Validation> validate_;  // ValidateAtCommit
  std::vector<std::pair<Addr, uint32_t>> allocated_;  // (addr, slab-relative index) to undo
  int commit_tries_ = 0;  // LOCKs sent so far (MarkReapplicable)
  bool sync_commit_ = true;
  bool sync_required_ = false;
  std::vector<Addr> stale_writes_;
  Timestamp stale_head_ts_ = 0;  // the newest version among stale_writes_
};

}  // namespace farmdb::txn
