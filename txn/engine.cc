#include "txn/engine.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "cluster/crash_point.h"
#include "cluster/fabric/word_copy.h"
#include "txn/object.h"

namespace farmdb::txn {

using cluster::MemKey;
using cluster::MemKind;

TxnEngine::TxnEngine(cluster::Machine* machine, EngineOptions options)
    : machine_(machine), options_(options), old_versions_(machine) {}

std::expected<void, std::string> TxnEngine::Attach() {
  const int n = machine_->machines();
  const MachineId self = machine_->id();
  cluster::Files& files = machine_->files();
  head_mirror_.assign(n, 0);
  published_head_.assign(n, 0);
  head_publication_.assign(n, nullptr);
  // Fresh rings: recovery consumed what the last run left in them (DrainRings).
  auto heads = files.Create(machine_->Dir() / "log-heads", 8 * static_cast<size_t>(n), cluster::MapMode::kShared);
  if (!heads) return std::unexpected(heads.error().message);
  log_heads_ = std::move(*heads);
  for (MachineId s = 0; s < static_cast<MachineId>(n); ++s) {
    auto ring = files.Create(machine_->Dir() / std::string("log-from-").append(std::to_string(s)), options_.log_size,
                             cluster::MapMode::kShared);
    if (!ring) return std::unexpected(ring.error().message);
    rings_.push_back(std::move(*ring));
  }
  for (MachineId s = 0; s < static_cast<MachineId>(n); ++s) {
    machine_->fabric().Register(self, MemKey(MemKind::kLog, s), rings_[s]->bytes());
    machine_->fabric().SetWriteNotifier(self, MemKey(MemKind::kLog, s),
                                        [this] { doorbell_.Ring(); });
    readers_.emplace_back(rings_[s]->bytes(), log_heads_->bytes().data() + 8 * s);
  }
  machine_->fabric().Register(
      self, MemKey(MemKind::kLogHead, 0),
      {reinterpret_cast<std::byte*>(head_mirror_.data()), head_mirror_.size() * 8});
  for (MachineId r = 0; r < static_cast<MachineId>(n); ++r) {
    writers_.push_back(std::make_unique<LogWriter>(
        &machine_->fabric(), self, r, options_.log_size,
        reinterpret_cast<const std::byte*>(&head_mirror_[r]), configuration_,
        r == self ? rings_[self]->bytes() : std::span<std::byte>{}));
  }
  return {};
}

void TxnEngine::Start() {
  // Routing a reply only queues it for its worker, under locks that no sender holds.
  machine_->OnMessage(kMsgLockReply, [this](cluster::Message m) { RouteLockReply(m); },
                      cluster::Machine::HandlerThread::kAnyThread);
  auto timestamp_of = [](const cluster::Message& m) {
    uint64_t t = 0;
    if (m.body.size() == 8) std::memcpy(&t, m.body.data(), 8);
    return t;
  };
  machine_->OnMessage(kMsgDurable, [this, timestamp_of](cluster::Message m) {
    durability_->OnPeerDurable(m.from, timestamp_of(m));
  }, cluster::Machine::HandlerThread::kAnyThread);
  machine_->OnMessage(kMsgDurableDemand, [this, timestamp_of](cluster::Message m) {
    durability_->Demand(timestamp_of(m));
  }, cluster::Machine::HandlerThread::kAnyThread);
  machine_->SetOatProvider([this] { return OldestActive(); });
  durability_->Start();
  poller_ = std::thread([this] { PollLoop(); });
  checkpointer_ = std::thread([this] { CheckpointLoop(); });
}

TxnEngine::~TxnEngine() {
  stop_.store(true);
  {
    std::lock_guard l(checkpoint_wait_mu_);
    checkpoint_wake_.notify_all();
  }
  // A checkpoint may wait for a stamp of a machine whose engine stopped first; it gives up.
  if (durability_) durability_->AbandonWaits();
  log_room_.NotifyAll();
  if (checkpointer_.joinable()) checkpointer_.join();
  if (poller_.joinable()) {
    poller_.join();
    // A clean stop leaves every commit durable, off ones too.
    durability_->Stop();
    machine_->SetOatProvider(nullptr);
    machine_->OnMessage(kMsgLockReply, nullptr);
    machine_->OnMessage(kMsgDurable, nullptr);
    machine_->OnMessage(kMsgDurableDemand, nullptr);
  }
  if (!log_heads_) return;  // never attached
  const MachineId self = machine_->id();
  for (MachineId s = 0; s < rings_.size(); ++s) {
    machine_->fabric().SetWriteNotifier(self, MemKey(MemKind::kLog, s), nullptr);
    machine_->fabric().Unregister(self, MemKey(MemKind::kLog, s));
  }
  machine_->fabric().Unregister(self, MemKey(MemKind::kLogHead, 0));
}

void TxnEngine::WaitDurable(Timestamp w) { durability_->WaitDurable(w); }

void TxnEngine::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "farmdb: %s\n", line.c_str());
  }
}

bool TxnEngine::SendWatermark(Timestamp x) {
  Record r;
  r.type = RecordType::kWatermark;
  r.txn = MakeTxnId(machine_->id(), 0, 0);
  r.write_ts = x;
  bool all = true;
  for (MachineId to = 0; to < writers_.size(); ++to) {
    auto bytes = EncodeRecord(r);
    LogWriter& w = Writer(to);
    // Never waits for room: a receiver that stopped consuming (it shuts down, its log is full)
    // must not hold up this machine's syncer; the watermark goes again on the next round.
    if (!w.TryReserve(2 * bytes.size())) {
      all = false;
      continue;
    }
    w.Append(std::move(bytes));
    // The own ring's records are nobody's reply and wait for the participant's next round
    // otherwise; a commit waits for this one.
    if (to == machine_->id()) doorbell_.Ring();
  }
  return all;
}

void TxnEngine::Broadcast(uint16_t type, Timestamp t) {
  for (MachineId to = 0; to < static_cast<MachineId>(machine_->machines()); ++to) {
    if (to == machine_->id()) continue;
    std::vector<std::byte> body(8);
    std::memcpy(body.data(), &t, 8);
    machine_->Send(to, type, std::move(body));
  }
}

std::expected<uint64_t, cluster::FileError> TxnEngine::LogRecord(std::span<const std::byte> encoded) {
  return wal_->Append(kWalTxnRecord, std::span(&encoded, 1));
}

std::vector<std::byte> TxnEngine::Stamped(std::vector<std::byte> encoded) const {
  SetRecordConfiguration(encoded, configuration_);
  return encoded;
}

std::expected<void, cluster::FileError> TxnEngine::LogLocalCommit(const Record& commit,
                                                                  std::span<const RecordObject> objects,
                                                                  uint64_t chunk_limit) {
  // A bulk load's values go in LOCK records of at most chunk_limit bytes, the last chunk in the
  // COMMIT-PRIMARY itself; recovery takes the values of a committed transaction from both.
  Record lock;
  lock.type = RecordType::kLock;
  lock.txn = commit.txn;
  size_t begin = 0;
  uint64_t size = EncodedSize(commit);
  for (size_t i = 0; i < objects.size(); ++i) {
    uint64_t more = EncodedSize(objects[i]);
    if (size + more > chunk_limit && i > begin) {
      if (auto logged = LogRecord(Stamped(EncodeRecord(lock, objects.subspan(begin, i - begin)))); !logged) {
        return std::unexpected(logged.error());
      }
      begin = i;
      size = EncodedSize(commit);
    }
    size += more;
  }
  if (auto logged = LogRecord(Stamped(EncodeRecord(commit, objects.subspan(begin)))); !logged) {
    return std::unexpected(logged.error());
  }
  return {};
}

std::unique_ptr<Worker> TxnEngine::NewWorker() {
  std::lock_guard l(workers_mu_);
  uint32_t id;
  if (!free_worker_ids_.empty()) {
    id = free_worker_ids_.back();
    free_worker_ids_.pop_back();
  } else if (next_worker_ <= kMaxWorkers) {
    id = next_worker_++;
  } else {
    return nullptr;
  }
  auto seq = worker_seq_.find(id);
  uint32_t next_seq = seq == worker_seq_.end() ? 1 : seq->second;
  auto w = std::unique_ptr<Worker>(new Worker(this, id, next_seq));
  workers_[id] = w.get();
  return w;
}

void TxnEngine::ReleaseWorkerId(uint32_t id, uint32_t next_seq) {
  std::lock_guard l(workers_mu_);
  workers_.erase(id);
  worker_seq_[id] = next_seq;
  free_worker_ids_.push_back(static_cast<uint16_t>(id));
}

void TxnEngine::SendIdleTruncations() {
  {
    // A worker being destroyed waits in ReleaseWorkerId until this is done with it.
    std::lock_guard l(workers_mu_);
    for (auto& [id, w] : workers_) w->TakeAckedTruncations(idle_truncations_);
  }
  // What finds no room in a ring (its receiver is slow, or gone) waits for the next round.
  AppendTruncations(idle_truncations_, /*wait_for_room=*/false);
}

void TxnEngine::AppendTruncations(std::map<MachineId, std::vector<TxnId>>& truncations, bool wait_for_room) {
  std::vector<cluster::CompletionPtr> landed;
  for (auto& [to, ids] : truncations) {
    size_t at = 0;
    for (; at < ids.size(); at += kMaxPiggybacked) {
      Record r;
      r.type = RecordType::kTruncate;
      r.truncated.assign(ids.begin() + static_cast<ptrdiff_t>(at),
                         ids.begin() + static_cast<ptrdiff_t>(std::min(ids.size(), at + kMaxPiggybacked)));
      auto bytes = EncodeRecord(r);
      LogWriter& w = Writer(to);
      if (wait_for_room) {
        w.Reserve(2 * bytes.size());
      } else if (!w.TryReserve(2 * bytes.size())) {
        break;
      }
      landed.push_back(w.Append(std::move(bytes)));
    }
    ids.erase(ids.begin(), ids.begin() + static_cast<ptrdiff_t>(std::min(at, ids.size())));
  }
  std::erase_if(truncations, [](const auto& t) { return t.second.empty(); });
  for (auto& c : landed) c->Wait();
}

Timestamp TxnEngine::OldestActive() {
  Timestamp oat = ~Timestamp{0};
  std::lock_guard l(workers_mu_);
  for (auto& [id, w] : workers_) oat = std::min(oat, w->OldestActive());
  return oat;
}

void TxnEngine::RouteLockReply(const cluster::Message& m) {
  auto r = DecodeLockReply(m.body);
  if (!r) return;
  std::lock_guard l(workers_mu_);
  auto it = workers_.find(TxnWorker(r->txn));
  if (it != workers_.end()) it->second->DeliverLockReply(*r);
}

bool TxnEngine::LogsDrained() {
  return std::ranges::all_of(writers_, [](auto& w) { return w->Drained(); });
}

std::vector<std::tuple<RegionId, uint32_t, uint32_t>> TxnEngine::Slabs() {
  std::lock_guard l(index_mu_);
  std::vector<std::tuple<RegionId, uint32_t, uint32_t>> out;
  for (auto& s : slabs_) out.emplace_back(s->region, s->index, s->lines);
  return out;
}

std::expected<uint32_t, TxnError> TxnEngine::ObjectLines(Addr a) {
  uint64_t slab = a.offset() / kSlabSize;
  uint64_t key = (uint64_t{a.region()} << 32) | slab;
  if (auto hit = lines_front_.Find(key, lines_front_.version())) return *hit;
  {
    std::shared_lock l(lines_mu_);
    if (auto it = lines_cache_.find(key); it != lines_cache_.end()) {
      lines_front_.Fill(key, it->second, lines_front_.version());
      return it->second;
    }
  }
  auto p = machine_->Lookup(a.region());
  if (!p) return std::unexpected(TxnError{TxnErrorCode::kInvalidArgument});
  alignas(8) std::byte header[8];
  cluster::FabricError failed = ReadFromPrimary(p->primary, Addr::Of(p->id, slab * kSlabSize), header);
  if (TxnErrorCode code = FabricFailure(failed); failed != cluster::FabricError::kNone && code == TxnErrorCode::kUnavailable) {
    return std::unexpected(TxnError{code});
  }
  uint64_t w = cluster::LoadWord(header);
  if (failed != cluster::FabricError::kNone || (w >> 32) != kSlabMagic) {
    return std::unexpected(TxnError{TxnErrorCode::kNotAllocated});
  }
  uint32_t lines = static_cast<uint32_t>(w & 0xffffffff);
  {
    std::unique_lock l(lines_mu_);
    lines_cache_[key] = lines;
  }
  lines_front_.Fill(key, lines, lines_front_.version());
  return lines;
}

cluster::FabricError TxnEngine::ReadFromPrimary(MachineId primary, Addr a, std::span<std::byte> dst) {
  if (primary == machine_->id()) {
    auto bytes = machine_->LocalReplica(a.region());
    if (a.offset() % 8 || a.offset() + dst.size() > bytes.size()) return cluster::FabricError::kOutOfRange;
    cluster::CopyOut(bytes.data() + a.offset(), dst.data(), dst.size());
    return cluster::FabricError::kNone;
  }
  auto c = machine_->fabric().Read(machine_->id(), primary, MemKey(MemKind::kRegion, a.region()),
                                   a.offset(), dst);
  c->Wait();
  if (c->ok()) return cluster::FabricError::kNone;
  // LocalFabric gives no reason: its only failure is memory that is not registered.
  return c->error() == cluster::FabricError::kNone ? cluster::FabricError::kNotRegistered : c->error();
}

std::expected<ObjectHead, cluster::FabricError> TxnEngine::ReadObjectFromPrimary(MachineId primary, Addr a,
                                                                                  uint32_t lines, std::byte* payload,
                                                                                  RawBytes& scratch) {
  if (primary == machine_->id()) {
    const std::byte* mem = LocalObject(a, lines);
    if (!mem) return std::unexpected(cluster::FabricError::kOutOfRange);
    return CopyPayloadOut(mem, lines, payload);
  }
  scratch.resize(size_t{lines} * kLineSize);
  if (auto failed = ReadFromPrimary(primary, a, scratch); failed != cluster::FabricError::kNone) {
    return std::unexpected(failed);
  }
  return CopyPayloadOut(scratch.data(), lines, payload);
}

std::expected<Slab*, TxnError> TxnEngine::AcquireSlab(uint32_t lines, bool fresh) {
  std::lock_guard l(alloc_mu_);
  auto& pool = unowned_slabs_[lines];
  for (auto it = pool.begin(); !fresh && it != pool.end(); ++it) {
    (*it)->DrainFrees();
    if ((*it)->bitmap.free_count() > 0) {
      Slab* s = *it;
      pool.erase(it);
      return s;
    }
  }
  auto free_region = std::ranges::find_if(data_regions_, [&](auto& r) {
    return uint64_t{r.second + 1} * kSlabSize <= machine_->options().region_size;
  });
  if (free_region == data_regions_.end()) {
    auto p = machine_->AllocateRegion(-1, machine_->id());
    if (!p) return std::unexpected(TxnError{p.error().no_space ? TxnErrorCode::kOutOfSpace : TxnErrorCode::kInternal});
    if (p->primary != machine_->id()) return std::unexpected(TxnError{TxnErrorCode::kInternal});
    data_regions_.emplace_back(p->id, 0);
    free_region = data_regions_.end() - 1;
  }
  auto p = machine_->Lookup(free_region->first);
  uint32_t index = free_region->second++;
  // Format: the slab header goes to the primary and every backup before any object is used.
  alignas(8) std::byte header[8];
  uint64_t w = (kSlabMagic << 32) | lines;
  std::memcpy(header, &w, 8);
  std::vector<MachineId> replicas = p->backups;
  replicas.push_back(p->primary);
  std::vector<cluster::CompletionPtr> done;
  for (MachineId m : replicas) {
    done.push_back(machine_->fabric().Write(machine_->id(), m, MemKey(MemKind::kRegion, p->id),
                                            uint64_t{index} * kSlabSize, header));
  }
  for (auto& c : done) c->Wait();
  std::lock_guard il(index_mu_);
  slabs_.push_back(std::make_unique<Slab>(p->id, index, lines));
  Slab* s = slabs_.back().get();
  slab_index_[{s->region, s->index}] = s;
  return s;
}

void TxnEngine::ReleaseSlab(Slab* s) {
  std::lock_guard l(alloc_mu_);
  unowned_slabs_[s->lines].push_back(s);
}

Slab* TxnEngine::FindSlab(Addr a) {
  std::lock_guard l(index_mu_);
  auto it = slab_index_.find({a.region(), static_cast<uint32_t>(a.offset() / kSlabSize)});
  return it == slab_index_.end() ? nullptr : it->second;
}

void TxnEngine::PollLoop() {
  constexpr int kIdleYields = 8;
  // Nothing latency-bound waits for the timeout: remote records ring the doorbell, and own-ring
  // records are nobody's awaited reply. Each timed wake-up cost this thread 10-20 us of CPU.
  constexpr auto kIdleWait = std::chrono::milliseconds(5);
  const MachineId self = machine_->id();
  int idle = 0;
  auto last_gc = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    if (machine_->Paused()) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      continue;
    }
    // Read before looking at the rings: a record landing after the look changes it, so the
    // wait below returns at once instead of missing that record.
    const uint64_t rung = doorbell_.Count();
    bool progress = false, remote_progress = false, log_full = false;
    for (MachineId s = 0; s < readers_.size(); ++s) {
      for (int k = 0; k < 64 && !log_full; ++k) {
        auto bytes = readers_[s].Peek();
        if (!bytes) break;
        progress = true;
        remote_progress |= s != self;
        // Into the durable log before it leaves the ring or takes effect (engine.h).
        std::shared_lock in_progress(progress_mu_);
        auto lsn = LogRecord(*bytes);
        auto rec = DecodeRecord(std::move(*bytes));
        if (!lsn && !(rec && rec->type == RecordType::kLock)) {
          // No room in the log: the record stays in the ring until a checkpoint frees some (a
          // LOCK is refused instead, below, so no new transaction piles up meanwhile).
          log_full = true;
          break;
        }
        cluster::CrashPoint("participant.logged");
        readers_[s].Pop();
        if (!rec) continue;
        if (lsn) {
          HandleRecord(std::move(*rec), *lsn);
        } else {
          OnLock(std::move(*rec), 0, /*logged=*/false);
        }
      }
      // Lazy head publication: when a good chunk was consumed, or when idle. At most one
      // publication per sender is in flight, so the sender's mirror only moves forward even if
      // the fabric delayed one write past a later one; a head that moved meanwhile is published
      // once the previous write completed.
      uint64_t head = readers_[s].head();
      auto& inflight = head_publication_[s];
      if (inflight && !inflight->Done()) continue;
      inflight.reset();
      if (head != published_head_[s] &&
          (!progress || head - published_head_[s] >= options_.log_size / 8)) {
        alignas(8) std::byte word[8];
        std::memcpy(word, &head, 8);
        inflight = machine_->fabric().Write(self, s, MemKey(MemKind::kLogHead, 0),
                                            uint64_t{self} * 8, word);
        published_head_[s] = head;
      }
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_gc > std::chrono::milliseconds(1)) {
      std::lock_guard l(old_versions_mu_);
      blocks_freed_.fetch_add(old_versions_.Collect(machine_->GcSafePoint()));
      last_gc = now;
    }
    // Idle: after a record from another machine, a few yields catch a reply's next record on a
    // busy machine; then sleep until a remote record lands (the doorbell) or kIdleWait passes
    // (GC, head publication, own-ring records). Spinning longer loses on two cores, where the
    // spinner takes the coordinator's CPU. Own-ring records (all a single machine has) are
    // nobody's awaited reply: yielding after them only cost CPU.
    if (log_full) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else if (progress) {
      idle = remote_progress ? 0 : kIdleYields;
    } else if (++idle < kIdleYields) {
      std::this_thread::yield();
    } else {
      doorbell_.Wait(rung, kIdleWait);
    }
  }
}

}  // namespace farmdb::txn
