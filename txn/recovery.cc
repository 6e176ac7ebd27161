// Recovery at start (FORMATS.md "Recovery"): every machine's region memory begins as its last
// checkpoint image (Machine::Open); each engine reads its durable log from that checkpoint on
// (first pass: which transactions committed, where each run's stamps got to) and, after a process
// crash, what is still in its rings; the engines decide together which transactions of each run
// committed, and each replays those onto its memory (second pass); then the slab allocators are
// rebuilt and a new run begins.
//
// A transaction committed iff some primary logged its COMMIT-PRIMARY (FaRM §5.3 "decide": every
// client that was told so had one land, and every LOCK and COMMIT-BACKUP of it landed before),
// and, when its run ended in an earlier boot (a power loss or kernel crash, after which only
// synced data counts), its write timestamp is at or below the run's cut: the smallest last
// durable stamp of all machines, below which every machine's log is complete (durability.h).
// Transactions above the cut are void even where their records survived, so what remains is a
// prefix in timestamp order and never part of a transaction.
//
// Installs are guarded by timestamps (only a newer version replaces what is there), so records
// whose effect an image already holds are harmless, and so is replaying a run twice.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "cluster/codec.h"
#include "cluster/crash_point.h"
#include "cluster/fabric/word_copy.h"
#include "txn/engine.h"
#include "txn/object.h"
#include "txn/slab.h"

namespace farmdb::txn {

using cluster::LoadWord;
using cluster::RegionKind;
using cluster::RegionPlacement;
using cluster::StoreWord;

namespace {
// The slab table an image of a primary's region carries (checkpoint.cc writes it): count, then
// per formatted slab its index, object lines and a bitmap of allocated objects.
struct SlabMeta {
  uint32_t index = 0;
  uint32_t lines = 0;
  std::span<const std::byte> allocated;  // ceil(capacity / 64) words
};

std::optional<std::vector<SlabMeta>> ParseSlabMeta(std::span<const std::byte> meta) {
  std::vector<SlabMeta> out;
  if (meta.empty()) return out;
  cluster::ByteReader r(meta);
  uint32_t n = r.U32();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    SlabMeta m;
    m.index = r.U32();
    m.lines = r.U32();
    if (m.lines == 0 || m.lines > kSlabSize / kLineSize) return std::nullopt;
    m.allocated = r.Bytes(8 * ((SlabCapacity(m.lines) + 63) / 64));
    out.push_back(m);
  }
  if (!r.ok()) return std::nullopt;
  return out;
}
}  // namespace

std::expected<std::vector<std::unique_ptr<TxnEngine>>, std::string> TxnEngine::OpenAll(
    std::span<cluster::Machine* const> machines, EngineOptions options, AttachedHook attached,
    RecoveryExchange exchange) {
  if (options.wal_segment_size < options.log_size / 2) {
    return std::unexpected("the durable log's segments (" + std::to_string(options.wal_segment_size) +
                           " bytes) must hold the largest ring record (half the log size, " +
                           std::to_string(options.log_size) + " bytes)");
  }
  if (options.max_log_bytes <= options.checkpoint_log_bytes) {
    return std::unexpected("the full log (" + std::to_string(options.max_log_bytes) +
                           " bytes) must be more than the log that starts a checkpoint (" +
                           std::to_string(options.checkpoint_log_bytes) + " bytes)");
  }
  const auto began = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<TxnEngine>> engines;
  for (cluster::Machine* m : machines) {
    engines.push_back(std::unique_ptr<TxnEngine>(new TxnEngine(m, options)));
    if (auto read = engines.back()->ReadLog(); !read) return std::unexpected(read.error());
  }
  // What every machine's first pass found: those here, and the other processes' over `exchange`.
  std::vector<const RunLog*> logs;
  for (auto& e : engines) {
    for (auto& log : e->run_logs_) logs.push_back(log.get());
  }
  std::vector<std::unique_ptr<RunLog>> remote;
  const int cluster_machines = machines.front()->machines();
  if (static_cast<int>(engines.size()) < cluster_machines) {
    if (!exchange || engines.size() != 1) {
      return std::unexpected("recovering " + std::to_string(engines.size()) + " of the cluster's " +
                             std::to_string(cluster_machines) + " machines needs what the others' logs hold");
    }
    auto theirs = exchange(EncodeRunLogs(engines.front()->run_logs_));
    if (!theirs) return std::unexpected("recovery: " + theirs.error());
    for (size_t m = 0; m < theirs->size(); ++m) {
      if (engines.front()->machine_->id() == m) continue;
      auto decoded = DecodeRunLogs((*theirs)[m]);
      if (!decoded) return std::unexpected("recovery: machine " + std::to_string(m) + "'s first pass: " + decoded.error());
      for (auto& log : *decoded) logs.push_back(remote.emplace_back(std::move(log)).get());
    }
  }
  std::vector<RunDecision> decisions = Decide(logs);
  uint64_t next_run = 1;
  for (const RunLog* log : logs) next_run = std::max(next_run, log->run + 1);
  for (auto& e : engines) {
    if (auto replayed = e->Replay(decisions); !replayed) return std::unexpected(replayed.error());
    if (auto rebuilt = e->RebuildSlabs(); !rebuilt) return std::unexpected(rebuilt.error());
  }
  // Master time continues at the CM's floor, above every timestamp handed out before
  // (LocalCluster); a logged one at or above it means the floor was not kept.
  for (auto& e : engines) {
    if (e->max_logged_ts_ >= e->machine_->clock().Now().lower) {
      return std::unexpected((e->machine_->Dir() / "machine.state").string() +
                             ": the timestamp floor is below a timestamp in the log (" +
                             std::to_string(e->max_logged_ts_) + ")");
    }
  }
  // Each machine records the decisions and the new run before anything of the new run happens.
  for (auto& e : engines) {
    if (auto begun = e->BeginRun(next_run); !begun) return std::unexpected(begun.error());
  }
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - began);
  for (auto& e : engines) {
    if (auto done = e->Attach(); !done) return std::unexpected(done.error());
  }
  if (attached) {
    if (auto passed = attached(); !passed) return std::unexpected(passed.error());
  }
  for (auto& e : engines) {
    e->recovery_stats_.duration = took;
    const RecoveryStats& st = e->recovery_stats_;
    if (e->machine_->Reopened()) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "event=recovered machine=%u after_reboot=%d log_bytes=%llu records=%llu ring_records=%llu "
                    "objects_installed=%llu runs=%llu duration_ms=%.1f",
                    e->machine_->id(), st.after_reboot ? 1 : 0, static_cast<unsigned long long>(st.log_bytes),
                    static_cast<unsigned long long>(st.records), static_cast<unsigned long long>(st.ring_records),
                    static_cast<unsigned long long>(st.objects_installed), static_cast<unsigned long long>(st.runs),
                    double(took.count()) / 1000.0);
      e->Log(line);
    }
    e->run_logs_.clear();
    e->Start();
  }
  return engines;
}

TxnEngine::RunLog& TxnEngine::RunAt(uint64_t lsn) {
  // Runs are in LSN order; a record belongs to the last run starting at or before it.
  auto it = std::ranges::upper_bound(run_logs_, lsn, {}, [](const auto& r) { return r->start; });
  return it == run_logs_.begin() ? *run_logs_.front() : **std::prev(it);
}

void TxnEngine::NoteRecord(uint64_t lsn, std::span<const std::byte> record) {
  auto r = DecodeRecordHeader(record);
  if (!r) return;
  newest_logged_configuration_ = std::max(newest_logged_configuration_, r->configuration);
  ++recovery_stats_.records;
  if (r->type == RecordType::kCommitPrimary) RunAt(lsn).committed.emplace(r->txn, r->write_ts);
  if (r->write_ts) max_logged_ts_ = std::max(max_logged_ts_, r->write_ts);
}

std::expected<void, std::string> TxnEngine::ReadLog() {
  const cluster::MachineState state = machine_->State();
  if (state.configuration == 0 || state.configuration > kMaxConfiguration) {
    return std::unexpected((machine_->Dir() / "machine.state").string() + ": configuration " +
                           std::to_string(state.configuration) + " is out of range");
  }
  configuration_ = static_cast<uint32_t>(state.configuration);
  const std::string boot = machine_->files().BootId();
  for (const cluster::RunRecord& r : state.runs) {
    auto log = std::make_unique<RunLog>();
    log->run = r.run;
    log->start = r.log_start;
    log->cut = r.cut;
    log->trusted = !r.cut && r.boot_id == boot;
    run_logs_.push_back(std::move(log));
  }
  // A data directory from before any run (a fresh one) has nothing to read.
  if (run_logs_.empty()) {
    auto first = std::make_unique<RunLog>();
    first->trusted = true;
    run_logs_.push_back(std::move(first));
  }
  const RunLog& last = *run_logs_.back();
  recovery_stats_.after_reboot = !last.cut && !last.trusted;
  recovery_stats_.runs = state.runs.size();
  auto wal = cluster::Wal::Open(&machine_->files(), machine_->Dir() / "wal", {options_.wal_segment_size},
                                state.log_start, [&](const cluster::WalRecord& rec) {
                                  recovery_stats_.log_bytes += rec.body.size() + cluster::Wal::kHeaderSize;
                                  if (rec.type == kWalTxnRecord) {
                                    NoteRecord(rec.lsn, rec.body);
                                  } else if (rec.type == kWalStamp && rec.body.size() == 8) {
                                    uint64_t stamp;
                                    std::memcpy(&stamp, rec.body.data(), 8);
                                    RunLog& run = RunAt(rec.lsn);
                                    run.last_stamp = std::max(run.last_stamp, stamp);
                                  }
                                },
                                /*whole=*/last.trusted);
  if (!wal) return std::unexpected(wal.error().message);
  wal_ = std::move(*wal);
  log_start_.store(state.log_start);
  Durability::Peers peers;
  peers.machines = machine_->machines();
  if (peers.machines > 1) {
    peers.send_watermark = [this](Timestamp x) { return SendWatermark(x); };
    peers.publish = [this](Timestamp stamp) { Broadcast(kMsgDurable, stamp); };
    peers.demand = [this](Timestamp w) { Broadcast(kMsgDurableDemand, w); };
  }
  durability_ = std::make_unique<Durability>(&machine_->clock(), wal_.get(), options_.wal_sync_interval,
                                             options_.mutant_ack_before_sync, machine_->id(), std::move(peers));
  if (last.trusted) {
    if (auto drained = DrainRings(); !drained) return drained;
  }
  replay_end_ = wal_->end();
  // A record of a newer configuration than this machine's state knows means the state is not
  // the one this log was written with.
  if (newest_logged_configuration_ > configuration_) {
    return std::unexpected((machine_->Dir() / "wal").string() + ": holds records of configuration " +
                           std::to_string(newest_logged_configuration_) + ", newer than " +
                           (machine_->Dir() / "machine.state").string() + "'s " + std::to_string(configuration_));
  }
  return {};
}

std::expected<void, std::string> TxnEngine::DrainRings() {
  // Records that landed in a ring after a process crash were acknowledged to their coordinator
  // (FaRM's NIC ack) and may not be in the log yet: consumed here as the participant would have.
  cluster::Files& files = machine_->files();
  auto heads = files.Open(machine_->Dir() / "log-heads", cluster::MapMode::kShared);
  if (!heads) return {};  // no ring was ever made
  for (MachineId s = 0; s < static_cast<MachineId>(machine_->machines()); ++s) {
    auto ring = files.Open(machine_->Dir() / std::string("log-from-").append(std::to_string(s)),
                           cluster::MapMode::kShared);
    if (!ring || (*heads)->bytes().size() < 8 * (s + 1)) continue;
    LogReader reader((*ring)->bytes(), nullptr, LoadWord((*heads)->bytes().data() + 8 * s));
    while (auto bytes = reader.Peek()) {
      auto lsn = LogRecord(*bytes);
      if (!lsn) return std::unexpected(lsn.error().message);
      NoteRecord(*lsn, *bytes);
      ++recovery_stats_.ring_records;
      reader.Pop();
    }
  }
  // Make them durable before the rings are replaced (Start).
  if (auto synced = wal_->SyncTo(wal_->end()); !synced) return std::unexpected(synced.error().message);
  return {};
}

std::vector<TxnEngine::RunDecision> TxnEngine::Decide(std::span<const RunLog* const> logs) {
  // Runs by id, over all machines: the cut an earlier recovery decided, else (the last run) none
  // if it ended in this boot on every machine, else the smallest last stamp.
  std::map<uint64_t, RunDecision> runs;
  std::map<uint64_t, bool> trusted;
  for (const RunLog* log : logs) {
    RunDecision& d = runs[log->run];
    d.run = log->run;
    auto [t, fresh] = trusted.try_emplace(log->run, true);
    if (log->cut) {
      d.cut = std::min(d.cut, *log->cut);
    } else if (!log->trusted) {
      t->second = false;
    }
  }
  for (auto& [id, d] : runs) {
    bool decided = false;
    for (const RunLog* log : logs) decided |= log->run == id && log->cut.has_value();
    if (decided || trusted[id]) continue;
    for (const RunLog* log : logs) {
      if (log->run == id) d.cut = std::min(d.cut, log->last_stamp);
    }
  }
  for (auto& [id, d] : runs) {
    for (const RunLog* log : logs) {
      if (log->run != id) continue;
      for (auto [txn, w] : log->committed) {
        if (w <= d.cut) d.committed.emplace(txn, w);
      }
    }
  }
  std::vector<RunDecision> out;
  for (auto& [id, d] : runs) out.push_back(std::move(d));
  return out;
}

// FORMATS.md "Recovery across processes".
std::vector<std::byte> TxnEngine::EncodeRunLogs(std::span<const std::unique_ptr<RunLog>> logs) {
  std::vector<std::byte> out;
  cluster::ByteWriter w(&out);
  w.U32(static_cast<uint32_t>(logs.size()));
  for (const auto& log : logs) {
    w.U64(log->run);
    w.U32((log->cut ? 1u : 0u) | (log->trusted ? 2u : 0u));
    w.U64(log->cut.value_or(0));
    w.U64(log->last_stamp);
    w.U64(log->committed.size());
    for (auto [txn, ts] : log->committed) w.U64(txn), w.U64(ts);
  }
  return out;
}

std::expected<std::vector<std::unique_ptr<TxnEngine::RunLog>>, std::string> TxnEngine::DecodeRunLogs(
    std::span<const std::byte> bytes) {
  std::vector<std::unique_ptr<RunLog>> out;
  cluster::ByteReader r(bytes);
  const uint32_t n = r.U32();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    auto log = std::make_unique<RunLog>();
    log->run = r.U64();
    const uint32_t flags = r.U32();
    const Timestamp cut = r.U64();
    if (flags & 1) log->cut = cut;
    log->trusted = flags & 2;
    log->last_stamp = r.U64();
    const uint64_t committed = r.U64();
    if (committed > r.remaining() / 16) return std::unexpected("a run of " + std::to_string(committed) + " transactions in fewer bytes");
    for (uint64_t k = 0; k < committed; ++k) {
      const TxnId txn = r.U64();
      log->committed.emplace(txn, r.U64());
    }
    out.push_back(std::move(log));
  }
  if (!r.ok() || r.remaining() != 0) return std::unexpected("truncated or overlong");
  return out;
}

std::expected<void, std::string> TxnEngine::Replay(const std::vector<RunDecision>& decisions) {
  const MachineId self = machine_->id();
  std::string error;
  auto install = [&](const RecordObject& o, Timestamp w) {
    std::byte* mem = LocalObject(o.addr, o.lines);
    if (!mem) {
      error = "the log refers to region " + std::to_string(o.addr.region()) + " offset " +
              std::to_string(o.addr.offset()) + ", which this machine does not hold";
      return;
    }
    // The slab's header, written at its formatting without a log record, follows from any object
    // in it (every replica's copy; slab.h).
    std::byte* slab = mem - (o.addr.offset() % kSlabSize);
    uint64_t header = LoadWord(slab);
    if (header == 0) {
      StoreWord(slab, (kSlabMagic << 32) | o.lines);
    } else if (header != ((kSlabMagic << 32) | o.lines)) {
      error = "the log puts an object of " + std::to_string(o.lines) + " lines in region " +
              std::to_string(o.addr.region()) + "'s slab at " + std::to_string(o.addr.offset() / kSlabSize) +
              ", formatted otherwise";
      return;
    }
    if (HeaderTs(LoadWord(mem)) >= w) return;
    InstallObject(mem, o.lines, o.payload, w, !(o.flags & kObjFree), Addr{});
    ++recovery_stats_.objects_installed;
    if (machine_->PrimaryOf(o.addr.region()) == self) replayed_objects_.push_back(o.addr);
  };
  // A long replay says how far it got, every second.
  const uint64_t from = machine_->State().log_start;
  auto last_report = std::chrono::steady_clock::now();
  auto report = [&](uint64_t lsn) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_report < std::chrono::seconds(1)) return;
    last_report = now;
    char line[160];
    std::snprintf(line, sizeof line, "event=recovering machine=%u done=%.0f%% log=%.1fMiB", self,
                  100.0 * double(lsn - from) / double(std::max<uint64_t>(1, replay_end_ - from)),
                  double(replay_end_ - from) / double(1 << 20));
    Log(line);
  };
  auto decision_of = [&](uint64_t run) -> const RunDecision* {
    auto it = std::ranges::find(decisions, run, &RunDecision::run);
    return it == decisions.end() ? nullptr : &*it;
  };
  auto replayed = wal_->Replay(from, replay_end_, [&](const cluster::WalRecord& rec) {
    report(rec.lsn);
    if (rec.type != kWalTxnRecord || !error.empty()) return;
    auto r = DecodeRecordView(rec.body);
    const RunDecision* d = decision_of(RunAt(rec.lsn).run);
    if (!r || !d) return;
    Timestamp w = 0;
    switch (r->type) {
      case RecordType::kCommitPrimary:
        // The local primary's objects come with its decision; a remote primary's in its LOCKs.
        if (r->write_ts > d->cut) return;
        w = r->write_ts;
        break;
      case RecordType::kLock:
      case RecordType::kCommitBackup: {
        auto c = d->committed.find(r->txn);
        if (c == d->committed.end()) return;
        w = c->second;
        break;
      }
      default:
        return;
    }
    for (const RecordObject& o : r->objects) install(o, w);
    cluster::CrashPoint("recovery.replay");
  });
  if (!replayed) return std::unexpected(replayed.error().message);
  if (!error.empty()) return std::unexpected((machine_->Dir() / "wal").string() + ": " + error);
  if (auto it = std::ranges::find(decisions, run_logs_.back()->run, &RunDecision::run); it != decisions.end()) {
    recovery_stats_.cut = it->cut;
  }
  return {};
}

std::expected<void, std::string> TxnEngine::RebuildSlabs() {
  const MachineId self = machine_->id();
  for (const RegionPlacement& p : machine_->LocalRegions()) {
    if (p.primary != self) continue;
    auto meta = ParseSlabMeta(machine_->ImageMeta(p.id));
    if (!meta) return std::unexpected((machine_->Dir() / ("region-" + std::to_string(p.id))).string() +
                                      ": damaged slab table in its image");
    std::span<std::byte> bytes = machine_->LocalReplica(p.id);
    uint32_t next = 0;
    for (uint32_t i = 0; uint64_t{i + 1} * kSlabSize <= bytes.size(); ++i) {
      uint64_t header = LoadWord(bytes.data() + uint64_t{i} * kSlabSize);
      if ((header >> 32) != kSlabMagic) continue;
      auto slab = std::make_unique<Slab>(p.id, i, static_cast<uint32_t>(header & 0xffffffff));
      if (auto m = std::ranges::find(*meta, i, &SlabMeta::index); m != meta->end() && m->lines == slab->lines) {
        for (uint32_t k = 0; k < slab->bitmap.capacity(); ++k) {
          uint64_t word;
          std::memcpy(&word, m->allocated.data() + 8 * (k / 64), 8);
          if (word & (uint64_t{1} << (k % 64))) slab->bitmap.Take(k);
        }
      }
      next = i + 1;
      std::lock_guard il(index_mu_);
      slab_index_[{slab->region, slab->index}] = slab.get();
      slabs_.push_back(std::move(slab));
    }
    std::lock_guard l(alloc_mu_);
    data_regions_.emplace_back(p.id, next);
  }
  // What the replay installed at this primary decides those objects' bits.
  for (Addr a : replayed_objects_) {
    Slab* s = FindSlab(a);
    if (!s) continue;
    uint32_t i = s->ObjectIndex(a);
    if (HeaderAllocated(LoadWord(LocalObject(a, s->lines)))) {
      s->bitmap.Take(i);
    } else {
      s->bitmap.Free(i);
    }
  }
  replayed_objects_.clear();
  std::lock_guard l(alloc_mu_);
  std::lock_guard il(index_mu_);
  for (auto& s : slabs_) unowned_slabs_[s->lines].push_back(s.get());
  return {};
}

std::expected<void, std::string> TxnEngine::BeginRun(uint64_t run) {
  const std::string boot = machine_->files().BootId();
  auto stored = machine_->UpdateState([&](cluster::MachineState& s) {
    for (cluster::RunRecord& r : s.runs) {
      if (!r.cut) r.cut = recovery_stats_.cut;
    }
    s.runs.push_back({run, wal_->end(), boot, std::nullopt});
  });
  if (!stored) return std::unexpected(stored.error().message);
  return {};
}

}  // namespace farmdb::txn
