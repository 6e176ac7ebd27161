// Coordinator side of the commit protocol, one function per phase (FaRM §4, FaRMv2 §4.2):
// reserve log space, LOCK at write-set primaries, take W with the locks held, VALIDATE the read
// set (serializable only) and ValidateAtCommit's objects, COMMIT-BACKUP to every backup and
// wait for all acks, COMMIT-PRIMARY and wait for one ack, then TRUNCATE lazily (piggybacked on
// later records). For the coordinator's own machine as a primary, LOCK, VALIDATE and
// COMMIT-PRIMARY (or ABORT) are done in place on this thread (engine.h "Local participant").

#include <algorithm>
#include <set>
#include <thread>

#include "cluster/crash_point.h"
#include "txn/engine.h"
#include "txn/object.h"
#include "txn/version_checks.h"

namespace farmdb::txn {

struct Txn::Participants {
  MachineId self;  // the coordinator's machine: its primary work is done here (engine.h)
  std::map<MachineId, std::vector<RecordObject>> primary_objects;
  std::map<MachineId, std::vector<RecordObject>> backup_objects;
  std::map<MachineId, uint64_t> reserved;
  std::map<MachineId, uint64_t> consumed;
  // A transaction whose records cannot all be reserved before the commit starts (ReserveLogs)
  // reserves each record just before appending it.
  bool streaming = false;
  std::vector<TxnEngine::LockedObject> local_locked;  // objects at self, locked by this thread
  // Appends a record of `r`'s type and timestamp carrying `objects` to `to`'s log.
  cluster::CompletionPtr Send(Txn& t, MachineId to, Record r, std::span<const RecordObject> objects = {});
  // The records that carry `objects` to `to`: one, as in FaRM §4, unless streaming; then cut
  // into records whose ring cost is at most an eighth of `to`'s ring, so that each fits however
  // full the ring is when it is appended (a bulk load: COPY, CREATE INDEX over a large table).
  std::vector<std::span<const RecordObject>> Records(Txn& t, MachineId to, const Record& r,
                                                     std::span<const RecordObject> objects) const;
};

namespace {
Record Rec(RecordType type, Timestamp w = 0) {
  Record r;
  r.type = type;
  r.write_ts = w;
  return r;
}

// Bytes a record may take in the ring: itself plus the most piggybacked truncations, doubled for
// a possible PAD before it (log.h).
uint64_t RingCost(const Record& r, std::span<const RecordObject> objects = {}) {
  return 2 * (EncodedSize(r, objects) + 8 * kMaxPiggybacked);
}

}  // namespace

std::vector<std::span<const RecordObject>> Txn::Participants::Records(Txn& t, MachineId to, const Record& r,
                                                                      std::span<const RecordObject> objects) const {
  if (!streaming) return {objects};
  std::vector<std::span<const RecordObject>> out;
  const uint64_t limit = t.worker_->engine().Writer(to).ring_size() / 8;
  size_t begin = 0;
  uint64_t cost = RingCost(r);
  for (size_t i = 0; i < objects.size(); ++i) {
    uint64_t more = 2 * EncodedSize(objects[i]);
    if (i > begin && cost + more > limit) {
      out.push_back(objects.subspan(begin, i - begin));
      begin = i;
      cost = RingCost(r);
    }
    cost += more;
  }
  if (begin < objects.size() || out.empty()) out.push_back(objects.subspan(begin));
  return out;
}

cluster::CompletionPtr Txn::Participants::Send(Txn& t, MachineId to, Record r,
                                               std::span<const RecordObject> objects) {
  r.txn = t.id_;
  r.truncated = t.worker_->TakeTruncations(to);
  auto bytes = EncodeRecord(r, objects);
  LogWriter& log = t.worker_->engine().Writer(to);
  if (streaming) {
    // Waits, if need be, for the receiver to consume earlier records; its participant thread
    // never waits on anything a coordinator holds, so this wait ends (log.h).
    log.Reserve(2 * bytes.size());
    reserved[to] += 2 * bytes.size();
  }
  consumed[to] += 2 * bytes.size();
  return log.Append(std::move(bytes));
}

// The records' objects view the write set's payloads: writes_ stays unchanged while `p` is used.
Txn::Participants Txn::Plan() {
  Participants p;
  cluster::Machine& machine = worker_->engine().machine();
  p.self = machine.id();
  for (auto& [addr, w] : writes_) {
    auto place = machine.Lookup(addr.region());
    RecordObject o{addr, w.expected, w.flags, w.lines, w.payload};
    for (MachineId b : place->backups) p.backup_objects[b].push_back(o);
    p.primary_objects[place->primary].push_back(o);
  }
  return p;
}

// FaRM §4: reserve space for every record of the protocol before it starts, so no participant
// log can fill up halfway through a commit. A participant's need is the sum over its roles: LOCK
// and COMMIT-PRIMARY (or ABORT) as a primary, COMMIT-BACKUP (and ABORT, if the backup phase
// fails) for every primary it backs up. A need above half the ring could never be granted
// (log.h); such a transaction (a bulk load) streams instead: it reserves each record when it
// appends it, waiting for the receiver to consume earlier ones. Participants consume records as
// they arrive and keep what they need in memory, so the ring only has to hold records in flight.
void Txn::ReserveLogs(Participants& p) {
  std::map<MachineId, uint64_t> need;
  const uint64_t abort_cost = RingCost(Rec(RecordType::kAbort));
  for (auto& [m, objs] : p.primary_objects) {
    need[m] += RingCost(Rec(RecordType::kLock), objs) + RingCost(Rec(RecordType::kCommitPrimary)) + abort_cost;
  }
  for (auto& [m, objs] : p.backup_objects) {
    need[m] += RingCost(Rec(RecordType::kCommitBackup), objs) + abort_cost;
  }
  for (auto& [m, bytes] : need) {
    if (bytes > worker_->engine().Writer(m).ring_size() / 2) {
      p.streaming = true;
      return;
    }
  }
  // Fixed order avoids two coordinators each holding part of what the other waits for.
  for (auto& [m, bytes] : need) {
    worker_->engine().Writer(m).Reserve(bytes);
    p.reserved[m] = bytes;
  }
}

void Txn::ReleaseReservations(Participants& p) {
  for (auto& [m, bytes] : p.reserved) {
    worker_->engine().Writer(m).Unreserve(bytes - p.consumed[m]);
  }
}

std::expected<Timestamp, TxnError> Txn::LockPhase(Participants& p) {
  std::vector<cluster::CompletionPtr> sent;  // one LOCK-REPLY comes back per LOCK record
  const Record lock = Rec(RecordType::kLock);
  for (auto& [m, objs] : p.primary_objects) {
    if (m == p.self) continue;
    for (auto chunk : p.Records(*this, m, lock, objs)) {
      sent.push_back(p.Send(*this, m, Rec(RecordType::kLock), chunk));
    }
  }
  // The local primary's locks are taken here while the remote LOCKs are in flight.
  Timestamp max_head = 0;
  // The worst outcome of all primaries (LockOutcome is ordered: no space beats a conflict).
  LockOutcome outcome = LockOutcome::kLocked;
  if (auto local = p.primary_objects.find(p.self); local != p.primary_objects.end()) {
    outcome = worker_->engine().LockObjects(local->second, &p.local_locked, &max_head);
  }
  // A LOCK that did not reach its primary (its engine shut down, or the fabric failed: the
  // primary is unreachable) gets no reply.
  size_t delivered = 0;
  for (auto& c : sent) c->Wait(), delivered += c->ok();
  auto replies = worker_->AwaitLockReplies(id_, delivered);
  if (delivered < sent.size()) return std::unexpected(TxnError{TxnErrorCode::kUnavailable});
  for (auto& r : replies) {
    outcome = std::max(outcome, r.outcome);
    max_head = std::max(max_head, r.max_head_ts);
  }
  if (outcome == LockOutcome::kNoSpace) return std::unexpected(TxnError{TxnErrorCode::kOutOfSpace});
  if (outcome == LockOutcome::kConflict) {
    return std::unexpected(TxnError{TxnErrorCode::kAborted, AbortReason::kLockConflict});
  }
  return max_head;
}

// W must be after every lock was taken and before validation starts, in master time; GET_TS
// gives both (FaRMv2 §4.2). SI without objects to validate (txn.h ValidateAtCommit) and the
// mutant take U without waiting here.
std::expected<Timestamp, TxnError> Txn::WriteTimestamp(Timestamp max_head_ts) {
  cluster::Clock& clock = worker_->engine().machine().clock();
  bool validates = options_.isolation == Isolation::kSerializable || !validate_.empty();
  bool wait = validates && !worker_->engine().options().mutant_skip_write_wait;
  for (;;) {
    Timestamp w = wait ? clock.GetTs() : clock.Now().upper;
    // Versions of one object must strictly increase; a head written by a non-strict SI commit
    // may carry a timestamp that is still in the future.
    // Object headers keep 53 bits of timestamp (FORMATS.md); master time is the CM's
    // CLOCK_MONOTONIC_RAW in ns, which passes 2^53 after ~104 days of CM uptime. Installing a
    // truncated W would make versions go back, so refuse instead (rebasing master time to the
    // cluster's start is the real fix; README "Known gaps").
    if (w > cluster::kTimestampMask) return std::unexpected(TxnError{TxnErrorCode::kInternal});
    if (w > max_head_ts && w > read_ts_) return w;
    clock.WaitUntilPast(std::max(max_head_ts, read_ts_));
  }
}

// One-sided header reads: every object to validate must be unlocked and unchanged. With writes:
// under serializable every object read but not written, under any isolation those of
// ValidateAtCommit; without writes only ValidateAtCommit's objects first seen before the
// current R (txn.h).
bool Txn::ValidatePhase(bool read_only) {
  bool serializable = options_.isolation == Isolation::kSerializable;
  VersionChecks checks(worker_->engine());
  if (serializable && !read_only) {
    for (auto& [addr, e] : reads_) {
      if (!writes_.contains(addr)) checks.Add(addr, e.version);
    }
  }
  for (auto& [addr, v] : validate_) {
    // Written since (at READ COMMITTED, perhaps at a later version than the one first seen):
    // LOCK checks the write's version, which must be the one first seen.
    if (auto w = writes_.find(addr); w != writes_.end()) {
      if (w->second.expected != v.version) return false;
      continue;
    }
    // Skipped: done above (a serializable transaction keeps its read set when it moves R, so
    // the versions agree), or seen at the R a read-only transaction commits at.
    if (serializable && !read_only && reads_.Contains(addr)) continue;
    if (read_only && v.seen_at == read_ts_) continue;
    checks.Add(addr, v.version);
  }
  return checks.Unchanged();
}

bool Txn::CommitBackupPhase(Participants& p, Timestamp w) {
  std::vector<cluster::CompletionPtr> acks;
  const Record backup = Rec(RecordType::kCommitBackup, w);
  for (auto& [m, objs] : p.backup_objects) {
    for (auto chunk : p.Records(*this, m, backup, objs)) {
      acks.push_back(p.Send(*this, m, Rec(RecordType::kCommitBackup, w), chunk));
    }
  }
  // All backups have it before any primary exposes it. A failed write is not an ack.
  bool ok = true;
  for (auto& c : acks) c->Wait(), ok = ok && c->ok();
  return ok;
}

std::expected<void, TxnError> Txn::CommitPrimaryPhase(Participants& p, Timestamp w) {
  TxnEngine& engine = worker_->engine();
  if (auto local = p.primary_objects.find(p.self); local != p.primary_objects.end()) {
    // The local COMMIT-PRIMARY, with the local objects' values, goes to the durable log, then
    // they are installed here: logging it commits the transaction (FaRM §4 step 4 "or if it
    // wrote one locally"). First, so that a full log still finds no primary committed.
    std::shared_lock in_progress(engine.progress_mu_);
    Record commit = Rec(RecordType::kCommitPrimary, w);
    commit.txn = id_;
    const uint64_t chunk = p.streaming ? engine.Writer(p.self).ring_size() / 8 : ~uint64_t{0};
    if (!engine.LogLocalCommit(commit, local->second, chunk)) return std::unexpected(TxnError{TxnErrorCode::kOutOfSpace});
    cluster::CrashPoint("commit.logged");
    engine.InstallLocked(p.local_locked, w);
  }
  std::vector<cluster::CompletionPtr> acks;
  for (auto& [m, objs] : p.primary_objects) {
    if (m != p.self) acks.push_back(p.Send(*this, m, Rec(RecordType::kCommitPrimary, w)));
  }
  // Committed once one primary has the record (FaRM §4 step 4); the rest are awaited before
  // truncation. Only a completed, successful write counts as that primary's ack.
  // "All done" is read before looking for an ack, so a write completing between the two reads
  // cannot be mistaken for every write having failed.
  const bool local = p.primary_objects.contains(p.self);
  auto acked = [](auto& c) { return c->Done() && c->ok(); };
  while (!local) {
    bool all_done = std::ranges::all_of(acks, [](auto& c) { return c->Done(); });
    if (std::ranges::any_of(acks, acked)) break;
    if (all_done) return std::unexpected(TxnError{TxnErrorCode::kOutcomeUnknown});
    std::this_thread::yield();
  }
  // Truncation tells participants they may drop what they keep for the transaction: remote
  // primaries and backups. The local primary keeps nothing.
  std::set<MachineId> participants;
  for (auto& [m, objs] : p.primary_objects) {
    if (m != p.self) participants.insert(m);
  }
  for (auto& [m, objs] : p.backup_objects) participants.insert(m);
  if (!participants.empty()) {
    worker_->ScheduleTruncation(id_, {participants.begin(), participants.end()}, std::move(acks));
  }
  return {};
}

// ABORT releases the locks at primaries and, when COMMIT-BACKUPs went out, drops them at backups
// (a backup applies a COMMIT-BACKUP only at truncation, which an aborted transaction never gets).
void Txn::AbortPhase(Participants& p, bool backups_too) {
  for (auto& [m, objs] : p.primary_objects) {
    if (m != p.self) p.Send(*this, m, Rec(RecordType::kAbort));
  }
  if (p.primary_objects.contains(p.self)) worker_->engine().UnlockLocked(p.local_locked);
  if (!backups_too) return;
  for (auto& [m, objs] : p.backup_objects) p.Send(*this, m, Rec(RecordType::kAbort));
}

// Header reads of every written object (txn.h MarkReapplicable): a changed one that is not
// re-applicable is a conflict; changed re-applicable ones are stale (listed in stale_writes_);
// with neither, LOCK met locks of transactions that are committing.
Txn::LockFailure Txn::ClassifyLockFailure() {
  HeaderReads headers(worker_->engine());
  for (auto& [addr, w] : writes_) headers.Add(addr);
  stale_writes_.clear();
  size_t i = 0;
  for (auto& [addr, w] : writes_) {
    std::optional<uint64_t> header = headers.Get(i++);
    if (!header) return LockFailure::kConflict;
    bool changed = (w.flags & kObjNew) ? HeaderAllocated(*header)
                                       : !HeaderAllocated(*header) ||
                                             (w.expected != kAnyVersion && HeaderTs(*header) != w.expected);
    if (!changed) continue;
    if (!w.reapplicable) return LockFailure::kConflict;
    stale_writes_.push_back(addr);
    stale_head_ts_ = std::max(stale_head_ts_, HeaderTs(*header));
  }
  return stale_writes_.empty() ? LockFailure::kBusy : LockFailure::kStale;
}

std::expected<CommitInfo, TxnError> Txn::Commit(CommitWait wait) {
  if (error_) return std::unexpected(*error_);
  if (finished_) return std::unexpected(TxnError{TxnErrorCode::kInvalidArgument});
  TxnEngine& engine = worker_->engine();
  if (writes_.empty()) {
    // Read-only: reads were already consistent at R, nothing to validate (FaRMv2 §4.2) but
    // ValidateAtCommit's objects first seen at an earlier R.
    if (!validate_.empty() && !ValidatePhase(/*read_only=*/true)) return Fail(AbortReason::kValidationFailure);
    engine.counters().read_only_commits.fetch_add(1, std::memory_order_relaxed);
    Finish();
    return CommitInfo{read_ts_, 0};
  }
  if (auto room = engine.WaitForLogRoom(); !room) return Fail(room.error());
  Participants p = Plan();
  ReserveLogs(p);
  auto locked = LockPhase(p);
  while (!locked && locked.error().code == TxnErrorCode::kAborted && ++commit_tries_ < kMaxCommitTries &&
         std::ranges::any_of(writes_, [](const auto& w) { return w.second.reapplicable; })) {
    AbortPhase(p, /*backups_too=*/false);
    ReleaseReservations(p);
    id_ = worker_->NextTxnId();
    switch (ClassifyLockFailure()) {
      case LockFailure::kConflict:
        return Fail(AbortReason::kLockConflict);
      case LockFailure::kStale:
        // R was handed out since the write was marked (PinReadTimestamp): it may not move.
        if (read_ts_pinned_) return Fail(AbortReason::kLockConflict);
        // A non-strict R may lag the commits that made the writes stale (R = L): wait until
        // they are past, so the next reads see them.
        worker_->engine().machine().clock().WaitUntilPast(stale_head_ts_);
        for (Addr a : stale_writes_) writes_.erase(a);
        if (auto moved = RefreshReadTimestamp(); !moved) return std::unexpected(moved.error());
        worker_->engine().counters().stale_write_returns.fetch_add(1, std::memory_order_relaxed);
        return std::unexpected(TxnError{TxnErrorCode::kStaleWrites});
      case LockFailure::kBusy:
        worker_->engine().counters().lock_retries.fetch_add(1, std::memory_order_relaxed);
        std::this_thread::yield();
        break;
    }
    p = Plan();
    ReserveLogs(p);
    locked = LockPhase(p);
  }
  // In flight for durability (durability.h) from before W is taken until all its records are
  // out, committed or not.
  const Timestamp placeholder = engine.durability().Enter();
  if (locked) cluster::CrashPoint("commit.locked");
  std::expected<Timestamp, TxnError> w = locked ? WriteTimestamp(*locked) : locked;
  if (w && (options_.isolation == Isolation::kSerializable || !validate_.empty()) &&
      !ValidatePhase(/*read_only=*/false)) {
    w = std::unexpected(TxnError{TxnErrorCode::kAborted, AbortReason::kValidationFailure});
  }
  // The last moment to abort cleanly: from COMMIT-BACKUP on the commit may be recovered. A
  // machine without its lease may be outside the configuration, where nothing may commit.
  if (w && !engine.machine().LeaseHeld()) w = std::unexpected(TxnError{TxnErrorCode::kFenced});
  bool backups_sent = false;
  if (w) {
    backups_sent = true;
    if (!CommitBackupPhase(p, *w)) w = std::unexpected(TxnError{TxnErrorCode::kUnavailable});
    cluster::CrashPoint("commit.backed_up");
  }
  std::expected<void, TxnError> primaries = w ? CommitPrimaryPhase(p, *w) : std::expected<void, TxnError>{};
  if (!w || (!primaries && primaries.error().code == TxnErrorCode::kOutOfSpace)) {
    AbortPhase(p, backups_sent);
    ReleaseReservations(p);
    engine.durability().Leave(placeholder);
    return Fail(w ? primaries.error() : w.error());
  }
  ReleaseReservations(p);
  engine.durability().Leave(placeholder);
  if (!primaries) {
    // Every backup holds the commit but no primary was reachable: without recovery (README
    // "Known gaps") the outcome is unknown to this coordinator, so its allocations stay.
    allocated_.clear();
    return Fail(primaries.error());
  }
  // Strict SI overlaps the write uncertainty wait with the commit messages (FaRMv2 §4.2).
  if (options_.isolation == Isolation::kSnapshot && options_.strict) {
    engine.machine().clock().WaitUntilPast(*w);
  }
  allocated_.clear();
  engine.counters().commits.fetch_add(1, std::memory_order_relaxed);
  Finish();
  cluster::CrashPoint("commit.committed");
  const bool sync = sync_commit_ || sync_required_;
  if (sync && wait == CommitWait::kDurable) engine.WaitDurable(*w);
  return CommitInfo{read_ts_, *w, sync && wait == CommitWait::kNoWait};
}

}  // namespace farmdb::txn
