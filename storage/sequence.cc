#include "storage/sequence.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <thread>
#include <variant>

namespace farmdb::storage {

namespace {

constexpr uint32_t kSequenceTag = 0x53455131;  // "SEQ1"
constexpr size_t kSequenceBytes = 64;

// The object's fields at fixed offsets (sequence.h), little-endian like every storage object.
struct Layout {
  uint32_t tag;
  uint8_t is_called;
  uint8_t cycle;
  uint16_t zero;
  uint64_t incarnation;
  int64_t start, increment, min, max, cache, last;
};
static_assert(sizeof(Layout) == kSequenceBytes);

std::vector<std::byte> Encode(const SequenceState& s, uint64_t incarnation) {
  Layout l{kSequenceTag, s.is_called, s.options.cycle, 0, incarnation, s.options.start,
           s.options.increment, s.options.min, s.options.max, s.options.cache, s.last};
  std::vector<std::byte> out(sizeof(l));
  std::memcpy(out.data(), &l, sizeof(l));
  return out;
}

StorageResult<SequenceState> Decode(std::span<const std::byte> p, uint64_t incarnation) {
  Layout l;
  if (p.size() < sizeof(l)) return Failure(StorageError::Code::kCorrupt);
  std::memcpy(&l, p.data(), sizeof(l));
  // Another object at this Addr (the sequence was dropped and its memory reused).
  if (l.tag != kSequenceTag || l.incarnation != incarnation) {
    return Failure(StorageError::Code::kInvalidArgument);
  }
  return SequenceState{{l.start, l.increment, l.min, l.max, l.cache, l.cycle != 0}, l.last,
                       l.is_called != 0};
}

// The value after `last`, as PostgreSQL's nextval_internal steps: past max (min) a cycling
// sequence restarts at min (max), a non-cycling one has no next value.
std::optional<int64_t> After(const SequenceOptions& o, int64_t last) {
  __int128 next = static_cast<__int128>(last) + o.increment;
  if (next > o.max || next < o.min) {
    if (!o.cycle) return std::nullopt;
    return o.increment > 0 ? o.min : o.max;
  }
  return static_cast<int64_t>(next);
}

bool Valid(const SequenceOptions& o) {
  return o.increment != 0 && o.min < o.max && o.start >= o.min && o.start <= o.max &&
         o.cache >= 1;
}

StorageResult<SequenceState> ReadState(txn::Txn& t, SequenceRef seq) {
  auto bytes = t.ReadView(seq.addr);
  if (!bytes && bytes.error().code == txn::TxnErrorCode::kNotAllocated) {
    return Failure(StorageError::Code::kInvalidArgument);
  }
  if (!bytes) return TxnFailure(bytes.error());
  return Decode(*bytes, seq.incarnation);
}

// Takes up to `n` values (at least one) in `t`: reads the state, steps as nextval would and
// writes the last value taken back. kSequenceLimit if not even one is left.
struct Taken {
  SequenceOptions options;
  int64_t first = 0;
  int64_t count = 0;
};
StorageResult<Taken> Take(txn::Txn& t, SequenceRef seq, std::optional<int64_t> n) {
  auto s = ReadState(t, seq);
  if (!s) return std::unexpected(s.error());
  const SequenceOptions& o = s->options;
  std::optional<int64_t> first = s->is_called ? After(o, s->last) : s->last;
  if (!first) return Failure(StorageError::Code::kSequenceLimit);
  Taken taken{o, *first, 1};
  int64_t last = *first;
  for (; taken.count < n.value_or(o.cache); ++taken.count) {
    auto next = After(o, last);
    if (!next) break;
    last = *next;
  }
  // A block handed out must stay handed out: nextval never returns a value twice, across a
  // power loss too.
  t.RequireSyncCommit();
  auto w = t.Write(seq.addr, Encode(SequenceState{o, last, true}, seq.incarnation));
  if (!w) return TxnFailure(w.error());
  return taken;
}

}  // namespace

StorageResult<SequenceRef> Sequence::Create(txn::Txn& t, const SequenceOptions& options) {
  if (!Valid(options)) return Failure(StorageError::Code::kInvalidArgument);
  auto a = t.Alloc(kSequenceBytes);
  if (!a) return TxnFailure(a.error());
  SequenceRef ref{*a, t.id()};
  auto w = t.Write(*a, Encode(SequenceState{options, options.start, false}, ref.incarnation));
  if (!w) return TxnFailure(w.error());
  return ref;
}

StorageResult<SequenceState> Sequence::Read(txn::Txn& t, SequenceRef seq) {
  return ReadState(t, seq);
}

StorageResult<void> Sequence::Drop(txn::Txn& t, SequenceRef seq) {
  auto s = ReadState(t, seq);
  if (!s) return std::unexpected(s.error());
  auto f = t.Free(seq.addr);
  if (!f) return TxnFailure(f.error());
  return {};
}

SequenceCache::SequenceCache(txn::TxnEngine& engine) : worker_(engine.NewWorker()) {}

// Commits without waiting for durability: the caller holds worker_mu_, and waits (after letting
// go of it) before it hands out anything the commit decided.
template <typename T, typename Fn>
StorageResult<T> SequenceCache::RunTxn(Fn fn, txn::CommitInfo* committed) {
  // Conflicts come only from other machines' refills of the same sequence, each a few objects
  // long; retry until one wins rather than surface nextval aborts PostgreSQL never gives.
  for (;;) {
    auto t = worker_->Begin({});
    if (!t) return TxnFailure(t.error());
    StorageResult<T> r = fn(**t);
    if (!r) {
      if (r.error().IsRetryable()) continue;
      return r;
    }
    auto c = (*t)->Commit(txn::CommitWait::kNoWait);
    if (c) {
      *committed = *c;
      return r;
    }
    if (!c.error().IsRetryable()) return TxnFailure(c.error());
    std::this_thread::yield();
  }
}

StorageResult<int64_t> SequenceCache::Next(SequenceRef seq) {
  // A value and the refill commit that must be durable before it is handed out.
  auto take = [this, &seq]() -> std::optional<std::pair<int64_t, txn::CommitInfo>> {
    auto it = blocks_.find(seq);
    if (it == blocks_.end() || it->second.remaining == 0) return std::nullopt;
    Block& b = it->second;
    int64_t v = b.next;
    // The refill checked that the block's values exist, so the step cannot fail here.
    if (--b.remaining > 0) b.next = *After(b.options, v);
    return std::pair{v, b.refill};
  };
  auto hand_out = [this](std::pair<int64_t, txn::CommitInfo> taken) {
    if (taken.second.wait_durable) worker_->engine().WaitDurable(taken.second.write_ts);
    return taken.first;
  };
  std::optional<std::pair<int64_t, txn::CommitInfo>> v;
  {
    std::lock_guard l(mu_);
    v = take();
  }
  if (v) return hand_out(*v);
  {
    std::lock_guard wl(worker_mu_);
    {
      std::lock_guard l(mu_);  // another thread may have refilled while we waited
      v = take();
    }
    if (!v) {
      txn::CommitInfo committed;
      auto taken = RunTxn<Taken>([&](txn::Txn& t) { return Take(t, seq, std::nullopt); }, &committed);
      if (!taken) return std::unexpected(taken.error());
      std::lock_guard l(mu_);
      blocks_[seq] = Block{taken->options, taken->first, taken->count, committed};
      v = take();
    }
  }
  return hand_out(*v);
}

StorageResult<int64_t> SequenceCache::Next(SequenceRef seq, txn::Txn& caller) {
  auto v = Next(seq);
  if (v || v.error().code != StorageError::Code::kInvalidArgument) return v;
  // Invisible to this cache's transactions: created by `caller` (or absent, which Take in
  // `caller` reports). No other transaction can see it, so the caller's Txn conflicts with
  // no one; one value per call, nothing cached for a creation that may yet abort.
  auto taken = Take(caller, seq, 1);
  if (!taken) return std::unexpected(taken.error());
  return taken->first;
}

StorageResult<int64_t> SequenceCache::NextRowId(SequenceRef seq, txn::Txn& caller) {
  const std::pair key{seq, txn::TxnWorker(caller.id())};
  {
    std::lock_guard l(mu_);
    if (auto it = chunks_.find(key); it != chunks_.end() && it->second.remaining > 0) {
      --it->second.remaining;
      return it->second.next++;
    }
  }
  // A new chunk: this value as Next hands it out (refilling the machine's block if need be),
  // then up to kRowIdChunk - 1 more taken off the block. Row-id sequences step by 1, so the
  // block's next values are consecutive; other threads may take from the block in between,
  // which only moves where the chunk starts.
  auto first = Next(seq, caller);
  if (!first) return first;
  std::lock_guard l(mu_);
  Chunk& chunk = chunks_[key];
  chunk.remaining = 0;
  if (auto it = blocks_.find(seq); it != blocks_.end() && it->second.options.increment == 1) {
    Block& b = it->second;
    int64_t n = std::min(kRowIdChunk - 1, b.remaining);
    chunk = {b.next, n};
    b.next += n;
    b.remaining -= n;
  }
  return *first;
}

StorageResult<void> SequenceCache::Set(SequenceRef seq, int64_t value, bool is_called) {
  txn::CommitInfo committed;
  std::unique_lock wl(worker_mu_);
  auto r = RunTxn<std::monostate>([&](txn::Txn& t) -> StorageResult<std::monostate> {
    auto s = ReadState(t, seq);
    if (!s) return std::unexpected(s.error());
    if (value < s->options.min || value > s->options.max) {
      return Failure(StorageError::Code::kInvalidArgument);
    }
    t.RequireSyncCommit();
    auto w = t.Write(seq.addr, Encode(SequenceState{s->options, value, is_called}, seq.incarnation));
    if (!w) return TxnFailure(w.error());
    return std::monostate{};
  }, &committed);
  wl.unlock();
  if (!r) return std::unexpected(r.error());
  if (committed.wait_durable) worker_->engine().WaitDurable(committed.write_ts);
  std::lock_guard l(mu_);
  blocks_.erase(seq);
  std::erase_if(chunks_, [&](const auto& c) { return c.first.first == seq; });
  return {};
}

void SequenceCache::FlushTruncations() {
  std::lock_guard wl(worker_mu_);
  worker_->FlushTruncations();
}

}  // namespace farmdb::storage
