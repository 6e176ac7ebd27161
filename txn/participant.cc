// Participant side of the commit protocol: one handler per log record type, run on the
// engine's participant thread (FaRM §4, FaRMv2 §4.2 and §4.4), and the primary's work that the
// handlers share with a coordinator on this machine (engine.h "Local participant").

#include <algorithm>
#include <iterator>

#include "cluster/crash_point.h"
#include "cluster/fabric/word_copy.h"
#include "txn/engine.h"
#include "txn/object.h"

namespace farmdb::txn {

using cluster::CasWord;
using cluster::LoadWord;
using cluster::StoreWord;

std::byte* TxnEngine::LocalObject(Addr a, uint32_t lines) {
  auto bytes = machine_->LocalReplica(a.region());
  if (a.offset() % 8 || a.offset() + uint64_t{lines} * kLineSize > bytes.size()) return nullptr;
  return bytes.data() + a.offset();
}

void TxnEngine::HandleRecord(Record&& r, uint64_t lsn) {
  for (TxnId t : r.truncated) OnTruncate(t);
  switch (r.type) {
    case RecordType::kLock: OnLock(std::move(r), lsn, true); break;
    case RecordType::kCommitBackup: OnCommitBackup(std::move(r), lsn); break;
    case RecordType::kCommitPrimary: OnCommitPrimary(r); break;
    case RecordType::kAbort: OnAbort(r); break;
    case RecordType::kTruncate: break;
    case RecordType::kWatermark: durability_->OnWatermark(TxnMachine(r.txn), r.write_ts); break;
  }
}

namespace {
// Takes the lock if the head is what the coordinator expects (FaRM §4 step 1).
bool TryLock(std::byte* mem, const RecordObject& o, Timestamp* head_ts) {
  uint64_t w0 = LoadWord(mem);
  for (;;) {
    if (HeaderLocked(w0)) return false;
    if (o.flags & kObjNew) {
      if (HeaderAllocated(w0)) return false;
    } else if (!HeaderAllocated(w0) || (o.expected != kAnyVersion && HeaderTs(w0) != o.expected)) {
      return false;
    }
    if (CasWord(mem, w0, w0 | kLockBit)) {
      *head_ts = HeaderTs(w0);
      return true;
    }
  }
}

void Unlock(std::byte* mem) { StoreWord(mem, LoadWord(mem) & ~kLockBit); }
}  // namespace

LockOutcome TxnEngine::LockObjects(std::span<const RecordObject> objects,
                                   std::vector<LockedObject>* locked, Timestamp* max_head_ts) {
  const size_t first = locked->size();
  for (const RecordObject& o : objects) {
    std::byte* mem = LocalObject(o.addr, o.lines);
    Timestamp head_ts = 0;
    LockOutcome outcome = mem && TryLock(mem, o, &head_ts) ? LockOutcome::kLocked : LockOutcome::kConflict;
    LockedObject lo{o.addr, mem, o, {}};
    if (outcome == LockOutcome::kLocked && options_.multi_version) {
      // Copy the head to an old version while holding its lock (FaRMv2 §4.4); the pointer to it
      // is installed at COMMIT-PRIMARY.
      std::lock_guard l(old_versions_mu_);
      auto slot = old_versions_.Allocate(lo.object.lines);
      if (slot) {
        lo.old = *slot;
      } else {
        Unlock(mem);
        outcome = slot.error();
      }
    }
    if (outcome != LockOutcome::kLocked) {
      std::vector<LockedObject> taken(std::make_move_iterator(locked->begin() + first),
                                      std::make_move_iterator(locked->end()));
      locked->resize(first);
      UnlockLocked(taken);
      return outcome;
    }
    // Outside old_versions_mu_: the slot is this transaction's alone.
    if (lo.old.mem) CopyAsOldVersion(mem, lo.old.mem, lo.object.lines);
    *max_head_ts = std::max(*max_head_ts, head_ts);
    locked->push_back(std::move(lo));
  }
  return LockOutcome::kLocked;
}

void TxnEngine::InstallLocked(std::vector<LockedObject>& locked, Timestamp w) {
  for (LockedObject& lo : locked) {
    cluster::CrashPoint("commit.installing");
    bool allocated = !(lo.object.flags & kObjFree);
    // Installing the header releases the lock and exposes the write (FaRM §4 step 4).
    InstallObject(lo.mem, lo.object.lines, lo.object.payload, w, allocated, lo.old.addr);
    if (lo.old.block) {
      std::lock_guard l(old_versions_mu_);
      old_versions_.Finished(lo.old.block, w);
    }
    if (!allocated) {
      if (Slab* s = FindSlab(lo.addr)) s->PostFree(s->ObjectIndex(lo.addr));
    }
  }
  locked.clear();
}

void TxnEngine::UnlockLocked(std::vector<LockedObject>& locked) {
  for (LockedObject& lo : locked) {
    Unlock(lo.mem);
    if (lo.old.block) {
      std::lock_guard l(old_versions_mu_);
      old_versions_.Finished(lo.old.block, 0);
    }
  }
  locked.clear();
}

// A large transaction's LOCK comes in several records (commit.cc, Participants::Records), each answered on
// its own; the objects of all of them are the transaction's at this primary. A record that
// fails to lock releases its own objects; the coordinator's ABORT releases the rest.
// A LOCK the durable log had no room for (`logged` false) is refused as "no space": its values
// could not survive a crash, and the coordinator reports a full disk (53100).
void TxnEngine::OnLock(Record&& r, uint64_t lsn, bool logged) {
  auto [it, fresh] = primary_txns_.try_emplace(r.txn, PrimaryTxn{TxnMachine(r.txn), {}, {}, lsn});
  PrimaryTxn& txn = it->second;
  LockReply reply{r.txn};
  reply.outcome = logged ? LockObjects(r.objects, &txn.objects, &reply.max_head_ts) : LockOutcome::kNoSpace;
  if (txn.objects.empty()) {
    primary_txns_.erase(it);
  } else {
    std::ranges::move(r.buffers, std::back_inserter(txn.buffers));
    if (fresh) active_lsns_.insert(lsn);
  }
  machine_->Send(TxnMachine(r.txn), kMsgLockReply, EncodeLockReply(reply));
}

void TxnEngine::OnCommitPrimary(const Record& r) {
  auto it = primary_txns_.find(r.txn);
  if (it == primary_txns_.end()) return;
  InstallLocked(it->second.objects, r.write_ts);
  active_lsns_.erase(active_lsns_.find(it->second.lsn));
  primary_txns_.erase(it);
}

void TxnEngine::OnAbort(const Record& r) {
  // Sent to backups when the backup phase failed (commit.cc).
  if (auto b = backup_txns_.find(r.txn); b != backup_txns_.end()) {
    active_lsns_.erase(active_lsns_.find(b->second.lsn));
    backup_txns_.erase(b);
  }
  auto it = primary_txns_.find(r.txn);
  if (it == primary_txns_.end()) return;
  UnlockLocked(it->second.objects);
  active_lsns_.erase(active_lsns_.find(it->second.lsn));
  primary_txns_.erase(it);
}

// Several COMMIT-BACKUP records of one transaction (a large one) add up.
void TxnEngine::OnCommitBackup(Record&& r, uint64_t lsn) {
  auto it = backup_txns_.find(r.txn);
  if (it == backup_txns_.end()) {
    active_lsns_.insert(lsn);
    backup_txns_.emplace(r.txn, BackupTxn{std::move(r), lsn});
    return;
  }
  Record& merged = it->second.record;
  merged.objects.insert(merged.objects.end(), r.objects.begin(), r.objects.end());
  std::ranges::move(r.buffers, std::back_inserter(merged.buffers));
}

void TxnEngine::OnTruncate(TxnId id) {
  // Backups apply committed writes at truncation, possibly out of order across coordinators, so
  // only a newer timestamp replaces what is there (FaRMv2 §4.8-4.9).
  auto it = backup_txns_.find(id);
  if (it == backup_txns_.end()) return;
  const Record& r = it->second.record;
  for (const RecordObject& o : r.objects) {
    std::byte* mem = LocalObject(o.addr, o.lines);
    if (!mem || HeaderTs(LoadWord(mem)) >= r.write_ts) continue;
    InstallObject(mem, o.lines, o.payload, r.write_ts, !(o.flags & kObjFree), Addr{});
  }
  active_lsns_.erase(active_lsns_.find(it->second.lsn));
  backup_txns_.erase(it);
}

}  // namespace farmdb::txn
