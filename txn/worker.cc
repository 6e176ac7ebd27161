#include <algorithm>
#include <optional>
#include <vector>

#include "cluster/fabric/word_copy.h"
#include "txn/engine.h"
#include "txn/object.h"

namespace farmdb::txn {

Worker::~Worker() {
  FlushTruncations();
  for (auto& [lines, s] : slabs_) {
    if (s) engine_->ReleaseSlab(s);  // none when the last AcquireSlab failed
  }
  engine_->ReleaseWorkerId(id_, next_seq_);
}

std::expected<std::unique_ptr<Txn>, TxnError> Worker::Begin(TxnOptions options) {
  cluster::Clock& clock = engine_->machine().clock();
  TxnId id = NextTxnId();
  Timestamp r;
  if (options.snapshot_ts) {
    if (!options.read_only) return std::unexpected(TxnError{TxnErrorCode::kInvalidArgument});
    // A snapshot must be in the past before the first read (FaRMv2 §4.2), else a commit with
    // W <= R could still happen after a read. One that is surely in the future (beyond this
    // machine's upper bound) is refused rather than waited for without bound; one inside the
    // uncertainty interval is waited out below (bounded by the uncertainty).
    if (*options.snapshot_ts > clock.Now().upper) {
      return std::unexpected(TxnError{TxnErrorCode::kInvalidArgument});
    }
    std::lock_guard l(active_mu_);
    // §4.6: stale snapshots are allowed only at or above GC_local.
    if (*options.snapshot_ts < engine_->machine().GcLocal()) {
      engine_->counters().Count(AbortReason::kSnapshotTooOld);
      return std::unexpected(TxnError{TxnErrorCode::kAborted, AbortReason::kSnapshotTooOld});
    }
    r = *options.snapshot_ts;
    active_.insert(r);
  } else {
    // Register a placeholder <= the eventual R before taking R, under the same mutex the OAT
    // computation reads, so OAT_local can never pass this transaction (FaRMv2 §4.5).
    Timestamp placeholder;
    {
      std::lock_guard l(active_mu_);
      placeholder = clock.Now().lower;
      active_.insert(placeholder);
    }
    // Strict: R = U with the uncertainty waited out; non-strict: R = L (FaRMv2 §4.2).
    r = options.strict ? clock.GetTs() : clock.Now().lower;
    std::lock_guard l(active_mu_);
    active_.erase(active_.find(placeholder));
    active_.insert(r);
  }
  if (options.snapshot_ts) clock.WaitUntilPast(r);
  // Checked after R is taken: the configuration stays this machine's until its lease expires
  // (lease.h), so every commit at or below R is one this machine can see.
  if (!engine_->machine().LeaseHeld()) {
    std::lock_guard l(active_mu_);
    active_.erase(active_.find(r));
    return std::unexpected(TxnError{TxnErrorCode::kFenced});
  }
  return std::unique_ptr<Txn>(new Txn(this, id, options, r));
}

Timestamp Worker::OldestActive() {
  std::lock_guard l(active_mu_);
  return active_.empty() ? ~Timestamp{0} : *active_.begin();
}

Timestamp Worker::AdvanceReadTimestamp(Timestamp old_r, bool strict) {
  cluster::Clock& clock = engine_->machine().clock();
  // old_r stays registered while the new R is taken (it plays the role of Begin's placeholder),
  // so OAT_local cannot pass the new R before it is registered (FaRMv2 §4.5).
  Timestamp r = std::max(old_r, strict ? clock.GetTs() : clock.Now().lower);
  std::lock_guard l(active_mu_);
  active_.erase(active_.find(old_r));
  active_.insert(r);
  return r;
}

void Worker::Unregister(Timestamp read_ts) {
  std::lock_guard l(active_mu_);
  active_.erase(active_.find(read_ts));
}

void Worker::DeliverLockReply(const LockReply& r) {
  std::lock_guard l(reply_mu_);
  replies_[r.txn].push_back(r);
  reply_cv_.notify_all();
}

std::vector<LockReply> Worker::AwaitLockReplies(TxnId txn, size_t n) {
  std::unique_lock l(reply_mu_);
  reply_cv_.wait(l, [&] { return replies_[txn].size() >= n; });
  auto out = std::move(replies_[txn]);
  replies_.erase(txn);
  return out;
}

void Worker::ScheduleTruncation(TxnId txn, std::vector<MachineId> participants,
                                std::vector<cluster::CompletionPtr> primary_acks) {
  std::lock_guard l(truncations_mu_);
  unacked_.push_back({txn, std::move(participants), std::move(primary_acks)});
}

void Worker::PromoteAckedTruncations() {
  // A transaction is truncated only after every COMMIT-PRIMARY was acknowledged (FaRM §4 step 5).
  std::erase_if(unacked_, [&](const Unacked& u) {
    if (!std::ranges::all_of(u.acks, [](auto& c) { return c->Done(); })) return false;
    for (MachineId m : u.participants) truncations_[m].push_back(u.txn);
    return true;
  });
}

std::vector<TxnId> Worker::TakeTruncations(MachineId to) {
  std::lock_guard l(truncations_mu_);
  PromoteAckedTruncations();
  auto& pending = truncations_[to];
  size_t n = std::min(pending.size(), kMaxPiggybacked);
  std::vector<TxnId> out(pending.begin(), pending.begin() + n);
  pending.erase(pending.begin(), pending.begin() + n);
  return out;
}

void Worker::FlushTruncations() {
  std::vector<cluster::CompletionPtr> acks;
  {
    std::lock_guard l(truncations_mu_);
    for (auto& u : unacked_) acks.insert(acks.end(), u.acks.begin(), u.acks.end());
  }
  for (auto& c : acks) c->Wait();
  std::map<MachineId, std::vector<TxnId>> mine;
  TakeAckedTruncations(mine);
  engine_->AppendTruncations(mine, /*wait_for_room=*/true);
}

void Worker::TakeAckedTruncations(std::map<MachineId, std::vector<TxnId>>& into) {
  std::lock_guard l(truncations_mu_);
  PromoteAckedTruncations();
  for (auto& [to, pending] : truncations_) {
    auto& out = into[to];
    out.insert(out.end(), pending.begin(), pending.end());
    pending.clear();
  }
}

std::expected<std::pair<Addr, Slab*>, TxnError> Worker::AllocateObject(uint32_t lines,
                                                                      Timestamp read_ts) {
  Slab*& s = slabs_[lines];
  bool only_too_new = false;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!s) {
      auto acquired = engine_->AcquireSlab(lines, /*fresh=*/only_too_new);
      if (!acquired) return std::unexpected(acquired.error());
      s = *acquired;
    }
    s->DrainFrees();
    std::vector<uint32_t> too_new;  // empty, and allocation-free, nearly always
    std::optional<uint32_t> slot;
    while (auto i = s->bitmap.Allocate()) {
      // The slab is this machine's, so its objects are in local memory.
      if (HeaderTs(cluster::LoadWord(engine_->LocalObject(s->ObjectAddr(*i), lines))) <= read_ts) {
        slot = i;
        break;
      }
      too_new.push_back(*i);
    }
    for (uint32_t i : too_new) s->bitmap.Free(i);
    if (slot) return std::pair{s->ObjectAddr(*slot), s};
    // Full, or free only in slots freed after R: hand it back (its frees will arrive there) and
    // take another, a new one if this slab's free slots were all too new (the pool would offer
    // this one again).
    only_too_new = !too_new.empty();
    engine_->ReleaseSlab(std::exchange(s, nullptr));
  }
  return std::unexpected(TxnError{TxnErrorCode::kInternal});
}

}  // namespace farmdb::txn
