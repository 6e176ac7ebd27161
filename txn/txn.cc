#include "txn/txn.h"

#include <algorithm>
#include <thread>

#include "txn/engine.h"
#include "txn/object.h"
#include "txn/version_checks.h"

namespace farmdb::txn {

std::string_view AbortReasonName(AbortReason r) {
  switch (r) {
    case AbortReason::kLockConflict: return "lock_conflict";
    case AbortReason::kValidationFailure: return "validation_failure";
    case AbortReason::kLockedOnRead: return "locked_on_read";
    case AbortReason::kOldVersionGone: return "old_version_gone";
    case AbortReason::kEagerValidation: return "eager_validation";
    case AbortReason::kSnapshotTooOld: return "snapshot_too_old";
    case AbortReason::kUser: return "user";
    case AbortReason::kCount: break;
  }
  return "unknown";
}

TxnErrorCode FabricFailure(cluster::FabricError e) {
  return e == cluster::FabricError::kNotRegistered || e == cluster::FabricError::kOutOfRange
             ? TxnErrorCode::kInvalidArgument
             : TxnErrorCode::kUnavailable;
}

Txn::Txn(Worker* worker, TxnId id, TxnOptions options, Timestamp read_ts)
    : worker_(worker), id_(id), options_(options), read_ts_(read_ts) {}

Txn::~Txn() {
  if (!finished_) Abort();
}

void Txn::Finish() {
  if (finished_) return;
  finished_ = true;
  worker_->Unregister(read_ts_);
}

std::unexpected<TxnError> Txn::Fail(AbortReason reason) {
  return Fail(TxnError{TxnErrorCode::kAborted, reason});
}

std::unexpected<TxnError> Txn::Fail(TxnError error) {
  if (!error_) {
    error_ = error;
    if (error.code == TxnErrorCode::kAborted) worker_->engine().counters().Count(error.reason);
    for (auto& [addr, index] : allocated_) {
      if (Slab* s = worker_->engine().FindSlab(addr)) s->PostFree(index);
    }
    allocated_.clear();
    Finish();
  }
  return std::unexpected(*error_);
}

void Txn::Abort(AbortReason reason) {
  if (!finished_) Fail(reason);
}

std::expected<void, TxnError> Txn::RefreshReadTimestamp() {
  if (error_) return std::unexpected(*error_);
  if (finished_ || options_.isolation != Isolation::kSnapshot || options_.snapshot_ts) {
    return std::unexpected(TxnError{TxnErrorCode::kInvalidArgument});
  }
  read_ts_ = worker_->AdvanceReadTimestamp(read_ts_, options_.strict);
  read_ts_moved_ = true;
  reads_.Clear();
  return {};
}

namespace {
std::unexpected<TxnError> Invalid() {
  return std::unexpected(TxnError{TxnErrorCode::kInvalidArgument});
}
std::unexpected<TxnError> NotAllocated() {
  return std::unexpected(TxnError{TxnErrorCode::kNotAllocated});
}
}  // namespace

// A copy of `addr`'s head at `primary` that is neither torn nor locked. Torn copies are retried;
// a head that stays locked aborts (FaRMv2 §4.7 early abort).
std::expected<ObjectHead, TxnError> Txn::ReadHead(MachineId primary, Addr addr, uint32_t lines,
                                                    std::byte* payload) {
  TxnEngine& engine = worker_->engine();
  auto locked_deadline = std::chrono::steady_clock::time_point::max();
  for (;;) {
    auto head = engine.ReadObjectFromPrimary(primary, addr, lines, payload, remote_read_);
    if (!head) return std::unexpected(TxnError{FabricFailure(head.error())});
    if (head->check == ReadCheck::kOk) return *head;
    if (head->check == ReadCheck::kTorn) {
      engine.counters().torn_read_retries.fetch_add(1, std::memory_order_relaxed);
    } else if (locked_deadline == std::chrono::steady_clock::time_point::max()) {
      locked_deadline = std::chrono::steady_clock::now() + engine.options().locked_read_wait;
    } else if (std::chrono::steady_clock::now() > locked_deadline) {
      return Fail(AbortReason::kLockedOnRead);
    }
    std::this_thread::yield();
  }
}

bool Txn::AdvanceReadTimestampIfUnchanged() {
  if (options_.snapshot_ts || read_ts_pinned_) return false;
  // The new R first, then the checks: a commit not yet locked when its object is checked takes
  // a W above the new R (as for Begin's R, §4.2), so it cannot change what is visible there.
  read_ts_ = worker_->AdvanceReadTimestamp(read_ts_, options_.strict);
  VersionChecks checks(worker_->engine());
  for (auto& [addr, e] : reads_) checks.Add(addr, e.version);
  if (!checks.Unchanged()) return false;
  worker_->engine().counters().read_ts_advances.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Reads the version visible at R: the head if its timestamp <= R, else down the old-version chain
// (FaRMv2 §4.4).
std::expected<const Txn::ReadEntry*, TxnError> Txn::ReadObject(Addr addr) {
  if (error_) return std::unexpected(*error_);
  if (const ReadEntry* e = reads_.Find(addr)) return e;
  TxnEngine& engine = worker_->engine();
  cluster::Machine& machine = engine.machine();
  auto lines = engine.ObjectLines(addr);
  if (!lines) return std::unexpected(lines.error());
  auto primary = machine.PrimaryOf(addr.region());
  if (!primary) return Invalid();
  // Reads copy straight into the payload the read set keeps.
  std::span<std::byte> payload = reads_.NewPayload(PayloadCapacity(*lines));
  ObjectHead head;
  // Single-version mode aborts below on any newer head instead.
  bool doomed_by_old_versions = engine.options().multi_version && options_.isolation == Isolation::kSerializable &&
                                (!writes_.empty() || options_.expect_writes);
  for (int advances = 0;; ++advances) {
    auto read = ReadHead(*primary, addr, *lines, payload.data());
    if (!read) return std::unexpected(read.error());
    head = *read;
    if (HeaderTs(head.header) <= read_ts_ || !doomed_by_old_versions) break;
    // A serializable transaction with writes that reads a version older than the head would
    // fail validation (§4.7). If nothing it read has changed, it reads at a later R instead.
    if (advances == kMaxReadTsAdvances || !AdvanceReadTimestampIfUnchanged()) {
      return Fail(AbortReason::kEagerValidation);
    }
  }
  auto& fetched = *primary == machine.id() ? engine.counters().local_reads
                                                  : engine.counters().remote_reads;
  fetched.fetch_add(1, std::memory_order_relaxed);
  if (HeaderTs(head.header) > read_ts_) {
    if (!engine.options().multi_version) return Fail(AbortReason::kOldVersionGone);
    // Walk the chain. Every version passed has a creator with W > R >= GC, so none is freed.
    for (;;) {
      Addr old = head.old_version;
      if (old.null()) return Fail(AbortReason::kOldVersionGone);
      auto old_primary = machine.PrimaryOf(old.region());
      if (!old_primary) return std::unexpected(TxnError{TxnErrorCode::kInternal});
      auto read = engine.ReadObjectFromPrimary(*old_primary, old, *lines, payload.data(), remote_read_);
      if (!read && FabricFailure(read.error()) == TxnErrorCode::kUnavailable) {
        return std::unexpected(TxnError{TxnErrorCode::kUnavailable});
      }
      if (!read || HeaderLocked(read->header)) {
        // Old versions are never locked: this is freed (poisoned) memory.
        return std::unexpected(TxnError{TxnErrorCode::kInternal});
      }
      head = *read;
      if (HeaderTs(head.header) <= read_ts_) break;
    }
  }
  return reads_.Add(addr, {HeaderTs(head.header), *lines, HeaderAllocated(head.header), payload});
}

std::expected<std::vector<std::byte>, TxnError> Txn::Read(Addr addr) {
  auto view = ReadView(addr);
  if (!view) return std::unexpected(view.error());
  return std::vector<std::byte>(view->begin(), view->end());
}

std::expected<std::span<const std::byte>, TxnError> Txn::ReadView(Addr addr) {
  if (error_) return std::unexpected(*error_);
  if (auto it = writes_.find(addr); it != writes_.end()) {
    WriteEntry& w = it->second;
    if (w.flags & kObjFree) return NotAllocated();
    w.read_back = true, w.reapplicable = false;
    return std::span<const std::byte>(w.payload);
  }
  auto e = ReadObject(addr);
  if (!e) return std::unexpected(e.error());
  if (!(*e)->allocated) return NotAllocated();
  return std::span<const std::byte>((*e)->payload);
}

std::expected<void, TxnError> Txn::Write(Addr addr, std::span<const std::byte> bytes) {
  if (error_) return std::unexpected(*error_);
  if (options_.read_only) return Invalid();
  auto it = writes_.find(addr);
  if (it == writes_.end()) {
    // Writes carry the version visible at R, so LOCK fails if anything committed since: this is
    // also SI's first-committer-wins rule for keys not read by the caller.
    auto r = ReadObject(addr);
    if (!r) return std::unexpected(r.error());
    if (!(*r)->allocated) return NotAllocated();
    WriteEntry w;
    w.expected = (*r)->version, w.lines = (*r)->lines;
    it = writes_.emplace(addr, std::move(w)).first;
  }
  WriteEntry& w = it->second;
  if (w.flags & kObjFree) return NotAllocated();
  const size_t capacity = PayloadCapacity(w.lines);
  if (bytes.size() > capacity) return Invalid();
  w.reapplicable = false;
  // One allocation of the whole payload, then only the tail zeroed (assign alone would allocate
  // bytes.size() and resize would allocate again).
  w.payload.reserve(capacity);
  w.payload.assign(bytes.begin(), bytes.end());
  w.payload.resize(capacity);
  return {};
}

std::expected<void, TxnError> Txn::WriteUnchanged(Addr addr) {
  if (error_) return std::unexpected(*error_);
  if (options_.read_only) return Invalid();
  if (auto it = writes_.find(addr); it != writes_.end()) {
    if (it->second.flags & kObjFree) return NotAllocated();
    return {};
  }
  auto view = ReadView(addr);
  if (!view) return std::unexpected(view.error());
  return Write(addr, *view);  // the view is into the read set, which Write leaves alone
}

std::expected<void, TxnError> Txn::ValidateAtCommit(Addr addr) {
  if (error_) return std::unexpected(*error_);
  if (auto it = writes_.find(addr); it != writes_.end()) {
    if (it->second.flags & kObjFree) return NotAllocated();
    return {};
  }
  auto e = ReadObject(addr);
  if (!e) return std::unexpected(e.error());
  if (!(*e)->allocated) return NotAllocated();
  validate_.try_emplace(addr, Validation{(*e)->version, read_ts_});
  return {};
}

std::expected<void, TxnError> Txn::MarkReapplicable(Addr addr) {
  if (error_) return std::unexpected(*error_);
  if (options_.isolation != Isolation::kSnapshot || options_.snapshot_ts || read_ts_pinned_) return Invalid();
  auto it = writes_.find(addr);
  // A row held FOR SHARE (ValidateAtCommit) must stay at the version first seen; a re-applied
  // write would move it on.
  if (it == writes_.end() || (it->second.flags & (kObjNew | kObjFree)) || it->second.read_back ||
      validate_.contains(addr)) {
    return Invalid();
  }
  it->second.reapplicable = true;
  return {};
}

std::expected<Addr, TxnError> Txn::Alloc(size_t size) {
  if (error_) return std::unexpected(*error_);
  if (options_.read_only || size > PayloadCapacity(256)) return Invalid();
  uint32_t lines = LinesFor(size);
  auto a = worker_->AllocateObject(lines, read_ts_);
  if (!a) return std::unexpected(a.error());
  auto [addr, slab] = *a;
  WriteEntry w;
  w.lines = lines;
  w.flags = kObjNew;
  w.payload.assign(PayloadCapacity(lines), std::byte{0});
  writes_[addr] = std::move(w);
  allocated_.emplace_back(addr, slab->ObjectIndex(addr));
  return addr;
}

std::expected<void, TxnError> Txn::Free(Addr addr) {
  if (error_) return std::unexpected(*error_);
  if (options_.read_only) return Invalid();
  if (auto it = writes_.find(addr); it != writes_.end()) {
    if (it->second.flags & kObjFree) return NotAllocated();
    if (it->second.flags & kObjNew) {
      // Allocated and freed in this transaction: nothing reaches the primary.
      auto al = std::ranges::find(allocated_, addr, &std::pair<Addr, uint32_t>::first);
      if (Slab* s = worker_->engine().FindSlab(addr)) s->PostFree(al->second);
      allocated_.erase(al);
      writes_.erase(it);
      return {};
    }
    it->second.flags |= kObjFree;
    it->second.reapplicable = false;
    return {};
  }
  auto e = ReadObject(addr);
  if (!e) return std::unexpected(e.error());
  if (!(*e)->allocated) return NotAllocated();
  WriteEntry w;
  w.expected = (*e)->version;
  w.lines = (*e)->lines;
  w.flags = kObjFree;
  w.payload.assign(PayloadCapacity(w.lines), std::byte{0});
  writes_[addr] = std::move(w);
  return {};
}

}  // namespace farmdb::txn
